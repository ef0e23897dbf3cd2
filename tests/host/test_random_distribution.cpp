// SPDX-License-Identifier: BSD-3-Clause
// fio's random_distribution: the option as fio spells it, the distributions
// as fio defines them (checked against numbers worked out here from the
// definitions, not from the code), fio's hash that scatters the hot blocks,
// and the default uniform path left exactly as it was.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "tests/TestSupport.hpp"
#include "vp/host/workload/FioJob.hpp"
#include "vp/host/block/BlockDevices.hpp"
#include "vp/host/workload/FioJobRunner.hpp"
#include "vp/host/block/HostBlockDriver.hpp"
#include "vp/host/mm/HostMemoryAllocator.hpp"
#include "vp/host/workload/RandomDistribution.hpp"

using namespace vp::host;
using vp::Rng;

namespace {

RandomDistribution dist(const std::string& text) { return RandomDistribution::parse(text); }

std::string error_of(const std::string& text) {
  try {
    parse_fio(text, "jobs.fio");
  } catch (const FioError& e) {
    return e.what();
  }
  return "no error";
}

// `draws` block indices from a sampler over `blocks` blocks (reads unless `write`).
std::vector<uint64_t> sample(const std::string& text, uint64_t blocks, size_t draws, bool scatter = true,
                             uint64_t seed = 1, bool write = false, uint64_t bs = 4096) {
  Rng rng(seed);
  OffsetSampler s(dist(text), blocks, bs, rng, scatter);
  std::vector<uint64_t> out(draws);
  for (auto& b : out) b = s.next(rng, write);
  return out;
}

std::vector<uint64_t> counts(const std::vector<uint64_t>& blocks, uint64_t n) {
  std::vector<uint64_t> c(n);
  for (uint64_t b : blocks) {
    REQUIRE(b < n);
    ++c[b];
  }
  return c;
}

// A binomial count of `n` trials with probability `p`, within 5 sigma.
void check_binomial(uint64_t count, double n, double p) {
  double sd = std::sqrt(n * p * (1 - p));
  INFO("count " << count << ", expected " << n * p << " +- 5 x " << sd);
  CHECK(std::abs(double(count) - n * p) <= 5 * sd);
}

// sum_{k=1..n} k^-theta, computed by brute force.
double harmonic(uint64_t n, double theta) {
  double s = 0;
  for (uint64_t k = n; k >= 1; --k) s += std::pow(double(k), -theta);
  return s;
}

// A driver with nothing behind it: enough for a job runner to start and
// hand out its I/Os.
struct NullDriver : HostBlockDriver {
  ControllerInfo ci;
  vp::Event ev;
  std::vector<uint8_t> mem = std::vector<uint8_t>(4096);
  uint32_t max_transfer() const override { return 0; }
  uint32_t queue_tags() const override { return 64; }
  void issue(IoRequest&, unsigned) override {}
  bool ready() const override { return true; }
  const vp::Event& ready_event() const override { return ev; }
  const ControllerInfo& info() const override { return ci; }
  uint8_t* host_ptr(uint64_t) override { return mem.data(); }
  unsigned hw_queue_of(uint16_t) const override { return 0; }
  bool has_poll_queues() const override { return false; }
  bool poll_ready(unsigned) const override { return false; }
  void poll(unsigned, std::vector<IoRequest*>&) override {}
  const vp::Event& memory_written() const override { return ev; }
};

// The (LBA, write) of a job's first `ios` I/Os on a 1 GiB device of 512-byte
// LBAs, one at a time, the job's generator seeded with `seed`.
std::vector<std::pair<uint64_t, int>> job_ios(const std::string& fio, uint64_t seed, size_t ios) {
  FioJob j = parse_fio(fio, "t.fio").at(0);
  NullDriver d;
  d.ci.ns_lbas = (uint64_t(1) << 30) / 512;
  d.ci.lba_size = 512;
  HostMemoryAllocator mem(HostMemoryMap(uint64_t(1) << 30));
  FioJobRunner r(j, j.name, 0, seed);
  vp::RequestTracker tracker;
  BlockDevices devs;
  devs.add(d, nullptr, tracker);
  r.start(0, devs, mem, nullptr);
  std::vector<std::pair<uint64_t, int>> out;
  for (size_t i = 0; i < ios; ++i) {
    IoRequest& q = r.issue(0);
    out.push_back({q.lba, q.write ? 1 : 0});
    r.complete(q, 1);
  }
  return out;
}

}  // namespace

