// SPDX-License-Identifier: BSD-3-Clause
#include "vp/core/InputFile.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "vp/core/Quote.hpp"

namespace vp {

std::string read_input_file(const std::string& path, const std::string& what) {
  std::string shown = printable(path);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(fmt::format("{}: is a folder, not a {}", shown, what));
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(fmt::format("{}: cannot read {}: {}", shown, what, std::strerror(errno)));
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) throw InputError(fmt::format("{}: error reading {}", shown, what));
  return ss.str();
}

}  // namespace vp
