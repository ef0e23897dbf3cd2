// SPDX-License-Identifier: BSD-3-Clause
#include "vp/core/Quote.hpp"

#include <fmt/format.h>

namespace vp {

namespace {
// Length of the valid UTF-8 sequence at v[i], 0 if there is none.
size_t utf8_length(std::string_view v, size_t i) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(v[k]); };
  unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (n == 0 || i + n > v.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((b(i + k) & 0xC0) != 0x80) return 0;
  unsigned char c1 = b(i + 1);
  if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F) || (c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F))
    return 0;  // overlong, surrogate, beyond U+10FFFF
  return n;
}
}  // namespace

size_t invalid_utf8(std::string_view v) {
  for (size_t i = 0; i < v.size();) {
    size_t n = utf8_length(v, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

std::string printable(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (size_t i = 0; i < v.size();) {
    size_t n = utf8_length(v, i);
    unsigned char c = static_cast<unsigned char>(v[i]);
    if (n > 1) {
      out.append(v.substr(i, n));
      i += n;
      continue;
    }
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (n == 1 && c >= 0x20 && c != 0x7F)
      out += char(c);
    else
      out += fmt::format("\\x{:02x}", c);
    ++i;
  }
  return out;
}

std::string quoted(std::string_view v, size_t max) {
  if (v.size() <= max) return "'" + printable(v) + "'";
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(v[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
  return fmt::format("'{}...' ({} bytes)", printable(v.substr(0, cut)), v.size());
}

}  // namespace vp