TEST_CASE("random_distribution takes fio's spellings and round trips through to_fio", "[host][fio][random_distribution]") {
  CHECK(FioJob().random_distribution.is_random());
  CHECK(dist("random").text() == "random");
  // fio's defaults when only the name is given.
  CHECK(dist("zipf").value == 1.1);
  CHECK(dist("pareto").value == 0.2);
  CHECK(dist("normal").value == 0.0);
  CHECK(dist("zipf").center == -1);
  auto z = dist("zipf:1.2:0.25");
  CHECK(z.kind == RandomDistribution::Kind::Zipf);
  CHECK(z.value == 1.2);
  CHECK(z.center == 0.25);
  CHECK(z.text() == "zipf:1.2:0.25");
  CHECK(dist("zipf:0.8").text() == "zipf:0.8");
  CHECK(dist("zipf: 1.2 ").text() == "zipf:1.2");
  CHECK(dist("pareto:0.3:1").text() == "pareto:0.3:1");
  CHECK(dist("normal:12.5").text() == "normal:12.5");
  // HOWTO's example: 60% of accesses to the first 10%, 30% to the next 20%...
  auto zz = dist("zoned:60/10:30/20:8/30:2/40");
  REQUIRE(zz.zones[0].size() == 4);
  CHECK(zz.zones[0][2] == RandomDistribution::Zone{8, 30});
  CHECK(zz.zones[1] == zz.zones[0]);  // one list: every direction
  CHECK(zz.text() == "zoned:60/10:30/20:8/30:2/40");
  // A zone without a range (or 0) shares what the others leave, as in fio.
  CHECK(dist("zoned:60/10:40").text() == "zoned:60/10:40/90");
  CHECK(dist("zoned:60/10:20/:20/0").text() == "zoned:60/10:20/45:20/45");
  // Ranges short of 100%: fio leaves the rest of the region alone.
  CHECK(dist("zoned:100/50").text() == "zoned:100/50");
  // Reads, writes (and trims, which take the writes' list when left out).
  auto rw = dist("zoned:60/10:40/90,100/20");
  CHECK(rw.zones[0] == std::vector<RandomDistribution::Zone>{{60, 10}, {40, 90}});
  CHECK(rw.zones[1] == std::vector<RandomDistribution::Zone>{{100, 20}});
  CHECK(rw.zones[2] == rw.zones[1]);
  CHECK(rw.text() == "zoned:60/10:40/90,100/20");
  CHECK(dist("zoned:100/10,100/20,100/30").text() == "zoned:100/10,100/20,100/30");
  CHECK(dist("zoned:,100/20").zones[0].empty());  // reads stay uniform
  // zoned_abs: sizes with the job file's units (1024-based).
  auto za = dist("zoned_abs:60/20G:30/100G:10/500g");
  CHECK(za.zones[0] == std::vector<RandomDistribution::Zone>{{60, 20ull << 30}, {30, 100ull << 30}, {10, 500ull << 30}});
  CHECK(za.zoned_abs_bytes() == 620ull << 30);
  CHECK(dist(za.text()) == za);

  // Through the job file, to_fio, and --set (host::set_option).
  auto jobs = parse_fio("[global]\nrw=randread\nrandom_distribution=zipf:1.2\n[a]\n[b]\nrandom_distribution="
                        "zoned:60/10:40/90,50/50:50/50\n[c]\nrandom_distribution=zoned_abs:50/1m:50/3m\n"
                        "[d]\nrandom_distribution=normal:5:0.75\n[e]\nrandom_distribution=random\n",
                        "t.fio");
  REQUIRE(jobs.size() == 5);
  CHECK(jobs[0].random_distribution == dist("zipf:1.2"));
  CHECK(jobs[1].random_distribution.zones[1] == std::vector<RandomDistribution::Zone>{{50, 50}, {50, 50}});
  CHECK(jobs[4].random_distribution.is_random());
  std::string text;
  for (const auto& j : jobs) text += j.to_fio() + "\n";
  CHECK(text.find("random_distribution=zipf:1.2\n") != std::string::npos);
  CHECK(text.find("random_distribution=random\n") != std::string::npos);  // written even at the default
  CHECK(parse_fio(text, "round trip") == jobs);
  CHECK(parse_fio("[global]\nrandom_distribution=pareto:0.1\n" + text, "shielded") == jobs);
  FioJob e = jobs[4];
  set_option(e, "random_distribution", "zipf:1.2", "--set workload.e.random_distribution");
  CHECK(e.random_distribution == dist("zipf:1.2"));
  CHECK(e.at("random_distribution") ==
        "--set workload.e.random_distribution: job 'e': option 'random_distribution' = 'zipf:1.2'");
  CHECK(parse_fio(e.to_fio(), "back")[0] == e);
  CHECK(e != jobs[4]);
}

