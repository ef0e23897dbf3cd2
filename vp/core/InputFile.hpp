// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The whole of a file the user named (configuration, fio job file, block
// trace). A folder opens as an empty stream, which would pass for an empty
// input, so it is refused; every error names the path, escaped, and why.
#include <stdexcept>
#include <string>

namespace vp {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// `what` names the kind of file in messages: "path: cannot read fio job file: ...".
std::string read_input_file(const std::string& path, const std::string& what);

}  // namespace vp
