// SPDX-License-Identifier: BSD-3-Clause
#include "vp/platform/ServerRun.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <tuple>
#include <type_traits>
#include <unistd.h>

#include "platforms/drive/DriveTop.hpp"
#include "vp/platform/DriveList.hpp"
#include "vp/platform/PlatformParams.hpp"
#include "vp/platform/Presets.hpp"
#include "vp/platform/RunTraces.hpp"
#include "vp/platform/RunWatchdog.hpp"
#include "vp/platform/Summary.hpp"
#include "platforms/server/ServerTop.hpp"
#include "vp/core/BuildInfo.hpp"
#include "vp/core/InputFile.hpp"
#include "vp/core/AtomicFile.hpp"
#include "vp/core/Quote.hpp"
#include "vp/core/RequestLog.hpp"
#include "vp/core/StagePath.hpp"
#include "vp/core/SimControl.hpp"
#include "vp/host/HostProfile.hpp"
#include "vp/host/workload/FioJsonReport.hpp"
#include "vp/host/workload/FioLogWriter.hpp"

namespace vp::platform {

namespace fs = std::filesystem;

const ParamRegistry& server_params() { return server_params({kTemplateDrive}); }

const ParamRegistry& drive_params() {
  static const ParamRegistry reg = [] {
    ParamRegistry r;
    DriveTop::declare_params(r);
    return r;
  }();
  return reg;
}

const ParamRegistry& qemu_params(const std::vector<std::string>& drives) {
  static std::map<std::vector<std::string>, std::unique_ptr<ParamRegistry>> regs;
  auto& reg = regs[drives];
  if (!reg) {
    reg = std::make_unique<ParamRegistry>();
    declare_run_params(*reg, false);
    declare_drives(*reg, drives);
    declare_accelerator_params(*reg);
    // The guest would see its drive vanish under it: a power loss is
    // vp-server's and vp-drive's (with their check of what survived).
    reg->rule([drives](const Config& c) {
      for (const auto& d : drives)
        if (c.get_time(d + ".power_loss_at") != 0)
          c.fail(d + ".power_loss_at", "vp-qemu does not simulate a power loss; vp-server and vp-drive do");
    });
  }
  return *reg;
}

const ParamRegistry& platform_params(Platform p) {
  switch (p) {
    case Platform::Drive: return drive_params();
    case Platform::Qemu: return qemu_params({kTemplateDrive});
    case Platform::Server: break;
  }
  return server_params();
}

const ParamRegistry& server_params(const std::vector<std::string>& drives) {
  // One registry per drive list, kept for the configurations built on it.
  static std::map<std::vector<std::string>, std::unique_ptr<ParamRegistry>> regs;
  auto& reg = regs[drives];
  if (!reg) {
    reg = std::make_unique<ParamRegistry>();
    ServerTop::declare_params(*reg, drives);
  }
  return *reg;
}

std::vector<std::string> preset_names() {
  std::vector<std::string> n;
  for (const auto& [name, _] : embedded_presets()) n.push_back(name);
  return n;
}

std::string preset_text(const std::string& name) {
  for (const auto& [n, text] : embedded_presets())
    if (n == name) return text;
  std::string known;
  for (const auto& n : preset_names()) known += " " + n;
  throw ConfigError(fmt::format("--preset {}: no such preset (known:{})", vp::quoted(name), known));
}

std::string preset_description(const std::string& name) {
  // The leading comment's first line, and the lines after it that continue
  // its sentence (they start in lower case): a description that runs over a
  // line is not cut there, and a title line stays a title.
  std::istringstream in(preset_text(name));
  std::string line, text;
  while (std::getline(in, line)) {
    if (line.rfind("#", 0) != 0) break;
    line.erase(0, line.find_first_not_of("# "));
    if (line.empty()) {
      if (!text.empty()) break;
      continue;
    }
    // Mid-sentence: the line starts in lower case, or the text so far ends
    // on a comma or the like, or inside parentheses.
    const bool continues = std::islower(static_cast<unsigned char>(line[0])) ||
                           std::isdigit(static_cast<unsigned char>(line[0])) ||
                           (!text.empty() && std::string(",;:(-/").find(text.back()) != std::string::npos) ||
                           std::count(text.begin(), text.end(), '(') > std::count(text.begin(), text.end(), ')');
    if (!text.empty() && !continues) break;
    text += (text.empty() ? "" : " ") + line;
  }
  return text;
}

namespace {
bool is_job_option(const std::string& key) { return key.rfind("workload.", 0) == 0 && key != "workload.fio"; }

// A layer that may start from another preset (`base: NAME`): the base's
// values first, then the layer's own. `chain` holds the presets being
// loaded, so a cycle is an error rather than a stack overflow.
using SetFn = std::function<void(const Config::Entry&)>;

void load_layer(const SetFn& set, const std::string& text, const std::string& origin, std::vector<std::string>& chain,
                std::vector<JobSet>& job_sets);

// One base preset of a layer, loaded into `set`.
void load_base(const SetFn& set, const std::string& name, const std::string& where, std::vector<std::string>& chain,
               std::vector<JobSet>& job_sets) {
  if (std::find(chain.begin(), chain.end(), name) != chain.end())
    throw ConfigError(fmt::format("{}: base {} includes itself (through {})", where, vp::quoted(name),
                                  fmt::join(chain, " -> ")));
  std::string base_text;
  try {
    base_text = preset_text(name);
  } catch (const ConfigError& err) {
    throw ConfigError(fmt::format("{}: base: {}", where, err.what()));
  }
  chain.push_back(name);
  load_layer(set, base_text, "preset " + name, chain, job_sets);
  chain.pop_back();
}

// `base: [a, b, ...]`: the bases in order, then the layer. Two bases that
// leave one key at different values conflict (neither is meant to win
// silently); the layer itself may set such a key, which settles it.
void load_bases(const SetFn& set, const Config::Entry& e, const std::vector<Config::Entry>& own,
                std::vector<std::string>& chain, std::vector<JobSet>& job_sets) {
  std::vector<std::string> bases;
  for (size_t b = 0; b <= e.value.size();) {
    size_t c = e.value.find(',', b);
    std::string n = e.value.substr(b, c == std::string::npos ? std::string::npos : c - b);
    n.erase(0, n.find_first_not_of(' '));
    n.erase(n.find_last_not_of(' ') + 1);
    if (!n.empty()) bases.push_back(n);
    if (c == std::string::npos) break;
    b = c + 1;
  }
  if (bases.empty()) throw ConfigError(fmt::format("{}: base: no preset named", e.where));
  struct Final {
    std::string value, where, base;
  };
  std::map<std::string, Final> finals;  // every key's last value from the bases so far
  for (const auto& name : bases) {
    std::vector<Config::Entry> got;
    std::vector<JobSet> js;
    load_base([&](const Config::Entry& x) { got.push_back(x); }, name, e.where, chain, js);
    std::map<std::string, const Config::Entry*> last;
    for (const auto& x : got) last[x.key] = &x;
    for (const auto& j : js) job_sets.push_back(j);
    for (const auto& [key, x] : last) {
      auto it = finals.find(key);
      bool settled = std::any_of(own.begin(), own.end(), [&](const Config::Entry& o) { return o.key == key; });
      if (it != finals.end() && it->second.value != x->value && !settled)
        throw ConfigError(fmt::format("{}: bases {} and {} conflict on {}: {} ({}) against {} ({}); set it in this "
                                      "file to choose",
                                      e.where, vp::quoted(it->second.base), vp::quoted(name), vp::quoted(key),
                                      vp::quoted(it->second.value), it->second.where, vp::quoted(x->value), x->where));
      finals[key] = {x->value, x->where, name};
    }
    for (const auto& x : got) set(x);
  }
}

void load_layer(const SetFn& set, const std::string& text, const std::string& origin, std::vector<std::string>& chain,
                std::vector<JobSet>& job_sets) {
  auto entries = Config::parse_yaml(text, origin);
  for (const auto& e : entries)
    if (e.key == "base") {
      if (e.list)
        load_bases(set, e, entries, chain, job_sets);
      else
        load_base(set, e.value, e.where, chain, job_sets);
    }
  for (const auto& e : entries)
    if (e.key == "workload.fio") job_sets.clear();  // a new workload: the base's job options were for its jobs
  for (const auto& e : entries)
    if (is_job_option(e.key))
      job_sets.push_back({e.key, e.value, e.where + ": " + e.key});
    else if (e.key != "base")
      set(e);
}

SetFn into(Config& cfg) {
  return [&cfg](const Config::Entry& e) { cfg.set(e.key, e.value, e.where, e.list); };
}

// `--preset a,b`: the presets stacked as `base: [a, b]` would stack them.
std::vector<JobSet> load_preset(const SetFn& set, const std::string& name) {
  std::vector<JobSet> job_sets;
  if (name.find(',') != std::string::npos) {
    std::vector<std::string> chain;
    load_bases(set, Config::Entry{"base", name, "--preset " + vp::quoted(name), true}, {}, chain, job_sets);
    return job_sets;
  }
  if (name.find("/parts/") != std::string::npos)  // a fragment alone has no drive or workload of its own
    throw ConfigError(fmt::format("--preset {}: a fragment, holding only a technique's keys: stack it on a drive and "
                                  "workload, --preset zssd,{} (or base: [zssd, {}] in a file)",
                                  vp::quoted(name), name, name));
  std::vector<std::string> chain{name};
  load_layer(set, preset_text(name), "preset " + name, chain, job_sets);
  return job_sets;
}

std::vector<JobSet> load_config_file(const SetFn& set, const std::string& path) {
  std::string text;
  try {
    text = read_input_file(path, "configuration file");
  } catch (const InputError& e) {
    throw ConfigError(e.what());
  }
  std::vector<std::string> chain;
  std::vector<JobSet> job_sets;
  load_layer(set, text, vp::printable(path), chain, job_sets);
  return job_sets;
}

// The platform's drives, as the layers and --set give platform.drives (the
// last one wins), read before the parameters that depend on them are declared.
std::vector<std::string> drive_list(const RunOptions& opt) {
  std::string value = kTemplateDrive, origin = "default";
  SetFn note = [&](const Config::Entry& e) {
    if (e.key == kDrivesKey) value = e.value, origin = e.where;
  };
  if (!opt.config_file.empty())
    load_config_file(note, opt.config_file);
  else
    load_preset(note, opt.preset.empty() ? kDefaultPreset : opt.preset);
  for (const auto& [k, v] : opt.sets)
    if (k == kDrivesKey) value = v, origin = "--set";
  return parse_drives(value, origin);
}
}  // namespace

std::vector<JobSet> load_preset(Config& cfg, const std::string& name) { return load_preset(into(cfg), name); }
std::vector<JobSet> load_config_file(Config& cfg, const std::string& path) {
  return load_config_file(into(cfg), path);
}

bool add_sets(const std::vector<std::string>& sets, RunOptions& opt, const char* program) {
  for (const auto& s : sets) {
    auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0) {
      fmt::print(stderr, "{}: --set {}: expected key=value\n", program, vp::quoted(s));
      return false;
    }
    opt.sets.emplace_back(s.substr(0, eq), s.substr(eq + 1));
  }
  return true;
}

