// SPDX-License-Identifier: BSD-3-Clause
// The guest's XLER driver (sw/guest/xler/flashvp_xler.c, a Linux module in
// C) writes the accelerator's registers by its own #defines: each one must
// say what the model's map (vp/accel/AccelRegs.hpp) says, or the guest
// drives a device that is not there.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <regex>
#include <string>

#include "vp/accel/AccelRegs.hpp"

namespace regs = vp::accel::regs;

namespace {
// The module's object-like and function-like macros: name -> body.
std::map<std::string, std::string> module_defines() {
  std::ifstream in(std::string(VP_SOURCE_DIR) + "/sw/guest/xler/flashvp_xler.c");
  REQUIRE(in);
  std::map<std::string, std::string> d;
  const std::regex def(R"(^#define\s+([A-Z_0-9]+)(\([a-z]\))?\s+(.+?)\s*$)");
  std::smatch m;
  for (std::string line; std::getline(in, line);)
    if (std::regex_match(line, m, def)) d[m[1]] = m[3];
  return d;
}
// A body made of one number, "(a << b)", "(a + b * (q))", "(a + (q) * b)" or "(NAME + b)",
// with C's suffixes and casts: its value for argument q.
uint64_t value(const std::map<std::string, std::string>& d, const std::string& name, uint64_t q = 0) {
  auto it = d.find(name);
  INFO("#define " << name);
  REQUIRE(it != d.end());
  std::string e = std::regex_replace(it->second, std::regex(R"(\(u64\)|ULL|UL|\s)"), "");
  std::smatch m;
  auto num = [&](const std::string& s) { return d.count(s) ? value(d, s) : std::stoull(s, nullptr, 0); };
  const std::string n = R"(([0-9A-Za-z_]+))";
  if (std::regex_match(e, m, std::regex("^" + n + "$"))) return num(m[1]);
  if (std::regex_match(e, m, std::regex(R"(^\()" + n + "<<" + n + R"(\)$)"))) return num(m[1]) << num(m[2]);
  if (std::regex_match(e, m, std::regex(R"(^\()" + n + R"(\+)" + n + R"(\*\(q\)\)$)")) ||
      std::regex_match(e, m, std::regex(R"(^\()" + n + R"(\+\(q\)\*)" + n + R"(\)$)")))
    return num(m[1]) + num(m[2]) * q;
  if (std::regex_match(e, m, std::regex(R"(^\()" + n + R"(\+)" + n + R"(\)$)"))) return num(m[1]) + num(m[2]);
  FAIL("cannot read #define " << name << " " << it->second);
  return 0;
}
}  // namespace

TEST_CASE("the guest XLER module's register map is the accelerator model's", "[accel][guest-module]") {
  const auto d = module_defines();
  CHECK(value(d, "XLER_VENDOR") == regs::VENDOR_ID);
  CHECK(value(d, "XLER_DEVICE") == regs::DEVICE_ID);
  const std::pair<const char*, uint64_t> registers[] = {
      {"BIO_OP", regs::BIO_OP},       {"BIO_SLBA", regs::BIO_SLBA},       {"BIO_BYTES", regs::BIO_BYTES},
      {"BIO_SEGS", regs::BIO_SEGS},   {"BIO_NSEG", regs::BIO_NSEG},       {"BIO_TAG", regs::BIO_TAG},
      {"BIO_QUEUE", regs::BIO_QUEUE}, {"BIO_GO", regs::BIO_GO},           {"QSEL", regs::QSEL},
      {"Q_SQ_DOORBELL", regs::Q_SQ_DOORBELL}, {"Q_CQ_DOORBELL", regs::Q_CQ_DOORBELL},
      {"Q_ENTRIES", regs::Q_ENTRIES}, {"Q_VECTOR", regs::Q_VECTOR},       {"Q_ENABLE", regs::Q_ENABLE},
      {"LBA_SHIFT", regs::LBA_SHIFT}, {"MAX_TRANSFER", regs::MAX_TRANSFER}, {"NSID", regs::NSID},
      {"DONE_VALID", regs::DONE_VALID}, {"DONE_MORE", regs::DONE_MORE},  {"CQ_OFFSET", regs::CQ_OFFSET},
      {"MAX_QUEUES", regs::kMaxQueues}, {"MAX_PRP_ENTRIES", regs::kMaxPrpEntries},
      {"MAX_SEGS", regs::kMaxSegs},   {"SEG_BYTES", regs::SEG_BYTES}};
  for (const auto& [name, model] : registers) {
    INFO(name);
    CHECK(value(d, name) == model);
  }
  for (uint32_t q : {0u, 1u, regs::kMaxQueues - 1}) {
    INFO("queue " << q);
    CHECK(value(d, "DONE_Q", q) == regs::DONE_Q(q));
    CHECK(value(d, "QUEUE_WINDOW", q) == regs::queue_window(q));
  }
  // The module's queues fit the model's: entries and the PRP lists' slots.
  CHECK(value(d, "ENTRIES") >= 2);
  CHECK(value(d, "ENTRIES") <= regs::kMaxEntries);
}
