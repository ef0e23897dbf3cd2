// SPDX-License-Identifier: BSD-3-Clause
// Several drives on one host (platform.drives): each its own NVMe device
// that a job's filename picks, md RAID over them, and a PCIe switch whose
// drives share its upstream link. Expected figures worked out by hand.
#include <catch2/catch.hpp>

#include "tests/TestSupport.hpp"
#include "vp/host/block/MdRaid.hpp"
#include "vp/platform/DriveList.hpp"

using namespace vp;
using namespace vp::test;
// host(s) is written test::host(s): with using namespace vp, host also names vp::host.

namespace {
const std::string kFour = "ssd, ssd1, ssd2, ssd3";

double total_iops(const nlohmann::json& s) {
  double t = 0;
  for (const auto& j : s["jobs"]) t += j["iops"].get<double>();
  return t;
}

// One slow die per drive behind a cheap host: a drive gives one 4 KiB read
// per 35 ns (command) + 20 us (tR) + 4096 B / 800 MT/s (5.12 us) = 25.155 us.
Sets slow_drives(const std::string& drives) {
  return {{"platform.drives", drives},
          {"host.cores", "4"},
          {"host.core.submit_cost", "0.2us"},
          {"host.core.isr_cost", "0.3us"},
          {"host.core.complete_cost", "0.1us"},
          {"host.core.ctx_switch_cost", "0.3us"},
          {"ssd.flash.channels", "1"},
          {"ssd.flash.dies_per_package", "1"},
          {"ssd.flash.planes_per_die", "1"},
          {"ssd.flash.blocks_per_plane", "64"},
          {"ssd.flash.page_size", "4KiB"},
          {"ssd.flash.block_size", "256KiB"},
          {"ssd.flash.t_cmd", "35ns"},
          {"ssd.flash.t_read", "20us"},
          {"ssd.flash.bus_rate", "800MT/s"}};
}
const double kSlowDriveIops = 1e6 / 25.155;  // 39,754

std::string reads(const std::string& file, unsigned numjobs, unsigned ios) {
  return fmt::format("[global]\nioengine=libaio\ndirect=1\nbs=4k\nrw=randread\n[r]\nfilename={}\niodepth=32\n"
                     "numjobs={}\nnumber_ios={}\n",
                     file, numjobs, ios);
}
}  // namespace

TEST_CASE("one slow drive gives its die's rate whatever the host", "[platform][drives][raid]") {
  auto s = run("zssd", slow_drives("ssd"), reads("/dev/nvme0n1", 4, 5000));
  CHECK(total_iops(s) == Approx(kSlowDriveIops).epsilon(0.01));
}

TEST_CASE("four drives under RAID-0 give four times one drive's IOPS when the drives bound it",
          "[platform][drives][raid]") {
  auto s = run("zssd", with(slow_drives(kFour), {{"host.md.level", "raid0"}, {"host.md.chunk", "4KiB"}}),
               reads("/dev/md0", 4, 10000));
  // 128 reads in flight over 4 dies: each die always has work.
  CHECK(total_iops(s) == Approx(4 * kSlowDriveIops).epsilon(0.02));
  CHECK(total_iops(s) <= 4 * kSlowDriveIops * 1.0001);
  // A 4 KiB chunk holds one read: one member I/O each, and every drive served about a quarter.
  CHECK(s["counters"]["host.md.ios"].get<uint64_t>() == 40000);
  CHECK(s["counters"]["host.md.member_ios"].get<uint64_t>() == 40000);
  REQUIRE(s["drives"].size() == 4);
  for (const auto& d : s["drives"]) {
    INFO(d["name"]);
    CHECK(d["device"]["flash_reads"].get<double>() == Approx(10000).epsilon(0.05));
  }
  CHECK(s["drives"][3]["path"] == "/dev/nvme3n1");
}

