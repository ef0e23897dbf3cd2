// SPDX-License-Identifier: BSD-3-Clause
// Quoting user input for messages: UTF-8 checks, escapes, shortening.
#include <catch2/catch.hpp>
#include <string>

#include "vp/core/Quote.hpp"

using vp::invalid_utf8;
using vp::printable;
using vp::quoted;

TEST_CASE("invalid_utf8 finds the first byte that is not UTF-8", "[core][quote]") {
  CHECK(invalid_utf8("plain") == std::string::npos);
  CHECK(invalid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") == std::string::npos);  // é, €, an emoji
  CHECK(invalid_utf8("j\xff\xfe") == 1);
  CHECK(invalid_utf8("ab\xc3") == 2);              // cut short
  CHECK(invalid_utf8("\xc0\x80") == 0);            // overlong NUL
  CHECK(invalid_utf8("x\xed\xa0\x80") == 1);       // a surrogate
  CHECK(invalid_utf8("\xf4\x90\x80\x80") == 0);    // beyond U+10FFFF
  CHECK(invalid_utf8("\xe2\x28\xa1") == 0);        // not a continuation byte
}

TEST_CASE("printable escapes control bytes and bytes that are not UTF-8", "[core][quote]") {
  CHECK(printable("a\nb\tc") == "a\\nb\\tc");
  CHECK(printable(std::string("\x1b[31m\x7f\x00", 7)) == "\\x1b[31m\\x7f\\x00");
  CHECK(printable("j\xff\xfe") == "j\\xff\\xfe");
  CHECK(printable("caf\xc3\xa9") == "caf\xc3\xa9");  // text stays as it is
}

TEST_CASE("quoted shortens long values and says how long they were", "[core][quote]") {
  CHECK(quoted("4k") == "'4k'");
  CHECK(quoted("") == "''");
  CHECK(quoted(std::string(64, 'x')) == "'" + std::string(64, 'x') + "'");
  CHECK(quoted(std::string(100000, 'x')) == "'" + std::string(64, 'x') + "...' (100000 bytes)");
  CHECK(quoted(std::string(10, 'x'), 4) == "'xxxx...' (10 bytes)");
  // The cut falls before a character, not inside it: 'a' then 31 two-byte é.
  std::string e;
  for (int i = 0; i < 40; ++i) e += "\xc3\xa9";
  std::string cut;
  for (int i = 0; i < 31; ++i) cut += "\xc3\xa9";
  CHECK(quoted("a" + e) == "'a" + cut + "...' (81 bytes)");
  CHECK(quoted(std::string(100, '\x01'), 2) == "'\\x01\\x01...' (100 bytes)");
}
