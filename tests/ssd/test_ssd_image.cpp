// SPDX-License-Identifier: BSD-3-Clause
// The SSD's contents persist in a raw image file (ssd.image): loaded before
// the run without simulated time, written back sparse at its end.
//
// Figures of the quick preset used throughout: 4 channels x 2 dies x 2
// planes = 16 planes of 64 blocks of 128 KiB / 2 KiB = 64 pages, so 4096
// pages a plane; over-provisioning 0.27 leaves floor(4096 x 0.73) = 2990
// logical pages a plane, 2990 x 16 = 47840 pages of 2 KiB = 97976320 bytes
// = 23920 LBAs of 4 KiB (two flash pages each).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "tests/TestSupport.hpp"
#include "vp/flash/FlashArray.hpp"

using namespace vp;
using namespace vp::test;
// host(s) is written test::host(s): with using namespace vp, host also names vp::host.

namespace {
constexpr uint64_t kCapacity = 97976320;  // see above
constexpr uint64_t kLba = 4096;

std::vector<uint8_t> read_all(const std::string& path) {
  std::vector<uint8_t> v;
  FILE* f = fopen(path.c_str(), "rb");
  if (!f) return v;
  fseek(f, 0, SEEK_END);
  v.resize(static_cast<size_t>(ftell(f)));
  fseek(f, 0, SEEK_SET);
  size_t got = fread(v.data(), 1, v.size(), f);
  fclose(f);
  v.resize(got);
  return v;
}

// A file of `size` bytes, a hole except where `image` has non-zero bytes.
void write_image(const std::string& path, const std::vector<uint8_t>& image) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(ftruncate(fd, static_cast<off_t>(image.size())) == 0);
  for (size_t off = 0; off < image.size(); off += kLba) {
    bool zero = std::all_of(image.begin() + off, image.begin() + off + kLba, [](uint8_t c) { return c == 0; });
    if (!zero) REQUIRE(pwrite(fd, image.data() + off, kLba, static_cast<off_t>(off)) == ssize_t(kLba));
  }
  close(fd);
}

uint64_t allocated_bytes(const std::string& path) {
  struct stat st;
  REQUIRE(stat(path.c_str(), &st) == 0);
  return uint64_t(st.st_blocks) * 512;
}

// A byte pattern with no all-zero 2 KiB page: j x 13 mod 256 takes every
// value over any 256 consecutive bytes.
uint8_t pattern(uint64_t lba, uint64_t j) { return static_cast<uint8_t>(lba * 7 + j * 13 + 1); }
void fill_lba(std::vector<uint8_t>& image, uint64_t lba, uint64_t from = 0, uint64_t to = kLba) {
  for (uint64_t j = from; j < to; ++j) image[lba * kLba + j] = pattern(lba, j);
}

// fio verify's block contents as the host's VerifyTracker defines them
// (re-derived here from docs/flash.md: 512-byte units, each a header of the
// magic "FVF1" and the write version, then the unit's number, LBA x 8 + k
// for 4 KiB LBAs, then SplitMix64's finaliser over a seed drawn from both).
uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
void verify_block(uint8_t* p, uint64_t lba, uint32_t version) {
  for (uint64_t k = 0; k < kLba / 512; ++k) {
    uint8_t* u = p + 512 * k;
    const uint64_t unit = lba * (kLba / 512) + k, head = uint64_t(version) << 32 | 0x31465646u;
    std::memcpy(u, &head, 8);
    std::memcpy(u + 8, &unit, 8);
    const uint64_t seed = mix(unit * 0x9e3779b97f4a7c15ULL + version);
    for (uint32_t i = 2; i < 512 / 8; ++i) {
      uint64_t w = mix(seed + i);
      std::memcpy(u + 8 * i, &w, 8);
    }
  }
}

// A scratch folder for one test's image, removed when the test ends (the
// images are about 100 MB each, mostly holes).
struct ImageDir {
  std::string dir;
  explicit ImageDir(const std::string& name) : dir(scratch(name)) {}
  ~ImageDir() { std::system(("rm -rf " + dir).c_str()); }
  std::string image() const { return dir + "/disk.img"; }
};

uint64_t first_difference(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  auto m = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  return static_cast<uint64_t>(m.first - a.begin());
}
}  // namespace

