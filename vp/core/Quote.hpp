// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// User input echoed in a message: control bytes and bytes that are not
// UTF-8 escaped as \xNN, so a binary file cannot reach the terminal raw,
// and a long value cut short, so a 100 KB value gives a short message.
#include <cstddef>
#include <string>
#include <string_view>

namespace vp {

// Offset of the first byte of `v` that does not start or continue a valid
// UTF-8 sequence (overlong forms and surrogates included); npos if none.
size_t invalid_utf8(std::string_view v);
// `v` with control and non-UTF-8 bytes escaped (\n, \t, \xNN).
std::string printable(std::string_view v);
// 'v' printable, shortened after `max` bytes: 'abc...' (100000 bytes).
std::string quoted(std::string_view v, size_t max = 64);

}  // namespace vp
