// SPDX-License-Identifier: BSD-3-Clause
#include "vp/platform/RunCli.hpp"

#include <algorithm>
#include <boost/program_options.hpp>
#include <csignal>
#include <cstdlib>
#include <fmt/format.h>
#include <iostream>
#include <sstream>
#include <systemc>

#include "vp/platform/OutputFolder.hpp"
#include "vp/platform/ServerRun.hpp"
#include "vp/core/BuildInfo.hpp"
#include "vp/core/Quote.hpp"
#include "vp/core/SimControl.hpp"
#include "vp/host/workload/AppProfile.hpp"
#include "vp/host/workload/FioOptions.hpp"

namespace vp::platform {

namespace po = boost::program_options;

namespace {
extern "C" void on_stop_signal(int sig) { sim_interrupt(sig); }

// SIGINT and SIGTERM end the run at the simulation's next instant, with
// its outputs; a second one (the handler resets) ends the process at once.
// A file-size limit makes a trace's write fail, which the run reports,
// rather than killing it.
void catch_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sa.sa_flags = SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  std::signal(SIGXFSZ, SIG_IGN);
}
}  // namespace

std::string version_text(const std::string& prog) {
  return fmt::format("{} (FlashVP) {}\nsummary.json schema_version {}\nSystemC {}\n", prog, build_revision(),
                     kSummarySchemaVersion, sc_core::sc_release());
}

