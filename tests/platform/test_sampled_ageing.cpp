// SPDX-License-Identifier: BSD-3-Clause
// ssd.precondition.age_model=sampled against a replayed ageing on the quick
// drive: the writes that follow see the same GC, data reads back intact
// (also across a power loss), and the set-ups it does not model are refused.
#include <catch2/catch.hpp>
#include <fstream>

#include "tests/TestSupport.hpp"

using namespace vp::test;

namespace {

const std::string kBin = VP_SERVER_BIN;
const std::string kAged =
    "--set ssd.precondition.fill=0.9 --set ssd.precondition.pattern=random --set ssd.precondition.age=2 ";

struct Ran {
  int status;
  std::string out;
  nlohmann::json s;
};

Ran run_cli(const std::string& dir, const std::string& job, const std::string& sets) {
  std::ofstream(dir + "/job.fio") << job;
  Shell sh = shell(kBin + " --preset quick --job " + dir + "/job.fio " + sets + " --overwrite --out " + dir);
  Ran r{sh.status, sh.out, {}};
  if (sh.status == 0) r.s = nlohmann::json::parse(slurp(dir + "/summary.json"));
  return r;
}

}  // namespace

TEST_CASE("after a sampled ageing the next 100,000 writes amplify as after a replayed one", "[platform][precondition]") {
  // Issue 22's measure at test scale: the write amplification of the random
  // writes that follow the ageing within 5% of a real (replayed) ageing's.
  // Measured at commit time: 2.078 and 2.078 (4 KiB writes of two 2 KiB pages).
  std::string dir = scratch("sampled-wa");
  const std::string job = "[w]\ndirect=1\nrw=randwrite\nbs=4k\niodepth=32\nnumber_ios=100000\n";
  Ran replay = run_cli(dir, job, kAged + "--set ssd.precondition.age_model=replay");
  INFO(replay.out);
  REQUIRE(replay.status == 0);
  Ran sampled = run_cli(dir, job, kAged + "--set ssd.precondition.age_model=sampled");
  INFO(sampled.out);
  REQUIRE(sampled.status == 0);
  double r = drive(replay.s)["ftl"]["write_amplification"].get<double>();
  double s = drive(sampled.s)["ftl"]["write_amplification"].get<double>();
  CHECK(r > 1.5);  // GC at work: the comparison means something
  CHECK(s == Approx(r).epsilon(0.05));
  // The ageing itself did the same work (the fill and 2x overwrites).
  CHECK(drive(sampled.s)["ftl"]["precondition"]["writes"] == drive(replay.s)["ftl"]["precondition"]["writes"]);
}

TEST_CASE("data written after a sampled ageing reads back intact through GC and a power loss",
          "[platform][precondition][integrity]") {
  // A full drive aged twice over by the model, then random verified writes
  // over 4 MiB (GC moving the aged pages and the new ones), a read-back, and
  // the power failing at 10 s with every completed write checked.
  std::string dir = scratch("sampled-verify");
  Ran r = run_cli(dir,
                  "[w]\ndirect=1\nrw=randwrite\nbs=4k\nsize=4m\niodepth=16\nnumber_ios=20000\nverify=1\n"
                  "[r]\ndirect=1\nstonewall\nrw=read\nbs=16k\nsize=4m\niodepth=4\nverify=1\n",
                  "--set ssd.precondition.fill=1 --set ssd.precondition.age=2 --set ssd.precondition.age_model=sampled "
                  "--set ssd.power_loss_at=10s");
  INFO(r.out);
  REQUIRE(r.status == 0);
  CHECK(host(r.s)["verify"]["mismatches"].get<uint64_t>() == 0);
  CHECK(host(r.s)["verify"]["blocks_checked"].get<uint64_t>() >= 1000);
  CHECK(drive(r.s)["ftl"]["gc_pages_moved"].get<uint64_t>() > 0);
  CHECK(r.s["power_loss"]["mismatches"].get<uint64_t>() == 0);
  CHECK(r.s["power_loss"]["intact"].get<uint64_t>() == r.s["power_loss"]["blocks_checked"].get<uint64_t>());
}

TEST_CASE("sampled ageing refuses the set-ups its model does not cover, naming the keys", "[platform][precondition]") {
  std::string dir = scratch("sampled-refused");
  const std::string job = "[r]\ndirect=1\nrw=randread\nbs=4k\nnumber_ios=1\n";
  Ran r = run_cli(dir, job, kAged + "--set ssd.precondition.age_model=sampled --set ssd.ftl.map_cache=64KiB");
  CHECK(r.status != 0);
  CHECK_THAT(r.out, Catch::Contains("ssd.precondition.age_model") && Catch::Contains("cached map"));
  r = run_cli(dir, job, kAged + "--set ssd.precondition.age_model=sampled --set ssd.ftl.shards=2");
  CHECK(r.status != 0);
  CHECK_THAT(r.out, Catch::Contains("ssd.ftl.shards=1") && Catch::Contains("age_model=replay"));
}

TEST_CASE("the default age model samples wherever it applies, replays elsewhere, and says which aged the drive",
          "[platform][precondition]") {
  std::string dir = scratch("sampled-auto");
  const std::string job = "[r]\ndirect=1\nrw=randread\nbs=4k\nnumber_ios=1\n";
  // quick: a flat map, one shard, pages allocated in order.
  Ran r = run_cli(dir, job, kAged);
  INFO(r.out);
  REQUIRE(r.status == 0);
  const auto& p = drive(r.s)["ftl"]["precondition"];
  CHECK(p["age_model"] == "sampled");
  CHECK(p["sampled_planes"].get<uint64_t>() > 0);
  CHECK(!p.contains("age_model_why"));
  CHECK_THAT(r.out, Catch::Contains("aged by the sampled model"));
  // Two shards: the model does not cover them, so the drive is replayed, and the run says why.
  r = run_cli(dir, job, kAged + "--set ssd.ftl.shards=2");
  INFO(r.out);
  REQUIRE(r.status == 0);
  const auto& q = drive(r.s)["ftl"]["precondition"];
  CHECK(q["age_model"] == "replay");
  CHECK(!q.contains("sampled_planes"));
  CHECK_THAT(q["age_model_why"].get<std::string>(), Catch::Contains("ssd.ftl.shards=1"));
  CHECK_THAT(r.out, Catch::Contains("aged by the replay model") && Catch::Contains("shards=1"));
  // Not aged: no model named.
  r = run_cli(dir, job, "");
  REQUIRE(r.status == 0);
  CHECK(!drive(r.s)["ftl"]["precondition"].contains("age_model"));
  CHECK_THAT(r.out, !Catch::Contains("aged by"));
}
