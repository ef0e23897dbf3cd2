// SPDX-License-Identifier: BSD-3-Clause
#include "vp/core/AtomicFile.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <unistd.h>

namespace vp {

AtomicFile::AtomicFile(std::string path)
    : path_(std::move(path)), temp_(fmt::format("{}.tmp-{}", path_, static_cast<long>(getpid()))) {}

AtomicFile::~AtomicFile() {
  if (out_.is_open()) out_.close();
  if (!committed_) std::remove(temp_.c_str());
}

std::ostream& AtomicFile::out() {
  if (!out_.is_open()) {
    out_.open(temp_, std::ios::binary | std::ios::trunc);
    if (!out_) throw OutputError(fmt::format("cannot write {}: {}", path_, std::strerror(errno)));
  }
  return out_;
}

void AtomicFile::commit() {
  if (out_.is_open()) {
    out_.flush();
    bool ok = bool(out_);
    out_.close();
    if (!ok || out_.fail()) throw OutputError(fmt::format("cannot write {}: the write failed", path_));
  }
  if (std::rename(temp_.c_str(), path_.c_str()) != 0)
    throw OutputError(fmt::format("cannot write {}: {}", path_, std::strerror(errno)));
  committed_ = true;
}

void AtomicFile::write(const std::string& path, const std::function<void(std::ostream&)>& content) {
  AtomicFile f(path);
  content(f.out());
  f.commit();
}

}  // namespace vp