namespace {
// A core that does nothing but the submission (2 us) and reaping (0.5 us)
// of each I/O: 400,000 IOPS at most, whatever is below it.
Sets costly_host(const std::string& drives, const std::string& level, const std::string& bio_cost) {
  return {{"platform.drives", drives},     {"host.md.level", level},
          {"host.md.bio_cost", bio_cost},  {"host.cores", "1"},
          {"host.core.submit_cost", "2us"}, {"host.core.isr_cost", "0ns"},
          {"host.core.complete_cost", "500ns"}, {"host.core.ctx_switch_cost", "0ns"}};
}
}  // namespace

TEST_CASE("a host-bound run gives the host's ceiling on one drive", "[platform][drives][raid]") {
  auto s = run("zssd", costly_host("ssd", "none", "0ns"), reads("/dev/nvme0n1", 1, 20000));
  CHECK(total_iops(s) == Approx(1e6 / 2.5).epsilon(0.005));
}

TEST_CASE("four drives under RAID-0 give the host's ceiling when the host bounds it", "[platform][drives][raid]") {
  auto s = run("zssd", costly_host(kFour, "raid0", "0ns"), reads("/dev/md0", 1, 20000));
  CHECK(total_iops(s) == Approx(1e6 / 2.5).epsilon(0.005));
  CHECK(test::host(s)["cpu"][0]["idle_pct"].get<double>() < 1);
}

TEST_CASE("md's cost per member I/O lowers the host's ceiling by as much", "[platform][drives][raid]") {
  // 2 + 0.5 + 1 us per 4 KiB read (one member I/O each): 285,714 IOPS.
  auto s = run("zssd", costly_host(kFour, "raid0", "1us"), reads("/dev/md0", 1, 20000));
  CHECK(total_iops(s) == Approx(1e6 / 3.5).epsilon(0.005));
}

TEST_CASE("a job's filename picks its drive", "[platform][drives]") {
  auto s = run("quick", {{"platform.drives", "ssd, fast"}},
               "[global]\nioengine=libaio\ndirect=1\nbs=4k\nrw=randwrite\nnumber_ios=3000\n[b]\nfilename=/dev/nvme1n1\n");
  REQUIRE(s["drives"].size() == 2);
  CHECK(s["drives"][1]["name"] == "fast");
  CHECK(s["drives"][0]["device"]["flash_programs"] == 0);
  CHECK(s["drives"][1]["device"]["flash_programs"].get<uint64_t>() > 0);
  CHECK(s["counters"]["host.nvme1.io_submitted"].get<uint64_t>() == 3000);
  CHECK(s["counters"]["host.nvme.io_submitted"].get<uint64_t>() == 0);
  // The second drive's statistics are in its own scope, its link's under it.
  CHECK(s["counters"]["fast.nvme.io_commands"].get<uint64_t>() == 3000);
  CHECK(drive(s, 1).contains("pcie"));
}

namespace {
// 1000 random writes of `write_bs` over the array's first `size` bytes,
// then every block read back sequentially in `read_bs` blocks and checked
// (verify=1): none may differ.
nlohmann::json write_then_verify(const Sets& sets, const std::string& write_bs, const std::string& read_bs,
                                 const std::string& size) {
  auto s = run("quick", sets,
               fmt::format("[global]\nioengine=libaio\ndirect=1\niodepth=16\nverify=1\nsize={}\n"
                           "[w]\nfilename=/dev/md0\nrw=randwrite\nbs={}\nnumber_ios=1000\n"
                           "[r]\nstonewall\nfilename=/dev/md0\nrw=read\nbs={}\n",
                           size, write_bs, read_bs));
  CHECK(test::host(s)["verify"]["mismatches"] == 0);
  CHECK(test::host(s)["verify"]["blocks_checked"].get<uint64_t>() > 0);
  return s;
}
}  // namespace

