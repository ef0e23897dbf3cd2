// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/SsdDram.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

namespace vp::ssd {

void SsdDram::declare_params(const ParamScope& r) {
  r.size("size", "1.5GiB",
         "capacity of the SSD's internal DRAM (FlashShare OSDI'18 Table 2: the Z-SSD's 1.5 GB DRAM cache)")
      .at_least(1);
  r.integer("bus_width", 32, "data bus width in bits (an LPDDR4 x32 channel; FlashShare gives none)")
      .range(8, 1024);
  r.rate("data_rate", "3200MT/s", "transfers per second on the data bus (LPDDR4-3200; FlashShare gives none)")
      .at_least(1e6);
  r.integer("banks", 8, "banks, each with one open row (LPDDR4: 8 per channel)").range(1, 1024);
  r.size("row_size", "2KiB", "bytes of one row (page) of a bank; rows are interleaved across banks "
                                      "(LPDDR4 x16 page size)")
      .range(16, 1 << 20);
  r.time("t_rcd", "18ns", "activate to read/write, paid when a row is opened (LPDDR4 tRCD)");
  r.time("t_cl", "17.5ns", "read/write command to data, paid by every access (LPDDR4-3200 RL 28 at 1.6 GHz)");
  r.time("t_rp", "18ns", "precharge, paid when another row of the bank is open (LPDDR4 tRPpb)");
  r.real("refresh_overhead", 0.072,
         "fraction of time lost to refresh, folded into every access by stretching its transfer by 1/(1-x) "
         "(LPDDR4 8 Gb: tRFCab 280 ns every tREFI 3.904 us)")
      .range(0, 0.9);
  r.rule([](const ScopedConfig& c) {
    if (c.get_int("bus_width") % 8 != 0)
      c.fail("bus_width", "must be a whole number of bytes (a multiple of 8 bits)");
  });
}

SsdDram::SsdDram(sc_core::sc_module_name name, Services& svc, const std::string& scope)
    : sc_module(name),
      target("target"),
      eq_("eq"),
      cfg_(svc.cfg, scope),
      stats_(svc.stats, scope),
      size_(cfg_.get_size("size")),
      row_size_(cfg_.get_size("row_size")),
      bus_bytes_(static_cast<uint32_t>(cfg_.get_int("bus_width") / 8)),
      banks_(static_cast<uint32_t>(cfg_.get_int("banks"))),
      data_rate_(cfg_.get_rate("data_rate")),
      refresh_(cfg_.get_real("refresh_overhead")),
      t_rcd_(cfg_.get_time("t_rcd")),
      t_cl_(cfg_.get_time("t_cl")),
      t_rp_(cfg_.get_time("t_rp")),
      open_row_(banks_, kClosed),
      reads_(stats_.counter("reads", "accesses", "reads of the SSD DRAM")),
      writes_(stats_.counter("writes", "accesses", "writes to the SSD DRAM")),
      read_bytes_(stats_.counter("read_bytes", "bytes", "bytes read from the SSD DRAM")),
      write_bytes_(stats_.counter("write_bytes", "bytes", "bytes written to the SSD DRAM")),
      row_hits_(stats_.counter("row_hits", "rows", "row visits that found their row open")),
      row_misses_(stats_.counter("row_misses", "rows",
                                    "row visits that had to open their row (bank closed or another row open)")),
      busy_ps_(stats_.counter("busy_ps", "ps", "time the SSD DRAM bus was busy")) {
  stats_.section("dram", "the SSD DRAM: utilisation, row hits, reserved regions", [this] { return summary(now_ps()); });
  target.bind(*this);
  busy_.attach(svc.waves, Waves::signal_name(scope, "busy"), Waves::group_name(scope));
}

uint64_t SsdDram::reserve(uint64_t bytes, const std::string& what, const std::vector<std::string>& keys) {
  if (bytes > size_ - next_) {
    std::vector<std::string> all = keys;
    all.push_back(cfg_.key("size"));
    cfg_.config().fail(all, fmt::format("no room in the SSD DRAM for {} ({} = {} bytes); {} bytes are left of {} (already "
                               "reserved: {} bytes)",
                               what, format_size(bytes), bytes, size_ - next_, size_, next_));
  }
  uint64_t base = next_;
  next_ += bytes;
  regions_.emplace_back(what, bytes);
  return base;
}

Tick SsdDram::transfer_time(uint64_t bytes) const {
  double ps = double(bytes) / (double(bus_bytes_) * data_rate_) * 1e12 / (1.0 - refresh_);
  return static_cast<Tick>(ps + 0.5);
}

Tick SsdDram::access(uint64_t addr, uint64_t bytes, bool write, Tick now) {
  if (bytes == 0) return now;
  if (addr >= size_ || bytes > size_ - addr)
    throw std::logic_error(fmt::format("SSD DRAM access of {} bytes at {} beyond its {} bytes", bytes, addr, size_));
  // The busy time is worked out first: the rows touched and their state do
  // not depend on when the access starts.
  Tick busy = 0;
  for (uint64_t a = addr, end = addr + bytes; a < end;) {
    uint64_t row = a / row_size_, in_row = std::min(end, (row + 1) * row_size_) - a;
    uint64_t& open = open_row_[row % banks_];
    uint64_t bank_row = row / banks_;
    if (open == bank_row) {
      busy += t_cl_;
      ++row_hits_;
    } else {
      busy += (open == kClosed ? 0 : t_rp_) + t_rcd_ + t_cl_;
      open = bank_row;
      ++row_misses_;
    }
    busy += transfer_time(in_row);
    a += in_row;
  }
  Tick end = bus_.book(now, busy);
  busy_ps_ += busy;
  busy_.interval(eq_, end - busy, end);
  ++(write ? writes_ : reads_);
  (write ? write_bytes_ : read_bytes_) += bytes;
  return end;
}

nlohmann::json SsdDram::summary(Tick elapsed) const {
  nlohmann::json regions = nlohmann::json::object();
  for (const auto& [what, bytes] : regions_) regions[what] = bytes;
  uint64_t visits = row_hits_.value + row_misses_.value;
  return {{"size_bytes", size_},
          {"reserved_bytes", next_},
          {"regions", regions},
          {"reads", reads_.value},
          {"writes", writes_.value},
          {"read_bytes", read_bytes_.value},
          {"write_bytes", write_bytes_.value},
          {"row_hit_rate", visits ? double(row_hits_.value) / double(visits) : 0.0},
          {"busy_ps", bus_.busy_total()},
          {"utilisation", elapsed ? double(bus_.busy_total()) / double(elapsed) : 0.0}};
}

}  // namespace vp::ssd
