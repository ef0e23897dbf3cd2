// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the fio job parser says of a job file: its error, or "" when it parses.
#include <string>

#include "vp/host/workload/FioJob.hpp"

namespace vp::test {

inline std::string fio_parse_message(const std::string& text) {
  try {
    host::parse_fio(text, "t.fio");
  } catch (const host::FioError& e) {
    return e.what();
  }
  return {};
}

}  // namespace vp::test
