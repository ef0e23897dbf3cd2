// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Every option of fio's HOWTO (and FlashVP's own job options), each in one of
// three classes: modelled; accepted because it cannot change a simulated
// result; refused with the reason. The parser consults it for any option it
// does not model, and docs/reference/fio-options.md is generated from it.
#include <vector>
#include <string>
#include <string_view>

namespace vp::host {

enum class FioSupport { Modelled, Accepted, Refused };

struct FioOptionInfo {
  std::string_view name;
  FioSupport support;
  // Modelled: what FlashVP does with it (one sentence); Accepted: why it
  // cannot change a simulated result; Refused: why the model cannot honour it.
  std::string_view why;
  // The HOWTO section it is listed under ("I/O type", "Block size", ...), or
  // "FlashVP" for the VP's own options.
  std::string_view section;
  // fio's other spellings of the same option, space-separated ("" if none).
  std::string_view aliases = {};
};

const std::vector<FioOptionInfo>& fio_options();  // in the HOWTO's order
// By name or alias; nullptr for a name fio does not have.
const FioOptionInfo* find_fio_option(std::string_view name);
const char* fio_support_name(FioSupport s);  // "modelled", "accepted", "refused"
// The table as a Markdown page body (one table per HOWTO section).
std::string fio_options_markdown();

}  // namespace vp::host