TEST_CASE("bad random_distribution values are errors naming file, line, option and value",
          "[host][fio][random_distribution]") {
  const std::string at = "jobs.fio:3: option 'random_distribution': value ";
  auto err = [](const std::string& v) { return error_of("[j]\nrw=randread\nrandom_distribution=" + v + "\n"); };
  CHECK(err("zipf:0") == at + "'zipf:0' has zipf theta 0: it must be above 0 and other than 1");
  CHECK(err("zipf:1") == at + "'zipf:1' has zipf theta 1: it must be above 0 and other than 1");
  CHECK(err("zipf:-0.5") == at + "'zipf:-0.5' has zipf theta -0.5: it must be above 0 and other than 1");
  CHECK(err("pareto:1.5") == at + "'pareto:1.5' has pareto h 1.5: it must be above 0 and below 1");
  CHECK(err("pareto:0") == at + "'pareto:0' has pareto h 0: it must be above 0 and below 1");
  CHECK(err("normal:100") ==
        at + "'normal:100' has normal deviation 100: it must be from 0 up to, not including, 100 (percent of the "
             "region)");
  CHECK(err("zoned:50/50:40/40") == at + "'zoned:50/50:40/40' has access percentages adding up to 90, not 100");
  CHECK(err("zoned:60/60:40/60") == at + "'zoned:60/60:40/60' has range percentages adding up to 120, more than 100");
  CHECK(err("zoned:60/10:40/90,50/50:40/50") ==
        at + "'zoned:60/10:40/90,50/50:40/50' has access percentages adding up to 90 in the writes' zones, not 100");
  CHECK(err("zoned:60/10:40/9x") ==
        at + "'zoned:60/10:40/9x' has range percentage '9x' in zone '40/9x': a whole number 0..100 is needed");
  CHECK(err("zoned:60/10::40/90") ==
        at + "'zoned:60/10::40/90' has an empty zone (zones are A/R separated by ':')");
  CHECK(err("zoned") == at + "'zoned' has no zones after zoned: (for example zoned:60/10:40/90)");
  CHECK(err("zoned_abs:60/20G:40") ==
        at + "'zoned_abs:60/20G:40' has zone '40' without a size (zoned_abs zones are A/SIZE)");
  CHECK(err("zoned_abs:60/20Q:40/1g") ==
        at + "'zoned_abs:60/20Q:40/1g' has size '20Q' in zone '60/20Q': bytes with an optional unit (k, m, g, t) "
             "are needed");
  CHECK(err("zipf:abc") == at + "'zipf:abc' has 'abc' where zipf's theta (a number) belongs");
  CHECK(err("zipf:1.2:1.5") == at + "'zipf:1.2:1.5' has center 1.5: it must be from 0 to 1");
  CHECK(err("zipf:1.2:0.5:1") == at + "'zipf:1.2:0.5:1' has more than a value and a center after zipf:");
  CHECK(err("random:1") == at + "'random:1' takes nothing after random");
  CHECK(err("uniform") ==
        at + "'uniform' is not a distribution the model has: random, zipf[:theta[:center]], pareto[:h[:center]], "
             "normal[:dev[:center]], zoned:A/R[:A/R...][,...], zoned_abs:A/SIZE[:A/SIZE...][,...]");
  CHECK(err("sequence:2,0,1").find(at + "'sequence:2,0,1' is fio's sequence distribution, which the model does "
                                        "not have") == 0);
  CHECK(error_of("[j]\nrandom_distribution\n") == "jobs.fio:2: option 'random_distribution' needs a value");
  // --set: the origin names the setting (no line).
  FioJob j;
  CHECK_THROWS_WITH(set_option(j, "random_distribution", "pareto:1.5", "--set workload.j.random_distribution"),
                    "--set workload.j.random_distribution: option 'random_distribution': value 'pareto:1.5' has "
                    "pareto h 1.5: it must be above 0 and below 1");
}

