// SPDX-License-Identifier: BSD-3-Clause
// Hooks: every subscriber is called, in the order it subscribed.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "vp/core/Hook.hpp"

TEST_CASE("a hook calls every subscriber in subscription order and a second does not replace the first", "[core][hook]") {
  vp::Hook<int, const std::string&> h;
  CHECK_FALSE(h);
  h(1, "nobody listens");  // no subscriber: nothing happens
  std::vector<std::string> seen;
  h.subscribe([&](int v, const std::string& s) { seen.push_back("a" + std::to_string(v) + s); });
  h.subscribe([&](int v, const std::string& s) { seen.push_back("b" + std::to_string(v) + s); });
  CHECK(h);
  CHECK(h.subscribers() == 2);
  h(7, "x");
  h(8, "y");
  CHECK(seen == std::vector<std::string>{"a7x", "b7x", "a8y", "b8y"});
}