TEST_CASE("RAID-1 writes every member and reads back what was written", "[platform][drives][raid]") {
  auto s = write_then_verify({{"platform.drives", "ssd, ssd1, ssd2"}, {"host.md.level", "raid1"}}, "16k", "128k", "8M");
  // 1000 writes to three members, 64 reads to one each.
  CHECK(s["counters"]["host.md.member_ios"].get<uint64_t>() == 3 * 1000 + 64);
  const auto programs = s["drives"][0]["device"]["flash_programs"];
  CHECK(s["drives"][1]["device"]["flash_programs"] == programs);
  CHECK(s["drives"][2]["device"]["flash_programs"] == programs);
  // 16 reads in flight: the idle members take some.
  CHECK(s["counters"]["host.md.reads_balanced"].get<uint64_t>() > 0);
}

TEST_CASE("RAID-0 stripes data that reads back intact across chunks", "[platform][drives][raid]") {
  auto s = write_then_verify(
      {{"platform.drives", "ssd, ssd1, ssd2"}, {"host.md.level", "raid0"}, {"host.md.chunk", "8KiB"}}, "12k", "64k", "6M");
  // A 64 KiB read at a 64 KiB offset spans 8 chunks; a 12 KiB write at a
  // 12 KiB offset starts at 0 or 4 KiB into a chunk: 2 pieces either way.
  CHECK(s["counters"]["host.md.member_ios"].get<uint64_t>() == 1000 * 2 + 96 * 8);
}

namespace {
// Two drives below one switch, each read by its own job in 128 KiB blocks.
// A drive alone reads at its x4 PCIe 3.0 link's payload rate: 8 GT/s x 4 x
// 128/130 / 8 x 256/280 = 3600.7 MB/s.
const double kX4Payload = 8e9 * 4 * 128.0 / 130.0 / 8.0 * 256.0 / 280.0 / 1e6;
nlohmann::json switched_pair(const std::string& upstream_lanes) {
  return run("zssd",
             {{"host.cores", "2"},
              {"platform.drives", "ssd, ssd1"},
              {"platform.switched", "ssd, ssd1"},
              {"pcie.switches", "1"},
              {"pcie_switch.lanes", upstream_lanes}},
             "[global]\nioengine=libaio\ndirect=1\nbs=128k\nrw=randread\niodepth=16\nnumber_ios=4000\n"
             "[a]\nfilename=/dev/nvme0n1\n[b]\nfilename=/dev/nvme1n1\n");
}
}  // namespace

TEST_CASE("drives below one switch share its upstream link", "[platform][drives][pcie]") {
  auto s = switched_pair("4");  // both through one x4 upstream: half each
  for (const auto& j : s["jobs"]) CHECK(j["bandwidth_MBps"].get<double>() == Approx(kX4Payload / 2).epsilon(0.02));
  CHECK(s["jobs"][0]["bandwidth_MBps"].get<double>() + s["jobs"][1]["bandwidth_MBps"].get<double>() <=
        kX4Payload * 1.0001);
  REQUIRE(s.at("switches").size() == 1);
  CHECK(s["switches"][0]["name"] == "pcie_switch");
}

TEST_CASE("drives below a switch with a wide enough upstream keep their own rate", "[platform][drives][pcie]") {
  auto s = switched_pair("8");
  for (const auto& j : s["jobs"]) CHECK(j["bandwidth_MBps"].get<double>() == Approx(kX4Payload).epsilon(0.02));
}

namespace {
// The configuration of a platform with `drives` drives (ssd, ssd1, ...) and `sets`.
Config md_config(unsigned drives, const Sets& sets) {
  std::string names = "ssd";
  for (unsigned k = 1; k < drives; ++k) names += fmt::format(", ssd{}", k);
  return platform::build_config(options("quick", with({{"platform.drives", names}}, sets)));
}

// Host memory for an array's stripe cache, as the cores see it.
struct Memory {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(64 << 20);
  host::HostMemoryAllocator alloc{host::HostMemoryMap(64 << 20)};
  std::function<uint8_t*(uint64_t)> ptr() {
    return [this](uint64_t a) { return bytes.data() + a; };
  }
};

host::IoRequest io_at(uint64_t lba, uint32_t bytes, bool write, uint8_t* buf = nullptr) {
  host::IoRequest io;
  io.lba = lba;
  io.nlb = bytes / 512;
  io.bytes = bytes;
  io.write = write;
  io.buf = buf;
  io.buf_addr = 0x3000000;
  return io;
}
}  // namespace

