// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The folder a run writes into, claimed before the simulation starts, so an
// output problem costs no simulated time: created if missing, writable,
// with room for config.yaml and summary.json, not holding an earlier run
// (unless --overwrite), and not in use by another run. The last is an
// exclusive flock on .vp-server.lock inside it, held while this object
// lives; the kernel releases it however the process ends (a crash, kill -9),
// so a stale lock file never blocks a later run.
#include <cstdint>
#include <string>

namespace vp::platform {

class OutputFolder {
 public:
  static constexpr const char* kLockName = ".vp-server.lock";
  // Room checked for before the run: config.yaml and summary.json with
  // every counter and distribution (a few hundred KiB), with a margin.
  static constexpr uint64_t kReserveBytes = 8ull << 20;

  OutputFolder() = default;  // no folder: the run writes nothing
  // `out` empty: a new numbered folder under `parent` (vp-out/001, ...;
  // `parent`/latest links to it). Throws ConfigError naming --out and the
  // problem.
  static OutputFolder claim(const std::string& out, bool overwrite, const std::string& parent = "vp-out");
  OutputFolder(OutputFolder&& o) noexcept;
  OutputFolder& operator=(OutputFolder&& o) noexcept;
  OutputFolder(const OutputFolder&) = delete;
  OutputFolder& operator=(const OutputFolder&) = delete;
  ~OutputFolder();  // removes the lock file and releases the lock

  const std::string& path() const { return path_; }
  // The run was refused before writing its outputs: the lock is released,
  // and a folder claim() created for it (--out naming a new folder) is
  // removed if it holds nothing.
  void abandon();
  // Bytes free to this user on the folder's file system (max if unknown).
  static uint64_t free_bytes(const std::string& dir);

 private:
  void lock(const std::string& option);
  void release();
  std::string path_;
  int fd_ = -1;
  bool created_ = false;  // by claim(), for --out
};

}  // namespace vp::platform