TEST_CASE("the image holds exactly what a write job wrote and is sparse", "[ssd][image]") {
  ImageDir scratch_dir("image-write");
  std::string img = scratch_dir.image();
  // The default preconditioning (a full sequential fill) applies first; the
  // job then writes LBAs 256..271 (1 MiB / 4 KiB = 256, 64 KiB / 4 KiB = 16
  // blocks), in order, so write k carries verify version k + 1.
  auto s = run("quick", {{"ssd.image", img}},
               "[w]\ndirect=1\nrw=write\nbs=4k\noffset=1m\nsize=64k\niodepth=4\nverify=1\n");
  std::vector<uint8_t> expect(kCapacity, 0);
  for (uint64_t k = 0; k < 16; ++k) verify_block(expect.data() + (256 + k) * kLba, 256 + k, uint32_t(k + 1));
  auto got = read_all(img);
  REQUIRE(got.size() == kCapacity);
  CHECK(first_difference(got, expect) == kCapacity);
  // 16 blocks x 2 pages; nothing was there before.
  CHECK(drive(s)["image"]["existed"].get<bool>() == false);
  CHECK(drive(s)["image"]["loaded_pages"].get<uint64_t>() == 0);
  CHECK(drive(s)["image"]["saved_pages"].get<uint64_t>() == 32);
  // 64 KiB of data in a 93 MiB file: the rest is holes.
  CHECK(allocated_bytes(img) < 1024 * 1024);
  CHECK(access((img + ".tmp").c_str(), F_OK) != 0);  // renamed over the image
}

TEST_CASE("a loaded image reads back through the host and saves back unchanged", "[ssd][image]") {
  ImageDir scratch_dir("image-load");
  std::string img = scratch_dir.image();
  // LBAs 100-103, 105 and 107 patterned (2 pages each), LBA 104 zeros, LBA
  // 106 only its second 2 KiB page, and the namespace's last LBA 23919:
  // 6 x 2 + 1 + 2 = 15 pages hold data.
  std::vector<uint8_t> image(kCapacity, 0);
  for (uint64_t lba : {100, 101, 102, 103, 105, 107, 23919}) fill_lba(image, lba);
  fill_lba(image, 106, 2048, kLba);
  write_image(img, image);
  auto s = run("quick", {{"ssd.image", img}, {"ssd.precondition.fill", "0"}},
               "[r]\ndirect=1\nrw=read\nbs=4k\noffset=400k\nsize=32k\niodepth=1\nverify=1\n");
  CHECK(drive(s)["image"]["existed"].get<bool>() == true);
  CHECK(drive(s)["image"]["loaded_pages"].get<uint64_t>() == 15);
  CHECK(drive(s)["ftl"]["loaded_pages"].get<uint64_t>() == 15);
  // Loading took no simulated flash work.
  CHECK(drive(s)["device"]["flash_programs"].get<uint64_t>() == 0);
  // The job reads LBAs 100-107 = 16 pages: 13 mapped ones from flash, 3
  // unmapped ones (LBA 104's two, LBA 106's first) as zeros.
  CHECK(drive(s)["device"]["flash_reads"].get<uint64_t>() == 13);
  CHECK(s["counters"]["ssd.ftl.unmapped_reads"].get<uint64_t>() == 3);
  // The verifier never saw these blocks written, so it expects zeros: all 8
  // are checked and the 7 holding data (all but LBA 104) differ.
  CHECK(test::host(s)["verify"]["blocks_checked"].get<uint64_t>() == 8);
  CHECK(test::host(s)["verify"]["mismatches"].get<uint64_t>() == 7);
  // Through the flash and back: the same bytes.
  CHECK(drive(s)["image"]["saved_pages"].get<uint64_t>() == 15);
  auto got = read_all(img);
  REQUIRE(got.size() == kCapacity);
  CHECK(first_difference(got, image) == kCapacity);
}