TEST_CASE("md RAID-0 and RAID-1 split an I/O as raid0.c and raid1.c do", "[host][raid]") {
  Config cfg = md_config(3, {{"host.md.level", "raid0"}, {"host.md.chunk", "8KiB"}});
  StatRegistry stats;
  Memory mem;
  host::MdRaid md(ScopedConfig(cfg, host::MdRaid::kScope), StatGroup(stats, host::MdRaid::kScope), {0, 1, 2},
                  mem.alloc, mem.ptr());
  // 512-byte LBAs, 16 per chunk. Chunk c is on member c mod 3 at member LBA (c / 3) * 16.
  host::IoRequest io;
  io.lba = 40;  // chunk 2, 8 LBAs in
  io.nlb = 32;  // 16 KiB: to the end of chunk 2, all of chunk 3, half of chunk 4
  io.bytes = 16384;
  io.buf_addr = 0x100000;
  std::vector<host::IoRequest*> parts = md.split(io);
  REQUIRE(parts.size() == 3);
  CHECK(parts[0]->dev == 2);
  CHECK(parts[0]->lba == 8);
  CHECK(parts[0]->bytes == 4096);
  CHECK(parts[0]->buf_addr == 0x100000);
  CHECK(parts[1]->dev == 0);
  CHECK(parts[1]->lba == 16);
  CHECK(parts[1]->nlb == 16);
  CHECK(parts[1]->buf_addr == 0x101000);
  CHECK(parts[2]->dev == 1);
  CHECK(parts[2]->lba == 16);
  CHECK(parts[2]->bytes == 4096);
  CHECK(parts[2]->buf_addr == 0x103000);
  // It completes with its last part, with the first error any part had.
  parts[1]->status = 0x4002;
  CHECK(md.fan_in(*parts[0]) == nullptr);
  CHECK(md.fan_in(*parts[1]) == nullptr);
  CHECK(md.fan_in(*parts[2]) == &io);
  CHECK(io.status == 0x4002);
  host::IoRequest other;
  CHECK(md.fan_in(other) == nullptr);  // not one of its parts
  // The array: 3 members of 100 chunks and a bit.
  CHECK(host::MdRaid::capacity(host::MdRaid::Level::Raid0, 8192, 100 * 8192 + 4096, 3) == 300 * 8192);
  CHECK(host::MdRaid::capacity(host::MdRaid::Level::Raid1, 8192, 100 * 8192 + 4096, 3) == 100 * 8192 + 4096);

  Config cfg1 = md_config(2, {{"host.md.level", "raid1"}});
  host::MdRaid mirror(ScopedConfig(cfg1, host::MdRaid::kScope), StatGroup(stats, "mirror"), {0, 1}, mem.alloc,
                      mem.ptr());
  host::IoRequest w, r1, r2;
  w.write = true;
  w.nlb = 8;
  w.bytes = 4096;
  CHECK(mirror.split(w).size() == 2);  // a write to both
  r1.nlb = r2.nlb = 8;
  r1.bytes = r2.bytes = 4096;
  // Both members have the write in flight: the first read goes to member 0,
  // the second to member 1, which then has fewer of the array's I/Os.
  CHECK(mirror.split(r1).at(0)->dev == 0);
  CHECK(mirror.split(r2).at(0)->dev == 1);
}

