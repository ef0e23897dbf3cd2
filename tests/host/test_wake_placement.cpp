// SPDX-License-Identifier: BSD-3-Clause
// WakePlacement: where a waking thread runs, case by case from Linux 4.9's
// select_task_rq_fair (wake_affine, then select_idle_sibling).
#include <catch2/catch.hpp>

#include "vp/host/sched/WakePlacement.hpp"

using vp::host::CoreLoad;
using vp::host::WakePlacement;

namespace {
// 8 cores in two cache domains of 4 (0-3, 4-7); every core busy with one
// thread unless a test frees it.
std::vector<CoreLoad> busy8() { return std::vector<CoreLoad>(8, CoreLoad{false, 1}); }
const std::vector<unsigned> kAny;
}  // namespace

TEST_CASE("a thread whose own core is idle wakes there", "[host][sched][migration]") {
  WakePlacement p(8, 4);
  auto c = busy8();
  c[2] = {true, 0};
  CHECK(p.place(2, 2, c, kAny) == 2);
}

TEST_CASE("an empty waking core takes the thread (wake_affine)", "[host][sched][migration]") {
  WakePlacement p(8, 4);
  auto c = busy8();
  c[5] = {true, 0};  // the interrupt's core, on the other socket, has nothing runnable
  CHECK(p.place(1, 5, c, kAny) == 5);
  // Not allowed there: the thread stays with its previous core, which is busy
  // and has no idle sibling, so it queues there.
  CHECK(p.place(1, 5, c, {0, 1, 2, 3}) == 1);
}

TEST_CASE("a loaded waker takes the thread only when its previous core is busier by the margin",
          "[host][sched][migration]") {
  WakePlacement p(8, 4);
  auto c = busy8();
  // Waker 1 runnable, previous 1: 100 x (1 + 1) > 108.5 x 1: stays with the previous core.
  CHECK(p.place(0, 4, c, kAny) == 0);
  // Previous 2: 200 <= 217: the waker's core.
  c[0] = {false, 2};
  CHECK(p.place(0, 4, c, kAny) == 4);
  // Waker 2, previous 3: 100 x 3 <= 108.5 x 3: the waker's.
  c[4] = {false, 2};
  c[0] = {false, 3};
  CHECK(p.place(0, 4, c, kAny) == 4);
  // Waker 3, previous 3: 100 x 4 > 108.5 x 3: the previous.
  c[4] = {false, 3};
  CHECK(p.place(0, 4, c, kAny) == 0);
}

TEST_CASE("a busy target gives way to the idle previous core of the same cache, else the next idle sibling",
          "[host][sched][migration]") {
  WakePlacement p(8, 4);
  auto c = busy8();
  c[2] = {true, 0};  // an empty waker: the target, and idle
  CHECK(p.place(3, 2, c, kAny) == 2);
  // The waker has nothing runnable but is busy (background work): the
  // target, not idle; the previous core is idle and shares its cache.
  c = busy8();
  c[0] = {false, 0};
  c[1] = {true, 0};
  c[2] = {true, 0};
  CHECK(p.place(1, 0, c, kAny) == 1);
  // Target 2 busy, previous 1 busy: the first idle core after 2 in its
  // domain, wrapping: 3 is busy, so 0.
  c = busy8();
  c[0] = {true, 0};
  c[6] = {true, 0};  // idle, but in the other domain
  CHECK(p.place(2, 2, c, kAny) == 0);
  // A previous core idle in the other domain is not taken for a target here.
  c = busy8();
  c[3] = {false, 2};  // waker 3 busier than previous 5 (100 x 3 > 108.5 x 1): target 5, busy
  c[5] = {false, 1};
  c[7] = {true, 0};
  CHECK(p.place(5, 3, c, kAny) == 7);
}

TEST_CASE("with no idle core the thread queues on the target, and disallowed idle cores are skipped",
          "[host][sched][migration]") {
  WakePlacement p(8, 4);
  auto c = busy8();
  CHECK(p.place(6, 6, c, kAny) == 6);
  c[7] = {true, 0};
  CHECK(p.place(6, 6, c, {4, 5, 6}) == 6);
  CHECK(p.place(6, 6, c, {6, 7}) == 7);
}

TEST_CASE("llc_cores 0 makes every core one cache domain", "[host][sched][migration]") {
  WakePlacement p(8, 0);
  auto c = busy8();
  c[7] = {true, 0};
  CHECK(p.place(0, 0, c, kAny) == 7);
  CHECK(p.share_cache(0, 7));
  WakePlacement q(8, 4);
  CHECK_FALSE(q.share_cache(3, 4));
  CHECK(q.place(0, 0, c, kAny) == 0);
}
