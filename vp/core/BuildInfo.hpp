// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What built this binary, for outputs a program can trace back to a source
// tree (the definition is generated at build time, cmake/GitRevision.cmake).

namespace vp {

// git describe of the source tree at build time ("...-dirty" with
// uncommitted changes), or "unknown".
const char* build_revision();

// summary.json's layout version: raised when a key is renamed or removed or
// changes meaning (adding keys does not raise it).
// 2: sections grouped by part (host, drives, accelerators, switches).
// 3: a job's breakdown_us only for the directions it did (no sections of
// zeros), stages in path order, stage cache_wait.
inline constexpr int kSummarySchemaVersion = 3;

}  // namespace vp