TEST_CASE("zoned:60/10:40/90 sends 60% of the random offsets to the first tenth of the region",
          "[host][fio][random_distribution]") {
  // 1000 blocks: zone 1 is blocks 0..99 (60%), zone 2 blocks 100..999 (40%),
  // uniform within each: 600 draws per block of zone 1, 44.4 per block of zone 2.
  const double N = 100000;
  auto c = counts(sample("zoned:60/10:40/90", 1000, size_t(N)), 1000);
  uint64_t first = 0;
  for (size_t b = 0; b < 100; ++b) first += c[b];
  check_binomial(first, N, 0.6);
  for (size_t b : {size_t(0), size_t(57), size_t(99)}) check_binomial(c[b], N, 0.6 / 100);
  for (size_t b : {size_t(100), size_t(500), size_t(999)}) check_binomial(c[b], N, 0.4 / 900);
  // Reads and writes with lists of their own: reads in the first 10%, writes in the last 10%.
  for (uint64_t b : sample("zoned:100/10,0/90:100/10", 1000, 10000, true, 2, false)) CHECK(b < 100);
  for (uint64_t b : sample("zoned:100/10,0/90:100/10", 1000, 10000, true, 2, true)) CHECK(b >= 900);
  // Ranges short of 100%: nothing beyond them.
  for (uint64_t b : sample("zoned:70/20:30/30", 1000, 10000)) CHECK(b < 500);
  // zoned_abs over 256 blocks of 4 KiB: 64 KiB = blocks 0..15, the next 192 KiB = 16..63.
  auto a = counts(sample("zoned_abs:50/64k:50/192k", 256, size_t(N)), 256);
  uint64_t head = 0, zone2 = 0;
  for (size_t b = 0; b < 16; ++b) head += a[b];
  for (size_t b = 16; b < 64; ++b) zone2 += a[b];
  check_binomial(head, N, 0.5);
  CHECK(head + zone2 == uint64_t(N));
}

TEST_CASE("zipf:1.2's hottest block takes 1/H(n, 1.2) of the random offsets", "[host][fio][random_distribution]") {
  // P(rank k) = k^-1.2 / H(n, 1.2); fio's generator (Gray et al.) gives
  // ranks 1 and 2 exactly. 1024 blocks: fio's hash (rank x 2^64/phi^2 mod
  // 2^64, mod 1024) is then one-to-one, so the hottest block holds rank 1 alone.
  const uint64_t n = 1024;
  const double N = 100000, H = harmonic(n, 1.2);  // 4.3417...
  auto c = counts(sample("zipf:1.2", n, size_t(N)), n);
  std::vector<uint64_t> sorted = c;
  std::sort(sorted.rbegin(), sorted.rend());
  check_binomial(sorted[0], N, 1 / H);
  check_binomial(sorted[1], N, std::pow(2.0, -1.2) / H);
  // The sampler's normalisation is the same sum.
  Rng rng(1);
  CHECK(OffsetSampler(dist("zipf:1.2"), n, 4096, rng).norm() == Approx(H).epsilon(1e-12));
  // The hot blocks are scattered: the hottest two are not neighbours (ranks
  // 1 and 2 land 1024 - (2^64/phi^2 mod 1024) = 21 blocks apart).
  size_t hot1 = std::max_element(c.begin(), c.end()) - c.begin();
  size_t hot2 = std::find(c.begin(), c.end(), sorted[1]) - c.begin();
  CHECK((hot1 + n - hot2) % n == 21);
  // Without the hash and with center 0, rank k is block k - 1.
  auto u = counts(sample("zipf:1.2:0", n, size_t(N), false), n);
  check_binomial(u[0], N, 1 / H);
  check_binomial(u[1], N, std::pow(2.0, -1.2) / H);
  CHECK(std::max_element(u.begin(), u.end()) == u.begin());
  // Center 0.25: the distribution's base a quarter into the region (block 256).
  auto q = counts(sample("zipf:1.2:0.25", n, 20000, false), n);
  CHECK(std::max_element(q.begin(), q.end()) - q.begin() == 256);
}