void set_job_options(std::vector<host::FioJob>& jobs, const std::vector<JobSet>& sets) {
  for (const auto& [key, value, origin] : sets) {
    // workload.<job>.<option>: a job's name may hold dots, an option's does not.
    const std::string rest = key.substr(std::string("workload.").size());
    const size_t dot = rest.rfind('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == rest.size())
      throw ConfigError(fmt::format("{}: expected workload.<job>.<option> (a job's section name, or * for every "
                                    "job, and a fio option)", origin));
    const std::string job = rest.substr(0, dot), option = rest.substr(dot + 1);
    bool found = false;
    for (auto& j : jobs) {
      if (job != "*" && j.name != job) continue;
      found = true;
      try {
        host::set_option(j, option, value, origin);
      } catch (const host::FioError& e) {
        throw ConfigError(e.what());
      }
    }
    if (!found) {
      std::string names;
      for (const auto& j : jobs) names += (names.empty() ? "" : ", ") + vp::quoted(j.name);
      throw ConfigError(fmt::format("{}: the workload has no job {} (its jobs: {})", origin, vp::quoted(job), names));
    }
  }
}

Config build_config(const RunOptions& opt) {
  if (!opt.config_file.empty() && !opt.preset.empty())
    throw ConfigError("--preset and --config are exclusive: give one of them");
  const std::vector<std::string> drives = drive_list(opt);
  const bool drive = opt.platform == Platform::Drive, qemu = opt.platform == Platform::Qemu;
  if (drive && drives != std::vector<std::string>{kTemplateDrive})
    throw ConfigError(fmt::format("{}: vp-drive holds one drive, ssd; several drives run on vp-server", kDrivesKey));
  const ParamRegistry& reg = drive ? drive_params() : qemu ? qemu_params(drives) : server_params(drives);
  Config cfg(reg);
  // vp-drive and vp-qemu: a preset's keys for vp-server's parts they lack
  // are left out; the same keys from the user are refused, naming the part.
  auto lacks = [&](const std::string& key) { return !reg.find(key) && server_params(drives).find(key); };
  auto refuse = [&](const std::string& where, const std::string& key) {
    throw ConfigError(
        drive ? fmt::format("{}: {} is a parameter of vp-server's host (its cores, scheduler, blk-mq, page cache, md, "
                            "accelerator), which vp-drive does not have: its host is the NVMe queues alone "
                            "(vp-drive --list-params lists its own)",
                            where, vp::quoted(key))
              : fmt::format("{}: {} is a parameter of vp-server's modeled host or its jobs, which vp-qemu does not "
                            "have: the guest in QEMU is the host (vp-qemu --list-params lists its own)",
                            where, vp::quoted(key)));
  };
  const SetFn set = [&](const Config::Entry& e) {
    if ((drive || qemu) && lacks(e.key)) {
      if (e.where.rfind("preset ", 0) == 0) return;
      refuse(e.where, e.key);
    }
    cfg.set(e.key, e.value, e.where, e.list);
  };
  // The preset's (or file's) own job options apply to its workload; --job
  // or --set workload.fio replace that workload and drop them.
  std::vector<JobSet> job_sets = !opt.config_file.empty()
                                     ? load_config_file(set, opt.config_file)
                                     : load_preset(set, opt.preset.empty() ? kDefaultPreset : opt.preset);
  for (const auto& [k, v] : opt.sets)
    if (k == "workload.fio") job_sets.clear();
  if (!opt.job_files.empty()) job_sets.clear();
  for (const auto& [k, v] : opt.sets)
    if (is_job_option(k) && qemu)
      refuse("--set", k);
    else if (is_job_option(k))
      job_sets.push_back({k, v, "--set " + vp::printable(k)});
    else
      set({k, v, "--set"});
  if (qemu) {  // no jobs: the guest runs its own
    inherit_drive_keys(cfg, reg, drives);
    if (std::find(drives.begin(), drives.end(), kTemplateDrive) == drives.end())
      flash::FlashArray::apply_cell(cfg, std::string(kTemplateDrive) + ".flash");
    for (const auto& d : drives) flash::FlashArray::apply_cell(cfg, d + ".flash");
    if (!opt.seed.empty()) cfg.set("sim.seed", opt.seed, "--seed");
    cfg.validate();
    for (const auto& d : drives) ssd::SsdImage::check(ScopedConfig(cfg, d), ssd::Drive::capacity_bytes(cfg, d));
    return cfg;
  }
  std::vector<host::FioJob> file_jobs;  // as read, so checks name their files and lines
  if (!opt.job_files.empty()) {
    // Re-serialise every job so each file's [global] applies to its own jobs only.
    std::string text;
    for (const auto& f : opt.job_files) {
      try {
        for (auto& j : host::parse_fio_file(f)) {
          text += j.to_fio() + "\n";
          file_jobs.push_back(std::move(j));
        }
      } catch (const host::FioError& e) {
        throw ConfigError(e.what());
      }
    }
    if (file_jobs.empty()) {  // only [global] sections, or nothing: name the files, not workload.fio
      std::string files;
      for (const auto& f : opt.job_files) files += (files.empty() ? "" : ", ") + vp::printable(f);
      throw ConfigError(fmt::format("--job {}: no job defined (add a [name] section after [global])", files));
    }
    cfg.set("workload.fio", text, "--job");
  }
  if (!job_sets.empty()) {
    if (file_jobs.empty()) file_jobs = host::Workload::jobs_from(cfg);
    set_job_options(file_jobs, job_sets);
    std::string text;
    for (const auto& j : file_jobs) text += j.to_fio() + "\n";
    cfg.set("workload.fio", text, cfg.origin("workload.fio") + " with --set workload.<job>.<option>");
  }
  if (!opt.seed.empty()) cfg.set("sim.seed", opt.seed, "--seed");
  inherit_drive_keys(cfg, reg, drives);
  if (std::find(drives.begin(), drives.end(), kTemplateDrive) == drives.end())
    flash::FlashArray::apply_cell(cfg, std::string(kTemplateDrive) + ".flash");
  for (const auto& d : drives) flash::FlashArray::apply_cell(cfg, d + ".flash");
  if (!drive) host::HostProfile::apply(cfg);
  cfg.validate();
  const std::vector<host::FioJob> jobs = file_jobs.empty() ? host::Workload::jobs_from(cfg) : file_jobs;
  for (const auto& note : opt.platform == Platform::Drive ? DriveTop::check_workload(jobs, cfg)
                                                          : ServerTop::check_workload(jobs, cfg))
    fmt::print(stderr, "note: {}\n", note);
  for (const auto& d : drives) ssd::SsdImage::check(ScopedConfig(cfg, d), ssd::Drive::capacity_bytes(cfg, d));
  return cfg;
}

namespace {

// A byte count as a person reads it: exact when it is a whole number of a
// binary unit (4KiB), else to one decimal (8.2MiB), as `ls -h` does.
std::string human_bytes(uint64_t b) {
  static const std::pair<const char*, double> units[] = {
      {"TiB", 1099511627776.0}, {"GiB", 1073741824.0}, {"MiB", 1048576.0}, {"KiB", 1024.0}};
  for (auto [text, scale] : units) {
    double v = double(b) / scale;
    if (v < 1) continue;
    return v == std::floor(v) ? fmt::format("{:.0f}{}", v, text) : fmt::format("{:.1f}{}", v, text);
  }
  return fmt::format("{}B", b);
}

// One job's line, its online requests and its latency per direction with
// the stages in path order.
void print_job(const nlohmann::ordered_json& j) {
  const std::string what = j.contains("read_iolog") ? "replay" : j["rw"].get<std::string>();
  fmt::print("job {:<14} {:>9} QD{:<4} bs {:<7} {:>9} I/Os {:>10.0f} IOPS {:>8.1f} MB/s", j["name"].get<std::string>(),
             what, j["iodepth"].get<unsigned>(), human_bytes(j["bs"].get<uint64_t>()), j["ios"].get<uint64_t>(),
             j["iops"].get<double>(), j["bandwidth_MBps"].get<double>());
  if (j["errors"].get<uint64_t>()) fmt::print("  {} ERRORS", j["errors"].get<uint64_t>());
  fmt::print("\n");
  if (j.contains("online") && j["online"]["requests"].get<uint64_t>()) {
    const auto& o = j["online"];
    const auto& l = o["response_us"];
    fmt::print("  {} requests, {} worker{}, response us: mean {:8.2f} p95 {:8.2f} p99 {:8.2f} p99.9 {:8.2f}\n",
               o["requests"].get<uint64_t>(), o["workers"].get<uint64_t>(),
               o["workers"].get<uint64_t>() > 1 ? "s" : "", l["mean"].get<double>(), l["p95"].get<double>(),
               l["p99"].get<double>(), l["p999"].get<double>());
  }
  for (const char* op : {"read", "write", "trim"}) {
    if (!j["latency_us"].contains(op)) continue;
    const auto& l = j["latency_us"][op];
    if (l["count"].get<uint64_t>() == 0) continue;
    fmt::print("  {:<5} lat us: mean {:8.2f} p50 {:8.2f} p99 {:8.2f} p99.9 {:8.2f} max {:8.2f}\n", op,
               l["mean"].get<double>(), l["p50"].get<double>(), l["p99"].get<double>(), l["p999"].get<double>(),
               l["max"].get<double>());
    std::string b;  // in the direction's path order
    const auto& stages = j["breakdown_us"].contains(op) ? j["breakdown_us"][op] : nlohmann::ordered_json::object();
    for (Stage st : stage_path(std::string(op) != "read")) {  // a trim passes a write's stages
      const char* stage = stage_name(st);
      double v = stages.value(stage, 0.0);
      if (v > 0.0005) b += fmt::format(" {} {:.2f}", stage, v);
    }
    fmt::print("        stages us:{}\n", b);
  }
}

// fio's "Run status group" line for each reporting group of several jobs:
// the group's I/Os and bytes over its longest job's runtime, as fio
// aggregates them (jobs that run side by side add up).
void print_group_totals(const nlohmann::ordered_json& jobs) {
  struct Group {
    unsigned jobs = 0;
    uint64_t ios = 0;
    double mb = 0, longest_s = 0;
  };
  std::map<unsigned, Group> groups;
  for (const auto& j : jobs) {
    Group& g = groups[j.value("groupid", 0u)];
    double secs = j["runtime_s"].get<double>();
    ++g.jobs;
    g.ios += j["ios"].get<uint64_t>();
    g.mb += j["bandwidth_MBps"].get<double>() * secs;
    g.longest_s = std::max(g.longest_s, secs);
  }
  for (const auto& [id, g] : groups) {
    if (g.jobs < 2) continue;
    double s = g.longest_s;
    fmt::print("group {} total: {} jobs {:>9} I/Os {:>10.0f} IOPS {:>8.1f} MB/s over {:.6f} s\n", id, g.jobs, g.ios,
               s > 0 ? double(g.ios) / s : 0.0, s > 0 ? g.mb / s : 0.0, s);
  }
}

// What each drive and its link did: flash, PCIe, DRAM, firmware and FTL
// (a line per component, each named after the drive when there are several).
void print_drive(const nlohmann::ordered_json& e, const std::string& who) {
  if (e.contains("device")) {
    const auto& d = e["device"];
    fmt::print("{}: flash reads {} programs {} erases {}; PCIe down {} up {}\n", who.empty() ? "device" : who,
               d["flash_reads"].get<uint64_t>(), d["flash_programs"].get<uint64_t>(), d["flash_erases"].get<uint64_t>(),
               human_bytes(d["pcie_bytes_down"].get<uint64_t>()), human_bytes(d["pcie_bytes_up"].get<uint64_t>()));
  }
  const std::string of = who.empty() ? "" : who + " ";
  const auto& p = e["pcie"];
  fmt::print("{}pcie: utilisation down {:.1f}% up {:.1f}%, payload down {:.3f} GB/s up {:.3f} GB/s of {:.3f} GB/s raw\n",
             of, 100 * p["down"]["utilisation"].get<double>(), 100 * p["up"]["utilisation"].get<double>(),
             p["down"]["payload_GBps"].get<double>(), p["up"]["payload_GBps"].get<double>(),
             p["raw_GBps"].get<double>());
  const auto& m = e["dram"];
  fmt::print("{}: utilisation {:.1f}%, row hit rate {:.1f}%, {} of {} reserved\n", who.empty() ? "ssd dram" : of + "dram",
             100 * m["utilisation"].get<double>(), 100 * m["row_hit_rate"].get<double>(),
             human_bytes(m["reserved_bytes"].get<uint64_t>()), human_bytes(m["size_bytes"].get<uint64_t>()));
  const auto& w = e["firmware"];
  std::string busiest;
  double top_util = -1;
  for (const auto& [name, t] : w["threads"].items())
    if (t["utilisation"].get<double>() > top_util) top_util = t["utilisation"].get<double>(), busiest = name;
  fmt::print("{}firmware: {} ({}) on {} cores, utilisation mean {:.1f}% max {:.1f}%, busiest thread {} {:.1f}%\n", of,
             w["organisation"].get<std::string>(), w["dispatch"].get<std::string>(), w["cores"].size(),
             100 * w["mean_core_utilisation"].get<double>(), 100 * w["max_core_utilisation"].get<double>(), busiest,
             100 * top_util);
  const auto& f = e["ftl"];
  // Write amplification is flash programs over host writes: none without writes.
  const double wa = f["write_amplification"].get<double>();
  fmt::print("{}ftl: write amplification {}, GC {} blocks ({} in idle time), {} pages moved, erase count "
             "min/mean/max {}/{:.1f}/{}\n",
             of, wa > 0 ? fmt::format("{:.3f}", wa) : std::string("- (no host writes)"), f["gc_invocations"].get<uint64_t>(),
             f["gc_background"].get<uint64_t>(), f["gc_pages_moved"].get<uint64_t>(),
             f["erase_count"]["min"].get<uint64_t>(), f["erase_count"]["mean"].get<double>(),
             f["erase_count"]["max"].get<uint64_t>());
  if (f.contains("precondition") && f["precondition"].contains("age_model")) {
    const auto& p = f["precondition"];
    const std::string model = p["age_model"].get<std::string>();
    fmt::print("{}ftl: aged by the {} model{}: {} preconditioning writes, {} pages moved by GC{}\n", of, model,
               model == "sampled" ? fmt::format(" ({} planes modelled)", p["sampled_planes"].get<uint64_t>()) : "",
               p["writes"].get<uint64_t>(), p["gc_pages_moved"].get<uint64_t>(),
               p.contains("age_model_why") ? "; " + p["age_model_why"].get<std::string>() : "");
  }
  if (e.contains("image")) {
    const auto& i = e["image"];
    fmt::print("{}image {}: {} pages loaded in {:.3f} s, {} pages saved in {:.3f} s\n", of, i["file"].get<std::string>(),
               i["loaded_pages"].get<uint64_t>(), i["load_wall_s"].get<double>(), i["saved_pages"].get<uint64_t>(),
               i["save_wall_s"].get<double>());
  }
}

void print_power_loss(const nlohmann::ordered_json& p) {
  if (p.contains("plp"))
    fmt::print("power loss at {:.6f} s: hold-up {:.3f} ms, {} buffered pages, {}\n", p["at_s"].get<double>(),
               1e3 * p["plp"]["holdup_s"].get<double>(), p["plp"]["buffered_pages"].get<uint64_t>(),
               p["plp"]["drained"].get<bool>()
                   ? fmt::format("drained in {:.3f} ms", 1e3 * p["plp"]["drain_time_s"].get<double>())
                   : fmt::format("{} pages did not fit and were lost", p["plp"]["lost_pages"].get<uint64_t>()));
  fmt::print("power loss at {:.6f} s: FTL rebuilt from flash, {} acknowledged blocks checked: {} intact, {} "
             "acknowledged, not durable (volatile cache), {} not drained in the hold-up time, {} mismatches\n",
             p["at_s"].get<double>(), p["blocks_checked"].get<uint64_t>(), p["intact"].get<uint64_t>(),
             p["not_durable"].get<uint64_t>(), p["not_drained"].get<uint64_t>(), p["mismatches"].get<uint64_t>());
}

void print_summary(const nlohmann::ordered_json& s) {
  fmt::print("FlashVP {}: {:.6f} s simulated in {:.2f} s wall, {} kernel events\n", s["platform"].get<std::string>(),
             s["sim_time_s"].get<double>(),
             s["wall_time_s"].get<double>(), s["kernel_events"].get<uint64_t>());
  for (const auto& j : s["jobs"]) print_job(j);
  print_group_totals(s["jobs"]);
  const auto& host = s["host"];
  for (const auto& c : host.value("cpu", nlohmann::ordered_json::array()))
    fmt::print("core {}: user {:5.1f}% kernel {:5.1f}% irq {:5.1f}% ctxsw {:5.1f}% poll {:5.1f}% idle {:5.1f}%\n",
               c["core"].get<unsigned>(), c["user_pct"].get<double>(), c["kernel_pct"].get<double>(),
               c["irq_pct"].get<double>(), c["ctxsw_pct"].get<double>(), c["poll_pct"].get<double>(),
               c["idle_pct"].get<double>());
  const auto& drives = s["drives"];
  for (const auto& e : drives)
    print_drive(e, drives.size() > 1 ? e["name"].get<std::string>() : std::string());
  if (s.contains("power_loss") && s["power_loss"].contains("at_s")) print_power_loss(s["power_loss"]);
  if (host.contains("verify"))
    fmt::print("verify: {} blocks checked, {} mismatches\n", host["verify"]["blocks_checked"].get<uint64_t>(),
               host["verify"]["mismatches"].get<uint64_t>());
}

// The drive of platform.drives that loses power in the run (its
// power_loss_at set; at most one), -1 when none does.
template <class Top>
int losing_drive(Top& top) {
  for (size_t k = 0; k < top.drives(); ++k)
    if (top.drive_at(k).power_loss_at()) return static_cast<int>(k);
  return -1;
}

// Drive k's power fails at the current time (Drive::lose_power: its link
// and, for the check, the host go with it; the other drives were running),
// then every block the verify=1 jobs acknowledged on it is read back and
// judged against what NVMe promised the host (VerifyTracker).
template <class Top>
nlohmann::json lose_power(Top& top, unsigned k) {
  host::VerifyTracker* v = top.workload.verify_of(k);
  ssd::Drive& d = top.drive_at(k);
  ssd::Drive::PowerLoss pl = d.lose_power([&] {
    top.link_at(k).link_down();
    if (v) v->freeze();
  });
  nlohmann::json j = std::move(pl.report);
  host::VerifyTracker::PowerLossReport rep;
  if (v) {
    const uint32_t page = d.ftl.page_size();
    rep = v->check_power_loss([&](uint64_t lba, uint8_t* buf) { d.read_lba(lba, buf); },
                              [&](uint64_t lba) { return pl.undrained(lba, d.lba_size(), page); });
  }
  j["drive"] = d.scope();
  j["blocks_checked"] = rep.checked;
  j["intact"] = rep.intact;
  j["not_durable"] = rep.not_durable;
  j["not_drained"] = rep.not_drained;
  j["torn"] = rep.torn;
  j["mismatches"] = rep.mismatches;
  if (rep.mismatches) j["first_bad_lba"] = rep.first_bad;
  return j;
}

}  // namespace

std::unique_ptr<StatRegistry> platform_stats(const Config& cfg, Platform platform) {
  auto stats = std::make_unique<StatRegistry>();
  Waves waves;
  RequestTracker tracker;
  Services svc{cfg, *stats, waves, tracker, static_cast<uint64_t>(cfg.get_int("sim.seed"))};
  if (platform == Platform::Drive)
    DriveTop top("top", svc);
  else
    ServerTop top("top", svc);
  return stats;
}

void write_run_files(const std::string& dir, const Config& cfg, const nlohmann::ordered_json& summary) {
  AtomicFile::write(dir + "/config.yaml", [&](std::ostream& f) {
    f << "# effective configuration; reproduce with --config\n" << cfg.to_yaml();
  });
  // Strings are checked as UTF-8 before the run; a stray byte is still
  // replaced rather than losing the run's results.
  AtomicFile::write(dir + "/summary.json", [&](std::ostream& f) {
    f << summary.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
  });
}

namespace {
using Clock = std::chrono::steady_clock;

// What the drive puts on flash raises what a power loss must keep.
template <class Top>
void watch_persisted(Top& top) {
  const int k = losing_drive(top);
  auto* v = k < 0 ? top.workload.verify() : top.workload.verify_of(static_cast<unsigned>(k));
  if (!v) return;
  // Only a power-loss check needs each block's write history.
  v->keep_history(k >= 0);
  if (k < 0) return;
  ssd::Drive& d = top.drive_at(static_cast<size_t>(k));
  v->set_part_bytes(d.ftl.page_size());
  d.on_persisted([v, lba_size = d.lba_size()](uint64_t byte, const uint8_t* data, uint32_t bytes) {
    v->persisted(byte / lba_size, static_cast<uint32_t>(byte % lba_size), data, bytes);
  });
}

template <class Top>
uint64_t ios_done(Top& top) {
  uint64_t n = 0;
  for (const auto& r : top.workload.runners()) n += r->result().reads + r->result().writes + r->result().trims;
  return n;
}

// Why a run stopped from outside (sim_interrupt) ended, for summary.json.
std::string interrupt_reason(const RunWatchdog& watchdog) {
  const int cause = sim_interrupt_cause();
  if (cause == kWatchdog || watchdog.fired())
    return fmt::format("no simulated progress for {:g} s of wall time (sim.watchdog): stopped at simulated time {}, "
                       "where the model was stuck",
                       watchdog.bound_s(), format_time(now_ps()));
  return fmt::format("interrupted by {} at simulated time {}", cause == SIGINT ? "SIGINT" : cause == SIGTERM ? "SIGTERM"
                                                                : fmt::format("signal {}", cause),
                     format_time(now_ps()));
}

// Runs the simulation in chunks until the jobs end, the power fails, the
// time limit is reached or nothing is left to happen; says in res.aborted
// why it stopped early, and returns the power-loss report (null: none).
template <class Top>
nlohmann::json simulate(Top& top, const Config& cfg, const RunOptions& opt, Clock::time_point wall0,
                        RunResult& res, RunTraces& traces) {
  Tick max_time = cfg.get_time("sim.max_time");
  const int losing = losing_drive(top);
  Tick power_loss_at = losing < 0 ? 0 : top.drive_at(static_cast<size_t>(losing)).power_loss_at();
  nlohmann::json power_loss;
  Tick chunk = 1 * MS;
  auto last_print = wall0;
  RunWatchdog watchdog(double(cfg.get_time("sim.watchdog")) / 1e12, opt.out_dir);
  for (;;) {
    if (sc_core::sc_get_status() == sc_core::SC_STOPPED) break;
    if (sim_interrupted()) {
      res.aborted = interrupt_reason(watchdog);
      if (sim_interrupt_cause() > 0) res.signal = sim_interrupt_cause();
      break;
    }
    if (std::string full = traces.check(); !full.empty()) {
      res.aborted = full;
      break;
    }
    // With a power loss to come, the drive idles from the jobs' end until then.
    bool finished = top.workload.finished();
    if (finished && !power_loss_at) break;
    if (!finished && sc_core::sc_time_stamp().value() > 0 && !sc_core::sc_pending_activity()) {
      res.aborted = "simulation stalled: no event pending while jobs are unfinished";
      break;
    }
    Tick step = chunk;
    // Nothing due for longer than a chunk (long latencies): straight to
    // the next event rather than through empty chunks.
    if (sc_core::sc_time next = sc_core::sc_time_to_pending_activity(); next != sc_core::sc_max_time())
      step = std::max<Tick>(step, next.value());
    if (power_loss_at) {
      if (now_ps() >= power_loss_at) {
        power_loss = lose_power(top, static_cast<unsigned>(losing));
        if (power_loss["mismatches"].get<uint64_t>())
          res.aborted = fmt::format("power loss at {}: {} durable blocks did not read back after recovery (first: LBA {})",
                                    format_time(power_loss_at), power_loss["mismatches"].get<uint64_t>(),
                                    power_loss["first_bad_lba"].get<uint64_t>());
        break;
      }
      step = finished ? power_loss_at - now_ps() : std::min(step, power_loss_at - now_ps());
    }
    if (max_time) {
      Tick now = now_ps();
      if (now >= max_time) {
        res.aborted = fmt::format("sim.max_time = {} reached before the {}", format_time(max_time),
                                  finished ? fmt::format("power loss ({}.power_loss_at)",
                                                         top.drive_at(static_cast<size_t>(losing)).scope())
                                           : std::string("jobs finished"));
        break;
      }
      step = std::min(step, max_time - now);
    }
    auto chunk_start = Clock::now();
    // The first chunk elaborates too (preconditioning, ageing), which takes
    // the wall time it needs; the watchdog looks at simulated time only.
    const bool watched = sc_core::sc_get_status() != sc_core::SC_ELABORATION;
    if (watched) watchdog.chunk_started();
    Calendar::get().run_for(step);
    if (watched) watchdog.chunk_ended();
    // A chunk that takes long in wall time is cut smaller, so the progress
    // line keeps coming; where the simulation pauses changes no result.
    double took = std::chrono::duration<double>(Clock::now() - chunk_start).count();
    if (took > 0.5 && chunk > 1 * US)
      chunk /= 10;
    else if (took < 0.05 && chunk < 1 * MS)
      chunk = std::min<Tick>(chunk * 2, 1 * MS);
    if (opt.progress) {
      auto t = Clock::now();
      double since_start = std::chrono::duration<double>(t - wall0).count();
      if (since_start > 3.0 && std::chrono::duration<double>(t - last_print).count() > 2.0) {
        uint64_t n = ios_done(top);
        fmt::print(stderr, "[vp-{}] simulated {:.3f} ms, {} I/Os done, {:.0f} I/Os per wall second\n",
                   opt.platform == Platform::Drive ? "drive" : "server", double(now_ps()) / 1e9, n, double(n) / since_start);
        last_print = t;
      }
    }
  }
  if (!sim_abort_message().empty()) res.aborted = sim_abort_message();
  return power_loss;
}

// summary.json: the run's own fields, then what each component reports of
// itself in its part of the platform (Summary.hpp) and every counter.
template <class Top>
nlohmann::ordered_json run_summary(Top& top, const Config& cfg, const StatRegistry& stats, const RunResult& res,
                           double wall, const nlohmann::json& power_loss) {
  nlohmann::ordered_json s = summary_head(std::is_same_v<Top, DriveTop> ? "drive" : "server", cfg);
  s["wall_time_s"] = wall;
  s["kernel_events"] = top.kernel_events();
  // The kernel's delta cycles, with the instants the calendar ran ahead
  // (each one delta cycle had it not): the same whether or not it ran ahead.
  s["delta_cycles"] = sc_core::sc_delta_count() + Calendar::get().instants_ahead();
  s["completed"] = res.aborted.empty();
  if (!res.aborted.empty()) s["aborted"] = res.aborted;
  uint64_t total = ios_done(top);
  s["total_ios"] = total;
  s["stage_order_violations"] = stage_order_violations();
  s["kernel_events_per_io"] = total ? double(top.kernel_events()) / double(total) : 0.0;
  if (!power_loss.is_null()) s["power_loss"] = power_loss;
  add_statistics(s, stats);
  return s;
}

// responses.csv: one row per response an online server's client received
// (the series behind the summary's response_us, for plots over time).
void write_responses(const fs::path& path, const host::Workload& wl) {
  AtomicFile::write(path.string(), [&](std::ostream& o) {
    o << "job,request,worker,sent_ps,taken_ps,received_ps,response_ps,network_ps,queue_ps,io_ps,compute_ps\n";
    for (const auto& r : wl.runners())
      if (const host::OnlineClient* c = r->client(); c && r->worker() == 0)
        for (const host::OnlineClient::Response& x : c->responses())
          o << r->result().name << ',' << x.request << ',' << x.worker << ',' << x.sent << ',' << x.taken << ','
            << x.received << ',' << x.time() << ',' << 2 * x.net << ',' << x.queued() << ',' << x.io << ','
            << x.compute() << '\n';
  });
}

// config.yaml, summary.json, the cache's epochs, requests.csv (and
// responses.csv with online jobs) and the waves.
template <class Top>
void write_outputs(const fs::path& out, const Config& cfg, const nlohmann::ordered_json& s, Top& top,
                   const RunOptions& opt, RunTraces& traces) {
  if (traces.failed()) {
    if (traces.requests) traces.requests->discard();
    traces.waves().close(false);
  }
  write_run_files(out.string(), cfg, s);
  // The jobs as fio reports them (fio.json) and the fio logs they asked for.
  host::FioJsonReport(top.workload, cfg.get_string("workload.fio"), now_ps()).write((out / "fio.json").string());
  host::FioLogWriter::write(out.string(), top.workload);
  top.drive.cache.write_outputs(out.string(), opt.cache);
  Waves& waves = traces.waves();
  if (RequestLog* reqlog = traces.requests.get(); reqlog && !traces.failed()) {
    reqlog->close();
    bool online = false;
    for (const auto& r : top.workload.runners()) online = online || r->client();
    if (online) write_responses(out / "responses.csv", top.workload);
  }
  if (waves.vcd()) {
    Tick first = 0;
    for (const auto& r : top.workload.runners())
      if (r->result().started && (!first || r->result().started < first)) first = r->result().started;
    waves.set_view_start(first);
    waves.close();
    waves.write_gtkw((out / "waves.gtkw").string(), fs::absolute(out / "waves.vcd").string());
  }
  if (waves.timeline()) waves.close();  // timeline.json
}

template <class Top>
RunResult run_top(const Config& cfg, const RunOptions& opt) {
  auto wall0 = Clock::now();
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  StatRegistry stats;
  Waves waves;
  RequestTracker tracker;
  RunTraces traces(opt.out_dir, waves);
  if (!opt.out_dir.empty()) {
    fs::create_directories(opt.out_dir);
    if (opt.vcd) waves.open((fs::path(opt.out_dir) / "waves").string());
    if (opt.perfetto) waves.open_timeline((fs::path(opt.out_dir) / "timeline.json").string());
    if (opt.requests) traces.requests = std::make_unique<RequestLog>((fs::path(opt.out_dir) / "requests.csv").string());
  }
  Services svc{cfg, stats, waves, tracker, static_cast<uint64_t>(cfg.get_int("sim.seed")), traces.requests.get()};
  Top top("top", svc);
  watch_persisted(top);
  RunResult res;
  nlohmann::json power_loss = simulate(top, cfg, opt, wall0, res, traces);
  // What each drive holds now, also after a power loss or an early stop.
  for (size_t k = 0; k < top.drives(); ++k) top.drive_at(k).image.save();
  double wall = std::chrono::duration<double>(Clock::now() - wall0).count();
  res.summary = run_summary(top, cfg, stats, res, wall, power_loss);
  if (!opt.out_dir.empty()) write_outputs(fs::path(opt.out_dir), cfg, res.summary, top, opt, traces);
  if (opt.print_summary) print_summary(res.summary);
  return res;
}

}  // namespace

RunResult run_platform(const Config& cfg, const RunOptions& opt) {
  return opt.platform == Platform::Drive ? run_top<DriveTop>(cfg, opt) : run_top<ServerTop>(cfg, opt);
}

int systemc_main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}

}  // namespace vp::platform
