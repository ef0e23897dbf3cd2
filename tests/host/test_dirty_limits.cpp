// SPDX-License-Identifier: BSD-3-Clause
// Linux 4.9's dirty limits (mm/page-writeback.c, mm/page_alloc.c), worked
// by hand.
#include <catch2/catch.hpp>

#include "vp/host/mm/DirtyLimits.hpp"
#include "vp/host/mm/HostMemoryMap.hpp"

using vp::host::DirtyLimits;

TEST_CASE("dirty ratios become parts of 4096 of the dirtyable pages, as Linux computes them", "[host][pagecache]") {
  // 20% -> 20 x 4096 / 100 = 819 parts; 655,360 pages (2.5 GiB) x 819 / 4096
  // = 131,040, not 131,072; 10% -> 409 parts: 65,440.
  DirtyLimits l(655360, 10, 20);
  CHECK(l.hard() == 131040);
  CHECK(l.background() == 65440);
  // A background ratio at or above the hard one falls to half of the hard limit.
  DirtyLimits same(1024, 20, 20);
  CHECK(same.hard() == 204);  // 819 x 1024 / 4096 = 204.75
  CHECK(same.background() == 102);
  // A tiny cache still blocks writers at one page.
  CHECK(DirtyLimits(3, 1, 2).hard() == 1);
}

TEST_CASE("the kernel's reserve of a 4 GiB host is 9,502 pages", "[host][pagecache]") {
  // 2.75 GiB below the PCI hole, 1.25 GiB above: zones DMA 4,096 pages,
  // DMA32 716,800, Normal 327,680 (1,048,576 in all). min_free_kbytes =
  // sqrt(16 x 4,194,304 KiB) = 8,192 KiB = 2,048 pages, shared by size:
  //   DMA    min 8,     step max(2, 4) = 4,       high 16;    lowmem 1,044,480 / 256 = 4,080 -> 4,096 (its size)
  //   DMA32  min 1,400, step max(350, 716) = 716, high 2,832; lowmem 327,680 / 256 = 1,280  -> 4,112
  //   Normal min 640,   step max(160, 327) = 327, high 1,294                                 -> 1,294
  vp::host::HostMemoryMap map(4ull << 30);
  CHECK(DirtyLimits::reserve_pages(map.low_bytes(), map.high_bytes()) == 9502);
  // 256 MiB: one zone of DMA (4,096 pages) and DMA32 (61,440); min_free_kbytes
  // sqrt(16 x 262,144) = 2,048 KiB = 512 pages.
  //   DMA    min 32,  step max(8, 4) = 8,     high 48;  lowmem 61,440 / 256 = 240 -> 288
  //   DMA32  min 480, step max(120, 61) = 120, high 720                          -> 720
  CHECK(DirtyLimits::reserve_pages(256ull << 20, 0) == 1008);
}