TEST_CASE("zipf's normalisation is exact for multi-TiB regions without a table", "[host][fio][random_distribution]") {
  // 2^33 blocks of 4 KiB (32 TiB): H(n, theta) from a direct sum of the first
  // 10^7 terms plus the midpoint-rule integral of the rest (error ~1e-12).
  const uint64_t n = uint64_t(1) << 33, m = 10000000;
  for (double theta : {1.2, 0.8}) {
    double h = harmonic(m, theta) +
               (std::pow(double(n) + 0.5, 1 - theta) - std::pow(double(m) + 0.5, 1 - theta)) / (1 - theta);
    Rng rng(3);
    CHECK(OffsetSampler(dist(fmt::format("zipf:{}", theta)), n, 4096, rng).norm() == Approx(h).epsilon(1e-9));
  }
  // Block 0 (rank 1 with center 0, hashed or not) takes 1/H of 100000 draws:
  // H(2^33, 1.2) = 5.5400, where fio's sum, cut at 10^7 terms, is 5.3925.
  const double N = 100000;
  double h12 = harmonic(m, 1.2) + (std::pow(double(n) + 0.5, -0.2) - std::pow(double(m) + 0.5, -0.2)) / -0.2;
  uint64_t zero = 0;
  for (uint64_t b : sample("zipf:1.2:0", n, size_t(N))) zero += b == 0;
  check_binomial(zero, N, 1 / h12);
}

TEST_CASE("pareto:0.2 sends 80% of the random offsets to the hottest 20%", "[host][fio][random_distribution]") {
  // fio's pareto: rank = (n - 1) x u^p, p = ln(h) / ln(1 - h), u uniform in
  // [0, 1). Ranks below 200 of 1000: u < (200/999)^(1/p) = 0.80013.
  const double N = 100000, p = std::log(0.2) / std::log(0.8);
  auto u = counts(sample("pareto:0.2:0", 1000, size_t(N), false), 1000);
  uint64_t low = 0;
  for (size_t b = 0; b < 200; ++b) low += u[b];
  check_binomial(low, N, std::pow(200.0 / 999.0, 1 / p));
  // Hashed over 1024 blocks (one-to-one): the hottest 205 blocks (20%) hold
  // ranks 0..204, P = (205/1023)^(1/p) = 0.8002 (sampling lets the sorted
  // counts pick slightly better blocks: allow 0.5% above).
  auto c = counts(sample("pareto:0.2", 1024, size_t(N)), 1024);
  std::sort(c.rbegin(), c.rend());
  uint64_t top = 0;
  for (size_t b = 0; b < 205; ++b) top += c[b];
  double expect = std::pow(205.0 / 1023.0, 1 / p);
  CHECK(double(top) / N >= expect - 5 * std::sqrt(expect * (1 - expect) / N));
  CHECK(double(top) / N <= expect + 0.005);
}