TEST_CASE("an image of the wrong size is a configuration error naming both sizes", "[ssd][image]") {
  ImageDir scratch_dir("image-size");
  std::string img = scratch_dir.image();
  std::vector<uint8_t> image(kCapacity - kLba, 0);  // one LBA short: 97976320 - 4096 = 97972224
  write_image(img, image);
  REQUIRE_THROWS_AS(platform::build_config(options("quick", {{"ssd.image", img}})), ConfigError);
  REQUIRE_THROWS_WITH(platform::build_config(options("quick", {{"ssd.image", img}})),
                      Catch::Contains("ssd.image = '" + img + "'") &&
                          Catch::Contains("the file is 97972224 bytes but namespace 1 holds 97976320 bytes "
                                          "(23920 LBAs of 4096 bytes)"));
}

TEST_CASE("pages of zeros in an image stay unmapped and are saved as holes", "[ssd][image]") {
  ImageDir scratch_dir("image-zero");
  std::string img = scratch_dir.image();
  // Zeros really written over the first 4 MiB (not a hole), the rest a hole.
  {
    int fd = open(img.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    std::vector<uint8_t> zeros(4 << 20, 0);
    REQUIRE(pwrite(fd, zeros.data(), zeros.size(), 0) == ssize_t(zeros.size()));
    REQUIRE(ftruncate(fd, kCapacity) == 0);
    close(fd);
  }
  REQUIRE(allocated_bytes(img) >= 4u << 20);
  auto s = run("quick", {{"ssd.image", img}, {"ssd.precondition.fill", "0"}},
               "[r]\ndirect=1\nrw=read\nbs=4k\nsize=64k\niodepth=4\n");
  CHECK(drive(s)["ftl"]["loaded_pages"].get<uint64_t>() == 0);
  CHECK(drive(s)["ftl"]["precondition"]["writes"].get<uint64_t>() == 0);
  CHECK(drive(s)["device"]["flash_programs"].get<uint64_t>() == 0);
  // 64 KiB read = 32 pages, none mapped: no flash read at all.
  CHECK(drive(s)["device"]["flash_reads"].get<uint64_t>() == 0);
  CHECK(s["counters"]["ssd.ftl.unmapped_reads"].get<uint64_t>() == 32);
  CHECK(drive(s)["image"]["saved_pages"].get<uint64_t>() == 0);
  auto got = read_all(img);
  REQUIRE(got.size() == kCapacity);
  CHECK(std::all_of(got.begin(), got.end(), [](uint8_t c) { return c == 0; }));
  CHECK(allocated_bytes(img) == 0);  // written back as one hole
}

TEST_CASE("an image loaded over a full preconditioned drive survives the functional GC it causes", "[ssd][image]") {
  ImageDir scratch_dir("image-gc");
  std::string img = scratch_dir.image();
  // LBAs below 20000 in alternate groups of 8 (b / 8 even): 10000 LBAs =
  // 20000 pages. Logical page l sits on plane l mod 16 at index l / 16, so
  // each plane gets 20000 / 16 = 1250 overwrites of its preconditioned
  // pages, every other run of 16 indices: half of each block it touches.
  // A plane has 64 - ceil(2990 / 64) = 17 free blocks = 1088 pages, fewer
  // than 1250: GC must reclaim half-valid blocks and move pages.
  std::vector<uint8_t> image(kCapacity, 0);
  for (uint64_t b = 0; b < 20000; ++b)
    if ((b / 8) % 2 == 0) fill_lba(image, b);
  write_image(img, image);
  auto s = run("quick", {{"ssd.image", img}}, "[r]\ndirect=1\nrw=read\nbs=4k\nsize=64k\niodepth=4\n");
  CHECK(drive(s)["ftl"]["loaded_pages"].get<uint64_t>() == 20000);
  // 47840 pages laid out by the fill, plus nothing else counted as preconditioning.
  CHECK(drive(s)["ftl"]["precondition"]["writes"].get<uint64_t>() == 47840);
  CHECK(drive(s)["ftl"]["precondition"]["gc_pages_moved"].get<uint64_t>() > 0);
  CHECK(drive(s)["image"]["saved_pages"].get<uint64_t>() == 20000);
  auto got = read_all(img);
  REQUIRE(got.size() == kCapacity);
  CHECK(first_difference(got, image) == kCapacity);
}

TEST_CASE("loaded pages are found again by power-loss recovery from the spare areas", "[ssd][image]") {
  ImageDir scratch_dir("image-power");
  std::string img = scratch_dir.image();
  // LBAs 0-999 patterned (2000 pages); the job writes LBAs 2048-4095 (8-16
  // MiB) until the power goes at 2 ms. No checkpoints: the map comes back
  // from the spare areas alone.
  std::vector<uint8_t> image(kCapacity, 0);
  for (uint64_t b = 0; b < 1000; ++b) fill_lba(image, b);
  write_image(img, image);
  auto s = run("quick", {{"ssd.image", img}, {"ssd.precondition.fill", "0"}, {"ssd.power_loss_at", "2ms"}},
               "[w]\ndirect=1\nrw=randwrite\nbs=4k\noffset=8m\nsize=8m\niodepth=8\nnumber_ios=3000\nverify=1\n");
  CHECK(s["power_loss"]["at_s"].get<double>() == Approx(0.002));
  CHECK(s["power_loss"]["blocks_checked"].get<uint64_t>() > 0);
  CHECK(s["power_loss"]["mismatches"].get<uint64_t>() == 0);
  CHECK(drive(s)["image"]["loaded_pages"].get<uint64_t>() == 2000);
  auto got = read_all(img);
  REQUIRE(got.size() == kCapacity);
  // Everything below the job's region (LBAs 0-2047) is as loaded, and
  // everything above it (from LBA 4096) still zeros.
  std::vector<uint8_t> low(got.begin(), got.begin() + 2048 * kLba), want(image.begin(), image.begin() + 2048 * kLba);
  CHECK(first_difference(low, want) == low.size());
  CHECK(std::all_of(got.begin() + 4096 * kLba, got.end(), [](uint8_t c) { return c == 0; }));
}

TEST_CASE("with a cached map the loaded pages have their translation page on flash", "[ssd][image][map_cache]") {
  ImageDir scratch_dir("image-cmt");
  std::string img = scratch_dir.image();
  // A cached map puts one translation page per 2048 / 4 = 512 logical pages
  // in the same space: 47840 x 512 / 513 = 47746 logical pages (rounded
  // down) = 97783808 bytes = 23873 LBAs of 4 KiB.
  const uint64_t capacity = 97783808;
  std::vector<uint8_t> image(capacity, 0);
  fill_lba(image, 100);  // logical pages 200 and 201: translation page 0
  write_image(img, image);
  auto s = run("quick", {{"ssd.image", img}, {"ssd.precondition.fill", "0"}, {"ssd.ftl.map_cache", "4KiB"}},
               "[r]\ndirect=1\nrw=read\nbs=4k\noffset=400k\nsize=4k\niodepth=1\n");
  CHECK(drive(s)["ftl"]["loaded_pages"].get<uint64_t>() == 2);
  // The read misses translation page 0, which the load wrote: one map read
  // from flash, then the two data pages.
  CHECK(drive(s)["ftl"]["map_cache"]["misses"].get<uint64_t>() == 1);
  CHECK(drive(s)["ftl"]["map_cache"]["page_reads"].get<uint64_t>() == 1);
  CHECK(drive(s)["device"]["flash_reads"].get<uint64_t>() == 3);
  auto got = read_all(img);
  REQUIRE(got.size() == capacity);
  CHECK(first_difference(got, image) == capacity);
}

TEST_CASE("a functional copy on the flash keeps the page data and takes the new spare area", "[ssd][image][flash]") {
  // What functional GC (preconditioning, loading) uses to move a page.
  Config cfg = model_config("quick", {}, {});
  StatRegistry stats;
  Waves waves;
  RequestTracker tracker;
  Services svc{cfg, stats, waves, tracker, 1};
  flash::FlashArray fa("flash", svc);
  std::vector<uint8_t> page(2048), got(2048, 0xEE);
  for (size_t j = 0; j < page.size(); ++j) page[j] = pattern(3, j);
  fa.preload_page(10, flash::FlashOob{5, 1}, page.data());
  fa.preload_copy(10, 20, flash::FlashOob{5, 2});
  flash::FlashOob o;
  CHECK(fa.peek(20, got.data(), &o));
  CHECK(got == page);
  CHECK(o.lpn == 5);
  CHECK(o.seq == 2);
  // Without data a preloaded page reads as zeros.
  fa.preload_page(30, flash::FlashOob{6, 1});
  CHECK(fa.peek(30, got.data(), nullptr));
  CHECK(std::all_of(got.begin(), got.end(), [](uint8_t c) { return c == 0; }));
}
