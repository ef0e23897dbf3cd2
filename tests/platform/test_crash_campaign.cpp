// SPDX-License-Identifier: BSD-3-Clause
// The crash-consistency campaign: power cuts at random instants over every
// SSD cache organisation x cell type x checkpoint setting x power-loss
// protection x kind of writer (direct, buffered, buffered with fsync),
// some with a second cut during the rebuild and some with a cached map
// (DFTL). vp-server checks every block the verify=1 job was acknowledged
// against NVMe's durability rules after the rebuild (power_loss.mismatches:
// a block that had to survive and did not read back). A failure prints the
// whole command line that reproduces it.
//
// FLASHVP_CRASH_RUNS sets the number of runs (default 240: about two
// minutes on two cores), FLASHVP_CRASH_SEED the campaign's seed (default
// 44): `FLASHVP_CRASH_RUNS=5000 FLASHVP_CRASH_SEED=7 build/bin/vp-tests
// "[crash]"` runs thousands.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fmt/format.h>
#include <fstream>
#include <map>

#include <random>
#include <set>

#include "tests/TestSupport.hpp"

using namespace vp::test;

namespace {

const std::string kBin = VP_SERVER_BIN;

struct Case {
  std::string org, cell, writer, args;
  bool checkpoints = false, plp = false, second_cut = false, sampled = false;
};

const std::vector<std::string> kOrgs{"none", "uni", "uni-dyn", "split", "bulk", "fastdrain", "burst"};
const std::vector<std::string> kCells{"slc", "mlc", "tlc", "tlc-fastdrain", "znand"};
// The writers: 40,000 4 KiB writes over 1 MiB of a 72 MiB drive (24
// blocks of 48 4 KiB pages per plane, 16 planes). Buffered jobs go through
// the page cache (a direct job's fsync is refused: without the page cache
// it would only be an NVMe Flush).
const std::map<std::string, std::string> kWriters{
    {"direct", "[w]\nrw=randwrite\nbs=4k\niodepth={qd}\nsize=1m\nverify=1\nnumber_ios=40000\ndirect=1\n"},
    {"buffered-fsync1", "[w]\nrw=randwrite\nbs=4k\niodepth={qd}\nsize=1m\nverify=1\nnumber_ios=40000\ndirect=0\nfsync=1\n"},
    {"buffered", "[w]\nrw=randwrite\nbs=4k\niodepth={qd}\nsize=1m\nverify=1\nnumber_ios=40000\ndirect=0\n"},
    {"buffered-fsync", "[w]\nrw=randwrite\nbs=4k\niodepth={qd}\nsize=1m\nverify=1\nnumber_ios=40000\ndirect=0\nfsync=4\n"},
    {"mixed", "[w]\nrw=randrw\nrwmixread=30\nbs=4k\niodepth={qd}\nsize=1m\nverify=1\nnumber_ios=40000\ndirect=1\n"}};

// The i-th run of the campaign: every dimension drawn from the campaign's
// seed and i, so a run is reproduced from the two numbers alone.
Case make_case(uint64_t seed, uint64_t i, const std::string& dir) {
  std::mt19937_64 rng(seed * 1000003 + i);
  auto pick = [&](const auto& v) { return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)]; };
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  Case c;
  // The first runs go through every organisation and cell in turn; the rest at random.
  c.org = i < kOrgs.size() * kCells.size() ? kOrgs[i % kOrgs.size()] : pick(kOrgs);
  c.cell = i < kOrgs.size() * kCells.size() ? kCells[(i / kOrgs.size()) % kCells.size()] : pick(kCells);
  std::vector<std::string> writers;
  for (const auto& [k, _] : kWriters) writers.push_back(k);
  c.writer = pick(writers);
  c.checkpoints = chance(0.5);
  c.plp = chance(0.3);
  c.second_cut = chance(0.2);
  const unsigned qd = std::vector<unsigned>{1, 4, 8, 32}[std::uniform_int_distribution<int>(0, 3)(rng)];
  std::string job = kWriters.at(c.writer);
  job.replace(job.find("{qd}"), 4, std::to_string(qd));
  const std::string job_file = fmt::format("{}/job-{}.fio", dir, i);
  std::ofstream(job_file) << job;
  // Cuts from 1 ms (the drive filling) to 150 ms (GC at every write).
  const uint64_t cut_us = std::uniform_int_distribution<uint64_t>(1000, 150000)(rng);
  std::string a = fmt::format(
      "--preset quick --seed {} --job {} --set ssd.flash.cell={} --set ssd.flash.page_size=4KiB "
      "--set ssd.flash.block_size=192KiB --set ssd.flash.blocks_per_plane=24 --set ssd.cache.organisation={} "
      "--set ssd.power_loss_at={}us",
      seed * 100000 + i, job_file, c.cell, c.org, cut_us);
  // Mostly a drive aged to GC's steady state (GC from the first writes),
  // sometimes an empty one.
  const bool aged = chance(0.8);
  a += aged ? " --set ssd.precondition.age=2" : " --set ssd.precondition.fill=0";
  if (c.org != "none") a += " --set ssd.cache.size=64KiB" + std::string(c.org == "burst" ? "" : " --set ssd.cache.ways=8");
  if (c.checkpoints) {
    const unsigned period = std::vector<unsigned>{200, 500, 2000}[std::uniform_int_distribution<int>(0, 2)(rng)];
    a += fmt::format(" --set ssd.ftl.checkpoint_interval={}us", period);
    if (chance(0.3)) a += " --set ssd.ftl.checkpoint_when_idle=true";
  }
  if (c.plp) {
    const std::string holdup = std::vector<std::string>{"1us", "100us", "2ms", "20ms"}[std::uniform_int_distribution<int>(0, 3)(rng)];
    a += " --set ssd.plp.enabled=true --set ssd.plp.holdup=" + holdup;
  }
  if (c.second_cut) a += " --set ssd.power_loss_in_recovery=true";
  const bool cached_map = chance(0.15);
  if (cached_map) a += " --set ssd.ftl.map_cache=16KiB";
  // Half the aged flat-map drives by the sampled model, whose blocks
  // recovery reads by its layout rule (a cached map refuses it).
  c.sampled = aged && !cached_map && chance(0.5);
  if (aged) a += c.sampled ? " --set ssd.precondition.age_model=sampled" : " --set ssd.precondition.age_model=replay";
  c.args = a;
  return c;
}

