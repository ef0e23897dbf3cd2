// SPDX-License-Identifier: BSD-3-Clause
// A vp-server run's life around the simulation: its output folder claimed
// and locked before it starts, SIGINT/SIGTERM ending it with a partial
// summary, the watchdog for a run that stops making progress, a trace
// that cannot be written, and long latencies that must not cost wall time.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "tests/TestSupport.hpp"

using namespace vp::test;
namespace fs = std::filesystem;

extern char** environ;

namespace {
const std::string kBin = VP_SERVER_BIN;

// vp-server started in the background, its output in `log`.
struct Background {
  pid_t pid = -1;
  Background(const std::vector<std::string>& args, const std::string& log) {
    std::vector<std::string> argv{kBin};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> c;
    for (auto& a : argv) c.push_back(a.data());
    c.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    if (posix_spawn(&pid, kBin.c_str(), &fa, nullptr, c.data(), environ) != 0) pid = -1;
    posix_spawn_file_actions_destroy(&fa);
  }
  // Its exit code, 128 + the signal if one killed it.
  int wait() {
    int st = 0;
    waitpid(pid, &st, 0);
    pid = -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }
  ~Background() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
};

// Waits up to 60 s for `path` to exist.
bool appears(const std::string& path) {
  for (int i = 0; i < 600 && !fs::exists(path); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return fs::exists(path);
}

std::vector<std::string> listing(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}
}  // namespace

TEST_CASE("a second run into an --out in use is refused, and SIGTERM ends the first with a partial summary and no "
          "temporaries", "[platform][cli][outputs]") {
  const std::string dir = scratch("out_lock");
  // The default preset runs for several seconds of wall time.
  Background first({"--out", dir + "/r", "--trace", "requests,vcd"}, dir + "/first.log");
  REQUIRE(first.pid > 0);
  // The lock is taken before the simulation; the trace's temporary shows
  // the simulation has begun.
  REQUIRE(appears(dir + "/r/.vp-server.lock"));
  REQUIRE(appears(dir + "/r/requests.csv.tmp-" + std::to_string(first.pid)));
  Shell second = shell(kBin + " --preset quick --overwrite --out " + dir + "/r");
  INFO(second.out);
  CHECK(second.status == 2);
  CHECK(second.out.find("--out '" + dir + "/r' is in use by another run (process " + std::to_string(first.pid) +
                        "): wait for it to end, or give another folder") != std::string::npos);
  kill(first.pid, SIGTERM);
  CHECK(first.wait() == 128 + SIGTERM);
  INFO(slurp(dir + "/first.log"));
  // What completed is published (the traces up to the stop), nothing else.
  CHECK(listing(dir + "/r") ==
        std::vector<std::string>{"config.yaml", "fio.json", "requests.csv", "summary.json", "waves.gtkw",
                                 "waves.vcd"});
  auto s = nlohmann::json::parse(slurp(dir + "/r/summary.json"));
  CHECK(s["completed"] == false);
  CHECK(s["aborted"].get<std::string>().rfind("interrupted by SIGTERM at simulated time ", 0) == 0);
  CHECK(s["total_ios"].get<uint64_t>() > 0);
  // Every I/O the summary counts has its row (the trace is whole up to the stop).
  CHECK(csv_rows(dir + "/r/requests.csv").size() == s["total_ios"].get<uint64_t>());
  // The folder is free again: a run with --overwrite goes ahead.
  CHECK(shell(kBin + " --preset quick --overwrite --out " + dir + "/r").status == 0);
}

TEST_CASE("SIGINT ends a run with exit 130 and the summary of what completed", "[platform][cli][outputs]") {
  const std::string dir = scratch("sigint");
  Background run({"--out", dir + "/r", "--trace", "requests"}, dir + "/log");
  REQUIRE(appears(dir + "/r/requests.csv.tmp-" + std::to_string(run.pid)));
  kill(run.pid, SIGINT);
  CHECK(run.wait() == 130);
  auto s = nlohmann::json::parse(slurp(dir + "/r/summary.json"));
  CHECK(s["completed"] == false);
  CHECK(s["aborted"].get<std::string>().rfind("interrupted by SIGINT", 0) == 0);
  CHECK(listing(dir + "/r") == std::vector<std::string>{"config.yaml", "fio.json", "requests.csv", "summary.json"});
}

TEST_CASE("an output folder that cannot be used is refused before the run, naming --out and the reason",
          "[platform][cli][outputs]") {
  const std::string dir = scratch("out_bad");
  std::ofstream(dir + "/file") << "x";
  Shell s = shell(kBin + " --preset quick --out " + dir + "/file");
  CHECK(s.status == 2);
  CHECK(s.out.find("--out '" + dir + "/file': exists and is not a folder") != std::string::npos);
  s = shell(kBin + " --preset quick --out /proc/flashvp/out");
  CHECK(s.status == 2);
  CHECK(s.out.find("--out '/proc/flashvp/out': cannot create the folder") != std::string::npos);
  // A folder the user cannot write to (root can write anywhere but /proc).
  if (geteuid() != 0) {
    fs::create_directories(dir + "/ro");
    fs::permissions(dir + "/ro", fs::perms::owner_read | fs::perms::owner_exec);
    s = shell(kBin + " --preset quick --out " + dir + "/ro");
    CHECK(s.status == 2);
    CHECK(s.out.find("--out '" + dir + "/ro': cannot write there: Permission denied") != std::string::npos);
    fs::permissions(dir + "/ro", fs::perms::owner_all);
  }
  s = shell(kBin + " --preset quick --out /proc/self");
  CHECK(s.status == 2);
  CHECK(s.out.find("--out '/proc/self': cannot write there") != std::string::npos);
}

TEST_CASE("a trace that cannot be written stops the run naming it, and the summary is still written",
          "[platform][cli][outputs]") {
  const std::string dir = scratch("trace_full");
  // A file-size limit of 2 MB (ulimit -f counts 1 KiB blocks) fails the
  // trace's writes as a full disk would, and leaves the summary room.
  Shell s = shell("ulimit -f 2000 && " + kBin + " --out " + dir + "/r --trace requests");
  INFO(s.out);
  CHECK(s.status == 3);
  CHECK(s.out.find("writing the trace " + dir + "/r/requests.csv failed: File too large") != std::string::npos);
  CHECK(listing(dir + "/r") == std::vector<std::string>{"config.yaml", "fio.json", "summary.json"});
  auto j = nlohmann::json::parse(slurp(dir + "/r/summary.json"));
  CHECK(j["completed"] == false);
  // At about 500 bytes a row (each stage's time and end), the limit is
  // reached after some 4,000 I/Os.
  CHECK(j["total_ios"].get<uint64_t>() > 2000);
}

TEST_CASE("a run whose chunks of simulated time exceed sim.watchdog of wall time stops with its summary and exit 3",
          "[platform][cli]") {
  const std::string dir = scratch("watchdog");
  // 100 us of wall time is far less than any chunk of the default preset
  // takes (about 30 ms of wall time per simulated ms), so the watchdog takes
  // it as stuck: this checks the path from the watchdog to the outputs.
  Shell s = shell(kBin + " --out " + dir + "/r --set sim.watchdog=100us");
  INFO(s.out);
  CHECK(s.status == 3);
  CHECK(s.out.find("no simulated progress for 0.0001 s of wall time (sim.watchdog): stopped at simulated time ") !=
        std::string::npos);
  CHECK(nlohmann::json::parse(slurp(dir + "/r/summary.json"))["completed"] == false);
  CHECK(listing(dir + "/r") == std::vector<std::string>{"config.yaml", "fio.json", "summary.json"});
}

TEST_CASE("latencies of seconds simulate as quickly as short ones: the run goes from event to event",
          "[platform][cli]") {
  const std::string dir = scratch("long_latency");
  // Before, the run went through every empty 1 ms chunk (4 s of wall time
  // for this one); a hang here shows as the test's timeout.
  Shell s = shell(kBin + " --preset quick --set pcie.link_latency=1s --out " + dir + "/r --trace requests");
  INFO(s.out);
  REQUIRE(s.status == 0);
  auto rows = csv_rows(dir + "/r/requests.csv");
  REQUIRE(rows.size() == 2000);
  // Each I/O crosses the link at least four times one way or the other:
  // the doorbell down, the command fetch up and back down, the completion
  // (and its interrupt) up.
  for (const auto& r : rows) REQUIRE(u64(r, "latency_ps") >= 4'000'000'000'000ull);
  // At 100 s a register read takes 200 s, beyond the 10 s CAP.TO gives the
  // bring-up (as Linux's nvme_wait_ready would find): an early stop saying so.
  s = shell(kBin + " --preset quick --set pcie.link_latency=100s --out " + dir + "/r2");
  CHECK(s.status == 3);
  CHECK(s.out.find("controller did not set CSTS.RDY within CAP.TO = 10000 ms (one read of CSTS took 200") !=
        std::string::npos);
}

TEST_CASE("a controller 100 s from ready is waited for within CAP.TO without a poll every microsecond, and one "
          "slower than CAP.TO can say is refused", "[platform][cli][nvme]") {
  const std::string dir = scratch("slow_ready");
  // Polls every 1 us for the first thousand, then doubling to 100 ms: about
  // 1,000 polls for the 100 s instead of 10^8 (21 s of wall time before).
  Shell s = shell(kBin + " --preset quick --set ssd.nvme.ready_time=100s --out " + dir + "/r --trace requests");
  INFO(s.out);
  REQUIRE(s.status == 0);
  auto rows = csv_rows(dir + "/r/requests.csv");
  REQUIRE(rows.size() == 2000);
  uint64_t first = UINT64_MAX;
  for (const auto& r : rows) first = std::min(first, u64(r, "issue_ps"));
  // Ready at 100 s after CC.EN; the first poll that sees it is at most one
  // 100 ms period later.
  CHECK(first >= 100'000'000'000'000ull);
  CHECK(first < 100'200'000'000'000ull);
  // CAP.TO holds 255 x 500 ms at most.
  s = shell(kBin + " --preset quick --set ssd.nvme.ready_time=128s --out " + dir + "/r2");
  CHECK(s.status == 2);
  CHECK(s.out.find("ssd.nvme.ready_time") != std::string::npos);
}
