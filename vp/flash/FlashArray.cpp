// SPDX-License-Identifier: BSD-3-Clause
#include "vp/flash/FlashArray.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <numeric>

#include "vp/core/ParamScope.hpp"
#include "vp/core/Quote.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/flash/FlashCells.hpp"

namespace vp::flash {

namespace {
// What a cell preset may set, under ssd.flash.
constexpr const char* kCellKeys[] = {"bits_per_cell", "t_read",     "t_read_csb", "t_read_msb", "t_prog",
                                     "t_prog_csb",    "t_prog_msb", "t_erase",    "cache_read", "endurance"};

std::vector<std::string> cell_names() {
  std::vector<std::string> n;
  for (const auto& [name, _] : embedded_cells()) n.push_back(name);
  return n;
}

// A page type's time must be given exactly when the cell has that page type.
void check_page_time(const ScopedConfig& c, const std::string& key, PageType type) {
  int64_t bits = c.get_int("bits_per_cell");
  bool has = type == PageType::CSB ? bits == 3 : bits >= 2;
  Tick t = c.get_time(key);
  if (has && t == 0)
    c.fail({key, "bits_per_cell"},
           fmt::format("a cell with {} bits has {} pages: give their time", bits, page_type_name(type)));
  if (!has && t != 0)
    c.fail({key, "bits_per_cell"},
           fmt::format("a cell with {} bit(s) has no {} pages: leave {} 0us", bits, page_type_name(type), c.key(key)));
}
}  // namespace

void FlashArray::declare_params(const ParamScope& r) {
  // Defaults: the Z-NAND device of FlashShare Table 2 (16 channels, 1 package
  // per channel, 8 dies, 8 planes, 2 KB pages, 3us/100us/1ms, 800 MHz DMA);
  // 1024 blocks of 512 pages per plane make a 64 Gb die.
  r.integer("channels", 16, "flash channels (ONFI buses)").range(1, 1024);
  r.integer("packages_per_channel", 1, "packages sharing one channel").range(1, 64);
  r.integer("dies_per_package", 8, "dies per package").range(1, 64);
  r.integer("planes_per_die", 8, "planes per die").range(1, 16);
  r.integer("blocks_per_plane", 1024, "erase blocks per plane").range(1, 1 << 20);
  r.size("block_size", "1MiB", "bytes of data per erase block (page_size x pages per block)").at_least(512);
  r.size("page_size", "2KiB", "bytes of data per flash page").range(512, 65536);
  r.size("oob_size", "64B", "spare (OOB) bytes per page").range(0, 8192);
  // The cell: a preset (vp/flash/cells/*.yaml) fills whichever of the keys
  // below the configuration does not set. The defaults are the znand cell.
  r.choice("cell", "znand", cell_names(), "cell preset filling the cell keys not set explicitly");
  r.integer("bits_per_cell", 1, "bits per cell: 1 SLC, 2 MLC (LSB, MSB pages), 3 TLC (LSB, CSB, MSB)")
      .range(1, 3);
  r.time("t_read", "3us", "array read time tR of an LSB page (every page of an SLC)");
  r.time("t_read_csb", "0us", "tR of a CSB page (TLC only, else 0)");
  r.time("t_read_msb", "0us", "tR of an MSB page (MLC and TLC, else 0)");
  r.time("t_prog", "100us", "page program time tPROG of an LSB page (every page of an SLC)");
  r.time("t_prog_csb", "0us", "tPROG of a CSB page (TLC only, else 0)");
  r.time("t_prog_msb", "0us", "tPROG of an MSB page (MLC and TLC, else 0)");
  r.time("t_erase", "1ms", "block erase time tBERS");
  r.integer("endurance", 100000, "rated program/erase cycles of a block (SMART percentage used)")
      .range(1, 1e9);
  r.boolean("cache_read", false,
            "cache read: a die starts the next read while the last one's data leaves the cache register");
  // The per-channel transaction scheduler.
  r.choice("scheduler", "read_first", {"fifo", "read_first"},
           "per-die queue order: arrival, or reads before programs before erases, foreground before background");
  r.time("write_starvation", "1ms",
         "read_first: a program waiting longer than this goes first; suspend: reads hold one program or erase "
         "suspended at most this long in all")
      .at_least(0);
  // mq-deadline's writes_starved bounds the same deferral (in batches of
  // 16); 8 reads is our choice: under reads that never stop, programs keep
  // 70% of a Z-NAND die (102.6 us against 8 x 5.6 us of reads), and at a
  // read every 50 us no read waits behind more than the program in progress.
  r.integer("reads_per_starved_program", 8,
            "read_first: after a starved program (waiting past write_starvation) reads get this many picks of the "
            "die before the next starved program goes first; 0: a starved program always goes first")
      .range(0, 1 << 20);
  r.boolean("multiplane", true, "join waiting operations on one die's planes (same op, block, page)");
  // Suspend times: none of the papers gives them; 20us each is an assumption.
  r.boolean("suspend", false, "a foreground read suspends a program or erase in its array time");
  r.time("t_suspend", "20us", "from a read's arrival until the program/erase is suspended (assumed)");
  r.time("t_resume", "20us", "extra array time to resume a suspended program/erase (assumed)");
  r.time("t_cmd", "35ns", "bus time of the command and address cycles of one operation");
  r.rate("bus_rate", "800MT/s", "ONFI data transfer rate per bus lane");
  r.integer("bus_width", 8, "ONFI bus width in bits").range(8, 16);
  r.rule([](const ScopedConfig& c) {
    uint64_t page = c.get_size("page_size"), block = c.get_size("block_size");
    if (block % page != 0)
      c.fail({"block_size", "page_size"}, "a block must be a whole number of pages");
    if (c.get_int("bus_width") % 8 != 0) c.fail("bus_width", "must be 8 or 16");
    uint64_t bits = static_cast<uint64_t>(c.get_int("bits_per_cell"));
    if ((block / page) % bits != 0)
      c.fail({"bits_per_cell", "block_size", "page_size"},
             fmt::format("a block's {} pages must fill whole word lines: make them a multiple of {}", block / page,
                         bits));
    for (const char* op : {"t_read", "t_prog"}) {
      check_page_time(c, std::string(op) + "_csb", PageType::CSB);
      check_page_time(c, std::string(op) + "_msb", PageType::MSB);
    }
  });
}

void FlashArray::apply_cell(Config& cfg, const std::string& scope) {
  std::string name = cfg.get_string(scoped_key(scope, "cell"));
  for (const auto& [n, text] : embedded_cells())
    if (n == name) return apply_cell_text(cfg, name, text, scope);
  std::string known;
  for (const auto& n : cell_names()) known += " " + n;
  cfg.fail(scoped_key(scope, "cell"), "no such cell (known:" + known + ")");
}

void FlashArray::apply_cell_text(Config& cfg, const std::string& name, const std::string& yaml,
                                 const std::string& scope) {
  // Values name the key that chose the cell, so an error about one leads
  // back to what the user set.
  const std::string origin = fmt::format("cell {} from {}", name, scoped_key(scope, "cell"));
  for (const auto& e : Config::parse_yaml(yaml, "cell " + name)) {
    auto* k = std::find_if(std::begin(kCellKeys), std::end(kCellKeys),
                           [&](const char* c) { return e.key == scoped_key(kScope, c); });
    if (k == std::end(kCellKeys)) {
      std::string allowed;
      for (const char* c : kCellKeys) allowed += std::string(allowed.empty() ? "" : ", ") + c;
      throw ConfigError(fmt::format("{}: {} is not a cell parameter (a cell sets {}. {})", e.where,
                                    vp::quoted(e.key), kScope, allowed));
    }
    // A cell file names the keys as on the platforms (ssd.flash.*); they
    // go to the array's own scope.
    std::string key = scoped_key(scope, *k);
    if (!cfg.is_set(key)) cfg.set(key, e.value, origin);
  }
}

FlashGeometry FlashArray::geometry_from(const ScopedConfig& c) {
  FlashGeometry g;
  g.channels = static_cast<uint32_t>(c.get_int("channels"));
  g.packages_per_channel = static_cast<uint32_t>(c.get_int("packages_per_channel"));
  g.dies_per_package = static_cast<uint32_t>(c.get_int("dies_per_package"));
  g.planes_per_die = static_cast<uint32_t>(c.get_int("planes_per_die"));
  g.blocks_per_plane = static_cast<uint32_t>(c.get_int("blocks_per_plane"));
  g.page_size = static_cast<uint32_t>(c.get_size("page_size"));
  g.pages_per_block = static_cast<uint32_t>(c.get_size("block_size") / g.page_size);
  g.oob_size = static_cast<uint32_t>(c.get_size("oob_size"));
  g.bits_per_cell = static_cast<uint32_t>(c.get_int("bits_per_cell"));
  g.endurance = static_cast<uint32_t>(c.get_int("endurance"));
  return g;
}

FlashTiming FlashArray::timing_from(const ScopedConfig& c) {
  FlashTiming t;
  // Indexed by PageType. A page type the cell lacks gets the LSB time, so
  // the table holds no zero a careless reader could take for a real time.
  const char* suffix[3] = {"", "_csb", "_msb"};
  for (int i = 0; i < 3; ++i) {
    Tick r = c.get_time(std::string("t_read") + suffix[i]);
    Tick p = c.get_time(std::string("t_prog") + suffix[i]);
    t.t_read[i] = r ? r : t.t_read[0];
    t.t_prog[i] = p ? p : t.t_prog[0];
  }
  t.t_erase = c.get_time("t_erase");
  t.t_cmd = c.get_time("t_cmd");
  t.bus_bytes_per_s = c.get_rate("bus_rate") * static_cast<double>(c.get_int("bus_width")) / 8.0;
  t.cache_read = c.get_bool("cache_read");
  t.t_suspend = c.get_time("t_suspend");
  t.t_resume = c.get_time("t_resume");
  return t;
}

FlashScheduler::Options FlashArray::scheduler_from(const ScopedConfig& c) {
  FlashScheduler::Options o;
  o.policy = c.is("scheduler", "fifo") ? FlashScheduler::Policy::Fifo
                                                          : FlashScheduler::Policy::ReadFirst;
  o.write_starvation = c.get_time("write_starvation");
  o.reads_per_starved_program = static_cast<uint32_t>(c.get_int("reads_per_starved_program"));
  o.multiplane = c.get_bool("multiplane");
  return o;
}

FlashArray::FlashArray(sc_core::sc_module_name name, Services& svc, const std::string& scope, uint32_t spare_units)
    : sc_module(name),
      target("target"),
      geo_(geometry_from(ScopedConfig(svc.cfg, scope))),
      tim_(timing_from(ScopedConfig(svc.cfg, scope))),
      eq_("eq"),
      store_(geo_.page_size / spare_units, geo_.pages_per_block * spare_units, geo_.total_blocks()),
      ctr_(StatGroup(svc.stats, scope)) {
  StatGroup(svc.stats, scope).section("flash", "die and channel utilisation, starved program picks", [this] { return summary(); });
  target.bind(*this);
  ScopedConfig c(svc.cfg, scope);
  auto sched = scheduler_from(c);
  bool suspend = c.get_bool("suspend");
  for (uint32_t ch = 0; ch < geo_.channels; ++ch)
    channels_.push_back(std::make_unique<FlashChannel>(ch, geo_, tim_, sched, suspend, eq_, store_, ctr_,
                                                       StatGroup(svc.stats, scope), svc.waves));
}

void FlashArray::power_loss() {
  for (auto& c : channels_) c->power_loss();
}

double FlashArray::die_utilisation(uint32_t channel, uint32_t die) const {
  Tick now = now_ps();
  return now ? double(die_busy(channel, die)) / double(now) : 0.0;
}

double FlashArray::channel_utilisation(uint32_t channel) const {
  Tick now = now_ps();
  return now ? double(channel_busy(channel)) / double(now) : 0.0;
}

FlashArray::EraseCounts FlashArray::erase_counts() const {
  EraseCounts e;
  if (store_.blocks() == 0) return e;
  uint64_t sum = 0;
  e.min = UINT32_MAX;
  store_.for_each_erase_count([&](uint64_t, uint64_t n, uint32_t count) {
    e.min = std::min(e.min, count);
    e.max = std::max(e.max, count);
    sum += n * count;
  });
  e.mean = double(sum) / double(store_.blocks());
  return e;
}

nlohmann::json FlashArray::summary() const {
  double die_sum = 0, die_max = 0, ch_sum = 0, ch_max = 0;
  for (uint32_t c = 0; c < geo_.channels; ++c) {
    double u = channel_utilisation(c);
    ch_sum += u;
    ch_max = std::max(ch_max, u);
    for (uint32_t d = 0; d < geo_.dies_per_channel(); ++d) {
      double v = die_utilisation(c, d);
      die_sum += v;
      die_max = std::max(die_max, v);
    }
  }
  return {{"die_utilisation", {{"mean", die_sum / geo_.total_dies()}, {"max", die_max}}},
          {"channel_utilisation", {{"mean", ch_sum / geo_.channels}, {"max", ch_max}}},
          {"starved_program_picks", ctr_.starved_program_picks.value}};
}

}  // namespace vp::flash
