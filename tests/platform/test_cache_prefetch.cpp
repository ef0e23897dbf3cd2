// SPDX-License-Identifier: BSD-3-Clause
// Read-ahead with reads in flight: a sequential reader that keeps several
// reads outstanding finds the pages it needs already on their way and waits
// for them instead of reading them again, so a 128-page prefetch reads each
// page from flash once and is never slower than no prefetch.
#include <catch2/catch.hpp>

#include "tests/TestSupport.hpp"

using namespace vp::test;

namespace {
// 64 MiB read sequentially in 4 KiB reads on the quick preset through a
// 16 MiB uni cache: 32,768 pages of 2 KiB.
nlohmann::json sequential(unsigned qd, unsigned prefetch) {
  return run_server("prefetch-" + std::to_string(qd) + "-" + std::to_string(prefetch), "quick",
                    {{"ssd.cache.organisation", "uni"},
                     {"ssd.cache.size", "16MiB"},
                     {"ssd.cache.prefetch_pages", std::to_string(prefetch)}},
                    "[s]\ndirect=1\nrw=read\nbs=4k\nsize=64m\niodepth=" + std::to_string(qd) + "\n");
}
constexpr uint64_t kPages = 64ull << 20 >> 11;  // 32,768

void reads_each_page_once(unsigned qd) {
  INFO("iodepth " << qd);
  auto none = sequential(qd, 0), ahead = sequential(qd, 128);
  // Without prefetch every page is read once, by its own miss.
  CHECK(none["counters"]["ssd.ftl.page_reads"] == kPages);
  CHECK(none["counters"]["ssd.flash.reads"] == kPages);
  // With it, the cache layer reads each page of the region once, plus what
  // the last windows prefetched past the region's end: the prefetched pages
  // no read used, fewer than one window of 128. Before reads waited for
  // fills in flight, QD8 read 354,026 pages from flash (10.8 x).
  const auto& c = ahead["counters"];
  uint64_t prefetched = c["ssd.cache.prefetched_pages"].get<uint64_t>();
  uint64_t overrun = prefetched - c["ssd.cache.prefetch_hits"].get<uint64_t>();
  CHECK(overrun < 128);
  CHECK(c["ssd.ftl.page_reads"].get<uint64_t>() == kPages + overrun);
  CHECK(c["ssd.flash.reads"].get<uint64_t>() <= kPages + overrun);
  CHECK(c["ssd.cache.inflight_hits"].get<uint64_t>() > 0);
  // Not slower: at QD32 both reach the platform's ceiling of about 222,000
  // 4 KiB reads a second (910 MB/s) and differ only in the last digits.
  CHECK(ahead["jobs"][0]["bandwidth_MBps"].get<double>() >=
        0.9999 * none["jobs"][0]["bandwidth_MBps"].get<double>());
}
}  // namespace

TEST_CASE("a 128-page prefetch at QD8 reads each page from flash once and is not slower than none",
          "[platform][cache][prefetch]") {
  reads_each_page_once(8);
}

TEST_CASE("a 128-page prefetch at QD32 reads each page from flash once and is not slower than none",
          "[platform][cache][prefetch]") {
  reads_each_page_once(32);
}