TEST_CASE("normal:dev is fio's mean of 12 uniforms plus a uniform jitter of dev percent", "[host][fio][random_distribution]") {
  // 1200 blocks: the mean of 12 uniform draws from 0..1200, rounded up, has
  // mean 600 + 11/24 and variance ((1201^2 - 1) / 12) / 12 = 10016.7 (sd
  // 100.08). normal:20 adds a jitter uniform over -120..119 (width
  // ceil(1200 x 20%) = 240): mean -0.5, variance (240^2 - 1) / 12 = 4799.9,
  // so sd sqrt(14816.6) = 121.72.
  const uint64_t n = 1200;
  const size_t N = 100000;
  // `wrap`: blocks from there on count as before block 0 (the bell wraps around the region's end).
  auto moments = [&](const std::string& text, uint64_t wrap = 1200) {
    double s = 0, s2 = 0;
    for (uint64_t b : sample(text, n, N, false)) {
      double x = b >= wrap ? double(b) - double(n) : double(b);
      s += x, s2 += x * x;
    }
    double mean = s / N;
    return std::pair<double, double>{mean, std::sqrt(s2 / N - mean * mean)};
  };
  auto [m0, sd0] = moments("normal");
  CHECK(m0 == Approx(600 + 11.0 / 24).margin(5 * 100.08 / std::sqrt(double(N))));
  CHECK(sd0 == Approx(100.08).epsilon(0.015));
  auto [m20, sd20] = moments("normal:20");
  CHECK(m20 == Approx(600 + 11.0 / 24 - 0.5).margin(5 * 121.72 / std::sqrt(double(N))));
  CHECK(sd20 == Approx(121.72).epsilon(0.015));
  // Center 0.25 moves the bell to a quarter of the region, the 0.13% below
  // block 0 (3 sd) wrapping to the region's end.
  auto [mc, sdc] = moments("normal:0:0.25", 900);
  CHECK(mc == Approx(300 + 11.0 / 24).margin(5 * 100.08 / std::sqrt(double(N))));
  CHECK(sdc == Approx(100.08).epsilon(0.015));
  // fio hashes the value as it does zipf's and pareto's ranks: block =
  // (value x 0x61C8864680B583EB mod 2^64) mod n, same draws either way.
  auto plain = sample("normal:20", n, 1000, false, 9), hashed = sample("normal:20", n, 1000, true, 9);
  for (size_t i = 0; i < plain.size(); ++i) CHECK(hashed[i] == (plain[i] * 0x61C8864680B583EBull) % n);
}

TEST_CASE("zipf and pareto ranks land where fio's hash puts them", "[host][fio][random_distribution]") {
  // Same seed, hash on and off: the rotation (fio's rand_off) and the ranks
  // are the same draws, so hashed = (rank x 2^64/phi^2 mod 2^64 + off) mod n
  // with rank = (plain - off) mod n. 1000 blocks: not a power of two.
  const uint64_t n = 1000, G = 0x61C8864680B583EBull;
  for (const char* text : {"zipf:1.2", "zipf:0.8", "pareto:0.3"}) {
    Rng r1(5), r2(5);
    OffsetSampler plain(dist(text), n, 4096, r1, false), hashed(dist(text), n, 4096, r2, true);
    REQUIRE(plain.offset() == hashed.offset());
    uint64_t off = plain.offset() % n;
    for (int i = 0; i < 1000; ++i) {
      uint64_t rank = (plain.next(r1, false) + n - off) % n;
      CHECK(hashed.next(r2, false) == ((rank * G) % n + off) % n);
    }
  }
}

TEST_CASE("a job without random_distribution draws the same offsets as before", "[host][fio][random_distribution]") {
  // Recorded from the build before random_distribution existed (seed 12345,
  // 1 GiB of 512-byte LBAs): the default path draws nothing more.
  const std::vector<std::pair<uint64_t, int>> randread = {
      {46872, 0}, {52480, 0}, {90352, 0}, {73360, 0}, {75288, 0},  {27216, 0}, {3752, 0},   {90296, 0},
      {61512, 0}, {27144, 0}, {512, 0},   {1704, 0},  {55104, 0},  {80760, 0}, {117288, 0}, {53816, 0}};
  const std::vector<std::pair<uint64_t, int>> mixed = {
      {1664, 0}, {672, 0},  {688, 0},  {256, 0},  {1504, 0}, {784, 1}, {992, 0}, {1008, 0},
      {1024, 0}, {1040, 0}, {1248, 0}, {1264, 1}, {512, 1},  {528, 1}, {544, 1}, {560, 0}};
  const std::string a = "[a]\nrw=randread\nbs=4k\nsize=64m\n";
  const std::string b = "[b]\nrw=randrw\nrwmixread=70\npercentage_random=60\nbs=8k\nsize=1m\noffset=128k\n";
  CHECK(job_ios(a, 12345, 16) == randread);
  CHECK(job_ios(b, 12345, 16) == mixed);
  CHECK(job_ios(a + "random_distribution=random\n", 12345, 16) == randread);
  CHECK(job_ios(b + "random_distribution=random\n", 12345, 16) == mixed);
  // A sequential job ignores a distribution (as fio does) and draws nothing for it.
  CHECK(job_ios("[s]\nrw=read\nbs=4k\nsize=1m\nrandom_distribution=zipf:1.2\n", 1, 4) ==
        std::vector<std::pair<uint64_t, int>>{{0, 0}, {8, 0}, {16, 0}, {24, 0}});
}