TEST_CASE("md RAID-5 places data and parity left-symmetric and writes whole rows without reading",
          "[host][raid]") {
  Config cfg = md_config(3, {{"host.md.level", "raid5"}, {"host.md.chunk", "8KiB"}});
  StatRegistry stats;
  Memory mem;
  host::MdRaid md(ScopedConfig(cfg, host::MdRaid::kScope), StatGroup(stats, host::MdRaid::kScope), {0, 1, 2},
                  mem.alloc, mem.ptr());
  // Three members, 16 LBAs a chunk: stripe s has its parity on member 2 - s mod 3 and
  // its two data chunks on the members after it. Data chunk 2 (stripe 1, first
  // slot) is on member 2 (parity on 1), at member LBA 16.
  host::IoRequest rd = io_at(32, 4096, false);
  std::vector<host::IoRequest*> parts = md.split(rd);
  REQUIRE(parts.size() == 1);
  CHECK(parts[0]->dev == 2);
  CHECK(parts[0]->lba == 16);
  CHECK(md.fan_in(*parts[0]) == &rd);
  // A whole stripe (chunks 0 and 1, on members 0 and 1, parity on 2): two
  // full rows, written at once, 8 KiB to each member.
  std::vector<uint8_t> data(16384);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7 + 3);
  host::IoRequest full = io_at(0, 16384, true, data.data());
  Tick cpu = 0;
  parts = md.split(full, cpu);
  REQUIRE(parts.size() == 3);
  for (unsigned m = 0; m < 3; ++m) {
    CHECK(parts[m]->dev == m);
    CHECK(parts[m]->write);
    CHECK(parts[m]->lba == 0);
    CHECK(parts[m]->bytes == 8192);
  }
  // Copy 16 KiB of new data in, XOR two data pages into each of two parity
  // pages (16 KiB): 32 KiB at 10 GB/s.
  CHECK(cpu == 3'276'800);
  CHECK(std::memcmp(parts[0]->buf, data.data(), 8192) == 0);
  CHECK(std::memcmp(parts[1]->buf, data.data() + 8192, 8192) == 0);
  for (size_t b = 0; b < 8192; ++b) REQUIRE(parts[2]->buf[b] == (data[b] ^ data[8192 + b]));
  CHECK(stats.value("host.md.full_rows") == 2);
  for (auto* p : std::vector<host::IoRequest*>(parts)) md.fan_in(*p);
}