struct Outcome {
  Case c;
  int status = 0;
  std::string out;
  nlohmann::json power_loss;
};

}  // namespace

TEST_CASE("crash consistency: no durable block is lost at random power cuts over every organisation, cell, "
          "checkpoint setting, PLP and writer", "[platform][powerloss][crash]") {
  const uint64_t runs = env_or("FLASHVP_CRASH_RUNS", 240), seed = env_or("FLASHVP_CRASH_SEED", 44);
  const std::string dir = scratch("crash");
  std::vector<Outcome> outcomes(runs);
  parallel_for(runs, [&](uint64_t i) {
    Outcome& o = outcomes[i];
    o.c = make_case(seed, i, dir);
    const std::string out = fmt::format("{}/run-{}", dir, i);
    Shell sh = shell(kBin + " " + o.c.args + " --out " + out);
    o.status = sh.status;
    o.out = sh.out;
    if (sh.status == 0) o.power_loss = nlohmann::json::parse(slurp(out + "/summary.json"))["power_loss"];
    std::filesystem::remove_all(out);
  });

  uint64_t failed = 0, checked = 0, during_gc = 0, during_ckpt = 0, during_program = 0, with_plp = 0, second = 0,
           not_durable = 0, sampled_rebuilt = 0;
  std::set<std::string> orgs, cells, writers;
  for (uint64_t i = 0; i < runs; ++i) {
    const Outcome& o = outcomes[i];
    if (o.status != 0 || o.power_loss.value("mismatches", uint64_t{1}) != 0) {
      ++failed;
      UNSCOPED_INFO(fmt::format("run {} (campaign seed {}) failed with exit {}: {} --out DIR\n{}", i, seed, o.status,
                                kBin + " " + o.c.args, o.out.substr(o.out.size() > 2000 ? o.out.size() - 2000 : 0)));
      continue;
    }
    const auto& p = o.power_loss;
    checked += p["blocks_checked"].get<uint64_t>();
    not_durable += p["not_durable"].get<uint64_t>();
    during_gc += p["during"]["gc_jobs"].get<uint64_t>() > 0;
    during_ckpt += p["during"]["checkpoint"].get<bool>();
    during_program += p["during"]["host_programs"].get<uint64_t>() > 0;
    with_plp += o.c.plp;
    second += o.c.second_cut;
    sampled_rebuilt += o.c.sampled && !o.c.checkpoints;  // recovery by AgedLayout's rule
    orgs.insert(o.c.org);
    cells.insert(o.c.cell);
    writers.insert(o.c.writer);
  }
  INFO(fmt::format("{} runs: {} blocks checked, {} acknowledged but not durable (volatile cache); cuts during GC {}, "
                   "during a checkpoint {}, during host programs {}, with PLP {}, with a second cut in recovery {}, "
                   "sampled ageing rebuilt without checkpoints {}",
                   runs, checked, not_durable, during_gc, during_ckpt, during_program, with_plp, second,
                   sampled_rebuilt));
  CHECK(failed == 0);
  // The campaign reached what it claims to cover (at the default size).
  if (runs >= 240) {
    CHECK(orgs.size() == kOrgs.size());
    CHECK(cells.size() == kCells.size());
    CHECK(writers.size() == kWriters.size());
    CHECK(during_gc >= runs / 10);
    CHECK(during_ckpt >= 10);
    CHECK(during_program >= runs / 4);
    CHECK(with_plp >= runs / 5);
    CHECK(second >= runs / 10);
    CHECK(sampled_rebuilt >= runs / 10);
  }
}