TEST_CASE("a job's random_distribution places its random offsets, from the job's seed", "[host][fio][random_distribution]") {
  // 4 MiB of 4 KiB blocks = 1024 blocks; zoned:100/25: blocks 0..255, LBAs 0..2047.
  auto z = job_ios("[z]\nrw=randrw\nbs=4k\nsize=4m\noffset=1m\nrandom_distribution=zoned:100/25\n", 7, 2000);
  uint64_t lo = ~0ull, hi = 0;
  for (auto [lba, w] : z) lo = std::min(lo, lba), hi = std::max(hi, lba);
  CHECK(lo >= 2048);  // the region starts 1 MiB in
  CHECK(hi < 2048 + 2048);
  CHECK(hi >= 2048 + 1024);  // and the zone is covered, not just its start
  // Same seed, same offsets; another seed, others.
  const std::string zipf = "[q]\nrw=randread\nbs=4k\nsize=64m\nrandom_distribution=zipf:1.2\n";
  CHECK(job_ios(zipf, 7, 200) == job_ios(zipf, 7, 200));
  CHECK(job_ios(zipf, 7, 200) != job_ios(zipf, 8, 200));
  // percentage_random still makes the other offsets sequential continuations.
  auto p = job_ios("[p]\nrw=randread\nbs=4k\nsize=4m\npercentage_random=50\nrandom_distribution=zoned:100/10\n", 3,
                   2000);
  size_t beyond = 0;
  for (auto [lba, w] : p) beyond += lba >= 102 * 8;  // past the zone (102 blocks): a continuation
  CHECK(beyond > 0);
}

TEST_CASE("random_distribution set with --set reaches the platform's job", "[host][fio][random_distribution]") {
  // quick preset (4 KiB LBAs): 1 MiB = 256 blocks, zoned:100/10 = blocks 0..24.
  std::string dir = vp::test::scratch("randdist");
  vp::test::run_traced(dir, "quick", {{"workload.z.random_distribution", "zoned:100/10"}},
                       "[z]\ndirect=1\nrw=randread\nbs=4k\nsize=1m\niodepth=4\nnumber_ios=500\n");
  auto rows = vp::test::csv_rows(dir + "/requests.csv");
  REQUIRE(rows.size() == 500);
  std::map<uint64_t, int> seen;
  for (const auto& r : rows) ++seen[vp::test::u64(r, "lba")];
  CHECK(seen.rbegin()->first < 25);
  CHECK(seen.size() > 20);
  // zoned_abs zones beyond the region stop the run before it starts, naming the option.
  CHECK_THROWS_WITH(vp::test::run("quick", {}, "[z]\ndirect=1\nrw=randread\nbs=4k\nsize=1m\nnumber_ios=10\n"
                                               "random_distribution=zoned_abs:50/512k:50/1m\n"),
                    Catch::Contains("option 'random_distribution' = 'zoned_abs:50/512k:50/1m'") &&
                        Catch::Contains("the zones cover 1572864 bytes (384 blocks of bs = 4096), more than the "
                                        "job's region of 1048576 bytes (256 blocks"));
  CHECK_THROWS_WITH(vp::test::run("quick", {{"workload.z.random_distribution", "pareto:1.5"}},
                                  "[z]\ndirect=1\nrw=randread\nnumber_ios=10\n"),
                    Catch::Contains("option 'random_distribution': value 'pareto:1.5' has pareto h 1.5"));
}