TEST_CASE("md RAID-5 reads before a partial write and lets one write at a time hold a row", "[host][raid]") {
  Config cfg = md_config(3, {{"host.md.level", "raid5"}, {"host.md.chunk", "8KiB"}});
  StatRegistry stats;
  Memory mem;
  host::MdRaid md(ScopedConfig(cfg, host::MdRaid::kScope), StatGroup(stats, host::MdRaid::kScope), {0, 1, 2},
                  mem.alloc, mem.ptr());
  std::vector<uint8_t> a(4096, 0x5a), b(4096, 0xc3);
  // Row 1 of stripe 0, first slot (member 0): reconstruct-write reads the
  // other data page (member 1), one page, against read-modify-write's two.
  host::IoRequest w1 = io_at(8, 4096, true, a.data());
  std::vector<host::IoRequest*> reads = md.split(w1);
  REQUIRE(reads.size() == 1);
  CHECK(reads[0]->dev == 1);
  CHECK(reads[0]->lba == 8);
  CHECK_FALSE(reads[0]->write);
  // The same row, second slot: it waits for w1.
  host::IoRequest w2 = io_at(24, 4096, true, b.data());
  CHECK(md.split(w2).empty());
  CHECK(stats.value("host.md.stripe_waits") == 1);
  // The read done: parity (copy 4 KiB, XOR 8 KiB: 1.2288 us) and two bios
  // (0.6 us), then w1's data page on member 0 and parity on member 2.
  host::MdRaid::Next next;
  CHECK(md.fan_in(*reads[0], next) == nullptr);
  CHECK(next.cpu == 1'228'800 + 600'000);
  REQUIRE(next.submit.size() == 2);
  CHECK(next.submit[0]->dev == 0);
  CHECK(next.submit[1]->dev == 2);
  CHECK(next.submit[1]->lba == 8);
  // The old data read was zeros: the parity is w1's data.
  CHECK(std::memcmp(next.submit[1]->buf, a.data(), 4096) == 0);
  std::vector<host::IoRequest*> writes = next.submit;
  host::MdRaid::Next after;
  CHECK(md.fan_in(*writes[0], after) == nullptr);
  CHECK(md.fan_in(*writes[1], after) == &w1);
  // w1 let w2 go: its read of member 0's page.
  REQUIRE(after.submit.size() == 1);
  CHECK(after.submit[0]->dev == 0);
  CHECK_FALSE(after.submit[0]->write);
  CHECK(stats.value("host.md.rcw_rows") == 2);

  // Five members: one page written reads 2 pages by read-modify-write
  // (old data, old parity) against 3 by reconstruct-write.
  Config cfg5 = md_config(5, {{"host.md.level", "raid5"}, {"host.md.chunk", "8KiB"}});
  Memory mem5;
  host::MdRaid md5(ScopedConfig(cfg5, host::MdRaid::kScope), StatGroup(stats, "five"), {0, 1, 2, 3, 4}, mem5.alloc,
                   mem5.ptr());
  host::IoRequest w = io_at(0, 4096, true, a.data());
  std::vector<host::IoRequest*> rmw = md5.split(w);
  REQUIRE(rmw.size() == 2);
  CHECK(rmw[0]->dev == 0);  // the old data
  CHECK(rmw[1]->dev == 4);  // stripe 0's parity
  CHECK(stats.value("five.rmw_rows") == 1);
}

TEST_CASE("RAID-5 keeps data written across partial and whole stripes", "[platform][drives][raid]") {
  auto s = write_then_verify(
      {{"platform.drives", "ssd, ssd1, ssd2"}, {"host.md.level", "raid5"}, {"host.md.chunk", "8KiB"}}, "12k", "64k", "6M");
  CHECK(s["counters"]["host.md.rcw_rows"].get<uint64_t>() > 0);
}

TEST_CASE("RAID-5 small writes over five drives read two pages and write two", "[platform][drives][raid]") {
  // 4 KiB writes at 4 KiB offsets: one page of one row each; read-modify-write
  // (2 reads) beats reconstruct-write (3): 4 member I/Os per write.
  auto s = run("quick",
               {{"platform.drives", "ssd, ssd1, ssd2, ssd3, ssd4"}, {"host.md.level", "raid5"}, {"host.md.chunk", "64KiB"}},
               "[global]\nioengine=libaio\ndirect=1\niodepth=8\n"
               "[w]\nfilename=/dev/md0\nrw=randwrite\nbs=4k\nsize=16M\nnumber_ios=2000\n");
  CHECK(s["counters"]["host.md.rmw_rows"].get<uint64_t>() == 2000);
  CHECK(s["counters"]["host.md.member_ios"].get<uint64_t>() == 4 * 2000);
  CHECK(s["counters"]["host.md.full_rows"].get<uint64_t>() == 0);
}

TEST_CASE("RAID-5 whole-stripe writes read nothing", "[platform][drives][raid]") {
  // 3 data chunks of 16 KiB a stripe: a 48 KiB sequential write is a stripe, 4 rows.
  auto s = run("quick",
               {{"platform.drives", "ssd, ssd1, ssd2, ssd3"}, {"host.md.level", "raid5"}, {"host.md.chunk", "16KiB"}},
               "[global]\nioengine=libaio\ndirect=1\niodepth=4\n"
               "[w]\nfilename=/dev/md0\nrw=write\nbs=48k\nsize=12M\nnumber_ios=200\n");
  CHECK(s["counters"]["host.md.full_rows"].get<uint64_t>() == 200 * 4);
  CHECK(s["counters"]["host.md.rmw_rows"].get<uint64_t>() == 0);
  CHECK(s["counters"]["host.md.rcw_rows"].get<uint64_t>() == 0);
  CHECK(s["counters"]["host.md.member_ios"].get<uint64_t>() == 200 * 4);  // 16 KiB to each member
}

TEST_CASE("drives take the ssd keys they leave unset, never its image or power loss", "[platform][drives][config]") {
  platform::RunOptions o = options("quick", {{"platform.drives", "ssd0, ssd1"},
                                             {"ssd.flash.channels", "2"},
                                             {"ssd1.flash.channels", "4"},
                                             {"ssd1.power_loss_at", "0ms"},
                                             {"pcie.lanes", "8"}});
  Config cfg = platform::build_config(o);
  CHECK(cfg.get_int("ssd0.flash.channels") == 2);
  CHECK_THAT(cfg.origin("ssd0.flash.channels"), Catch::Contains("ssd.flash.channels"));
  CHECK(cfg.get_int("ssd1.flash.channels") == 4);
  CHECK(cfg.get_time("ssd0.power_loss_at") == 0);
  CHECK(cfg.get_int("pcie.lanes") == 8);
  CHECK(cfg.get_int("ssd1.pcie.lanes") == 8);
  // The cell's timing reaches every drive.
  CHECK(cfg.get_time("ssd1.flash.t_read") == cfg.get_time("ssd.flash.t_read"));
  // config.yaml gives the list back as a list, and reads back the same.
  const std::string yaml = cfg.to_yaml();
  CHECK_THAT(yaml, Catch::Contains("drives: [ssd0, ssd1]"));
  CHECK(platform::parse_drives(cfg.get_string("platform.drives"), "test") == std::vector<std::string>{"ssd0", "ssd1"});
}

TEST_CASE("a YAML list names the drives and a list for any other key is refused", "[platform][drives][config]") {
  const std::string dir = scratch("drives-yaml");
  std::ofstream(dir + "/two.yaml") << "base: quick\nplatform:\n  drives: [ssd, ssd1]\n";
  std::ofstream(dir + "/bad.yaml") << "base: quick\nhost:\n  cores: [1, 2]\n";
  platform::RunOptions o;
  o.config_file = dir + "/two.yaml";
  Config cfg = platform::build_config(o);
  CHECK(cfg.get_string("platform.drives") == "ssd, ssd1");
  CHECK(cfg.get_int("ssd1.nvme.max_io_queues") > 0);
  o.config_file = dir + "/bad.yaml";
  CHECK_THROWS_WITH(platform::build_config(o), Catch::Contains("bad.yaml:3") && Catch::Contains("host.cores") &&
                                                   Catch::Contains("not a list"));
}

TEST_CASE("several-drive settings that cannot work are refused by name", "[platform][drives][config]") {
  auto refused = [](const Sets& sets, const std::string& fio = "") {
    platform::RunOptions o = options("quick", sets, fio);
    try {
      platform::build_config(o);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK_THAT(refused({{"platform.drives", "ssd, ssd"}}), Catch::Contains("named twice"));
  CHECK_THAT(refused({{"platform.drives", "Big"}}), Catch::Contains("not a drive name"));
  CHECK_THAT(refused({{"platform.drives", "host"}}), Catch::Contains("scope of other keys"));
  CHECK_THAT(refused({{"host.md.level", "raid0"}}), Catch::Contains("at least two drives"));
  CHECK_THAT(refused({{"platform.drives", "ssd, ssd1"}, {"platform.switched", "ssd1"}}),
             Catch::Contains("ssd1.pcie.switches") && Catch::Contains("1 or more"));
  CHECK_THAT(refused({{"platform.drives", "ssd, ssd1"}, {"platform.switched", "ssd2"}}),
             Catch::Contains("not a drive of the platform"));
  CHECK_THAT(refused({{"platform.drives", "ssd, ssd1"}, {"ssd.power_loss_at", "1ms"}, {"ssd1.power_loss_at", "2ms"}}),
             Catch::Contains("ssd.power_loss_at") && Catch::Contains("ssd1.power_loss_at") &&
                 Catch::Contains("one drive loses power in a run"));
  CHECK_THAT(refused({{"platform.drives", "ssd, ssd1"}, {"host.md.level", "raid1"}, {"ssd1.power_loss_at", "1ms"}},
                     "[j]\ndirect=1\nfilename=/dev/md0\nrw=randrw\nverify=1\n"),
             Catch::Contains("option 'verify'") && Catch::Contains("ssd1.power_loss_at") &&
                 Catch::Contains("not judged after a power loss"));
  CHECK_THAT(refused({{"platform.drives", "ssd0, ssd1"}, {"ssd.image", "/tmp/x.img"}}),
             Catch::Contains("ssd.image") && Catch::Contains("no drive is called ssd"));
  CHECK_THAT(refused({{"platform.drives", "ssd, ssd1"}}, "[j]\ndirect=1\nfilename=/dev/nvme2n1\n"),
             Catch::Contains("filename") && Catch::Contains("/dev/nvme2n1") && Catch::Contains("/dev/nvme1n1"));
  CHECK_THAT(refused({{"platform.drives", "ssd, ssd1"}}, "[j]\ndirect=0\nfilename=/dev/nvme1n1\n"),
             Catch::Contains("page cache"));
  CHECK_THAT(refused({}, "[j]\ndirect=1\nfilename=/dev/md0\n"), Catch::Contains("no such block device"));
  platform::RunOptions drive = options("quick", {{"platform.drives", "ssd, ssd1"}});
  drive.platform = platform::Platform::Drive;
  CHECK_THROWS_WITH(platform::build_config(drive), Catch::Contains("vp-drive holds one drive"));
}

TEST_CASE("vp-qemu declares only its drives, their links and the accelerator", "[platform][drives][config][qemu]") {
  const ParamRegistry& reg = platform::qemu_params({"ssd"});
  CHECK(reg.find("ssd.nvme.max_io_queues"));
  CHECK(reg.find("accel.enabled"));
  CHECK_FALSE(reg.find("host.cores"));
  CHECK_FALSE(reg.find("workload.fio"));
  // A preset's host and job keys are left out; the user's are refused.
  platform::RunOptions o = options("flashshare/vanilla", {{"platform.drives", "ssd, ssd1"}});
  o.platform = platform::Platform::Qemu;
  Config cfg = platform::build_config(o);
  CHECK(cfg.get_string("ssd1.nvme.serial") == "FVP0000000002");
  CHECK(cfg.get_string("ssd.nvme.serial") == "FVP0000000001");
  o.sets.emplace_back("host.cores", "2");
  CHECK_THROWS_WITH(platform::build_config(o), Catch::Contains("'host.cores'") && Catch::Contains("vp-qemu does not have"));
  o.sets.back() = {"workload.j.bs", "8k"};
  CHECK_THROWS_WITH(platform::build_config(o), Catch::Contains("workload.j.bs"));
  // The guest's drive would vanish under it: refused, naming the drive's key.
  o.sets.back() = {"ssd1.power_loss_at", "1ms"};
  CHECK_THROWS_WITH(platform::build_config(o).validate(),
                    Catch::Contains("ssd1.power_loss_at") && Catch::Contains("vp-qemu does not simulate a power loss"));
}

TEST_CASE("a run whose one drive is not called ssd prints its drive's summary", "[platform][drives][cli]") {
  const std::string dir = scratch("drive-renamed");
  Shell sh = shell(std::string(VP_SERVER_BIN) + " --preset quick --set platform.drives=ssd0 --out " + dir + "/out");
  INFO(sh.out);
  REQUIRE(sh.status == 0);
  CHECK(sh.out.find("ftl: write amplification") != std::string::npos);
  CHECK(sh.out.find("firmware: layered") != std::string::npos);
  auto s = nlohmann::json::parse(slurp(dir + "/out/summary.json"));
  CHECK(drive(s)["name"] == "ssd0");
  CHECK(drive(s).contains("ftl"));
}