int run_cli(int argc, char** argv, Platform platform) {
  const std::string prog = platform == Platform::Drive ? "vp-drive" : "vp-server";
  po::options_description desc(prog + " options");
  std::vector<std::string> sets, traces;
  RunOptions opt;
  opt.platform = platform;
  desc.add_options()("help,h", "show this help")
      ("version", "print the build's version (git describe), its summary.json schema_version and SystemC's, and exit")
      ("preset", po::value(&opt.preset), "run a built-in preset (see --list-presets); a,b stacks presets as base: [a, b]")
      ("config", po::value(&opt.config_file), "run the configuration in a YAML file")
      ("set", po::value(&sets), "override one parameter: --set key=value (repeatable)")
      ("job", po::value(&opt.job_files), "replace the workload with the jobs of a fio job file (repeatable)")
      ("seed", po::value<std::string>(), "seed of the run (sim.seed)")
      ("out", po::value(&opt.out_dir), "output folder (default: a new numbered folder under vp-out/)")
      ("overwrite", "let --out replace an earlier run's outputs")
      ("trace", po::value(&traces)->multitoken(), "what to trace: vcd, requests, cache, perfetto (comma separated)")
      ("list-params", "print every parameter with type, default and description")
      ("list-stats", "print every statistic of the configured platform with kind, unit and description")
      ("json", "with --list-params or --list-stats: print JSON")
      ("markdown", "with --list-params or --list-stats: print a markdown table (docs/reference/)")
      ("list-presets", "print the built-in presets")
      ("list-fio-options", "print every fio job option: modelled, accepted (cannot change a result) or refused, and why")
      ("list-apps", "print the FlashShare Table 3 applications a job can name with app=")
      ("print-config", "print the effective configuration and exit (after elaborating it: exit 2 if a run would refuse it)");
  po::variables_map vm;
  try {
    po::parsed_options parsed = po::command_line_parser(argc, argv).options(desc).run();
    // Boost keeps words outside any option and store() drops them: a bare job file would be ignored.
    for (const auto& o : parsed.options)
      if (o.position_key >= 0 && !o.original_tokens.empty()) {
        fmt::print(stderr, "{}: unexpected argument '{}' (every argument belongs to an option; a fio job file goes "
                           "with --job FILE)\n", prog, o.original_tokens.front());
        return 2;
      }
    po::store(parsed, vm);
    po::notify(vm);
  } catch (const po::error& e) {
    fmt::print(stderr, "{}: {}\n{}", prog, e.what(), (std::ostringstream() << desc).str());
    return 2;
  }
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  if (vm.count("version")) {
    std::cout << version_text(prog);
    return 0;
  }
  if (vm.count("json") + vm.count("markdown") > 1 || ((vm.count("json") || vm.count("markdown")) &&
                                                       !vm.count("list-params") && !vm.count("list-stats") &&
                                                       !vm.count("list-fio-options"))) {
    fmt::print(stderr, "{}: --json and --markdown go with one of --list-params, --list-stats, --list-fio-options\n",
               prog);
    return 2;
  }
  if (vm.count("list-params")) {
    const ParamRegistry& p = platform_params(platform);
    std::cout << (vm.count("json") ? p.describe().dump(2) + "\n" : vm.count("markdown") ? p.markdown() : p.list());
    return 0;
  }
  if (vm.count("list-presets")) {
    // The top-level presets, then one group per study folder, headed by its
    // base's description.
    auto names = preset_names();
    auto folder = [](const std::string& n) { return n.rfind('/') == std::string::npos ? "" : n.substr(0, n.rfind('/')); };
    std::stable_sort(names.begin(), names.end(), [&](const auto& a, const auto& b) { return folder(a) < folder(b); });
    // A description longer than a line wraps under its own column.
    auto wrapped = [](const std::string& text, size_t indent) {
      std::string out, line;
      std::istringstream words(text);
      for (std::string w; words >> w;) {
        if (!line.empty() && indent + line.size() + 1 + w.size() > 110) {
          out += line + "\n" + std::string(indent, ' ');
          line.clear();
        }
        line += (line.empty() ? "" : " ") + w;
      }
      return out + line;
    };
    std::string group;
    for (const auto& n : names) {
      const std::string g = folder(n);
      if (g != group) {
        const bool has_base = std::find(names.begin(), names.end(), g + "/base") != names.end();
        const bool parts = g.size() > 6 && g.compare(g.size() - 6, 6, "/parts") == 0;
        fmt::print("\n{}/:{}\n", g,
                   has_base ? " " + wrapped(preset_description(g + "/base"), g.size() + 3)
                   : parts  ? " fragments: a technique's keys alone, to stack on a drive (--preset zssd," + g +
                                 "/NAME, or base: [zssd, " + g + "/NAME])"
                            : "");
        group = g;
      }
      const size_t col = g.empty() ? 27 : 29;
      fmt::print("{}{:<26} {}\n", g.empty() ? "" : "  ", n + (n == kDefaultPreset ? " (default)" : ""),
                 wrapped(preset_description(n), col));
    }
    return 0;
  }
  if (vm.count("list-fio-options")) {
    if (vm.count("markdown")) {
      std::cout << vp::host::fio_options_markdown();
    } else if (vm.count("json")) {
      nlohmann::json all = nlohmann::json::array();
      for (const auto& o : vp::host::fio_options())
        all.push_back({{"name", o.name}, {"aliases", o.aliases}, {"class", vp::host::fio_support_name(o.support)},
                       {"why", o.why}, {"section", o.section}});
      std::cout << all.dump(2) << "\n";
    } else {
      for (const auto& o : vp::host::fio_options())
        fmt::print("{:<28} {:<9} {}\n", o.name, vp::host::fio_support_name(o.support), o.why);
    }
    return 0;
  }
  if (vm.count("list-apps")) {
    std::cout << vp::host::AppProfile::table();
    return 0;
  }
  if (!add_sets(sets, opt, prog.c_str())) return 2;
  for (const auto& t : traces) {
    std::stringstream ss(t);
    for (std::string w; std::getline(ss, w, ',');) {
      if (w == "vcd")
        opt.vcd = true;
      else if (w == "requests")
        opt.requests = true;
      else if (w == "cache")
        opt.cache = true;
      else if (w == "perfetto")
        opt.perfetto = true;
      else if (!w.empty()) {
        fmt::print(stderr, "{}: --trace {}: unknown trace (allowed: vcd, requests, cache, perfetto)\n", prog, vp::quoted(w));
        return 2;
      }
    }
  }
  if (vm.count("seed")) opt.seed = vm["seed"].as<std::string>();
  Config cfg(platform_params(platform));
  try {
    cfg = build_config(opt);
  } catch (const ConfigError& e) {
    fmt::print(stderr, "{}: configuration error: {}\n", prog, e.what());
    return 2;
  }
  if (vm.count("list-stats")) {
    try {
      auto st = platform_stats(cfg, platform);
      std::cout << (vm.count("json") ? st->describe().dump(2) + "\n" : vm.count("markdown") ? st->markdown() : st->list());
    } catch (const std::exception& e) {
      fmt::print(stderr, "{}: configuration error: {}\n", prog, e.what());
      return 2;
    }
    return 0;
  }
  if (vm.count("print-config")) {
    // Elaborated too (a few tens of ms), so a configuration it prints is
    // one a run accepts: rules checked at elaboration (room in the SSD's
    // DRAM, a full platform's checks) give exit 2 here as they would there.
    try {
      platform_stats(cfg, platform);
    } catch (const std::exception& e) {
      fmt::print(stderr, "{}: configuration error: {}\n", prog, e.what());
      return 2;
    }
    std::cout << cfg.to_yaml();
    return 0;
  }
  OutputFolder out;  // locked until the run's outputs are written
  try {
    out = OutputFolder::claim(opt.out_dir, vm.count("overwrite") != 0);
    opt.out_dir = out.path();
  } catch (const ConfigError& e) {
    fmt::print(stderr, "{}: {}\n", prog, e.what());
    return 2;
  }
  opt.progress = true;
  opt.print_summary = true;
  catch_stop_signals();
  try {
    RunResult r = run_platform(cfg, opt);
    fmt::print("outputs in {}/\n", opt.out_dir);
    if (!r.aborted.empty()) {
      fmt::print(stderr, "{}: run stopped early: {}\n", prog, r.aborted);
      return r.signal ? 128 + r.signal : 3;
    }
  } catch (const ConfigError& e) {
    out.abandon();  // refused at elaboration: no empty folder left behind
    fmt::print(stderr, "{}: configuration error: {}\n", prog, e.what());
    return 2;
  } catch (const std::exception& e) {
    out.abandon();
    fmt::print(stderr, "{}: error: {}\n", prog, e.what());
    return 1;
  }
  return 0;
}

}  // namespace vp::platform
