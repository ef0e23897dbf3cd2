// SPDX-License-Identifier: BSD-3-Clause
#include "vp/platform/OutputFolder.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <limits>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "vp/core/Config.hpp"
#include "vp/core/Quote.hpp"

namespace vp::platform {

namespace fs = std::filesystem;

OutputFolder OutputFolder::claim(const std::string& out, bool overwrite, const std::string& parent) {
  OutputFolder f;
  std::error_code ec;
  try {
    if (!out.empty()) {
      const std::string opt = "--out " + vp::quoted(out);
      if (fs::exists(out, ec) && !fs::is_directory(out, ec))
        throw ConfigError(fmt::format("{}: exists and is not a folder", opt));
      f.created_ = !fs::exists(out, ec);
      fs::create_directories(out, ec);
      if (ec) throw ConfigError(fmt::format("{}: cannot create the folder: {}", opt, ec.message()));
      f.path_ = out;
      f.lock(opt);
      // Checked under the lock: a run that has just ended is seen whole.
      for (const char* name : {"summary.json", "config.yaml"})
        if (!overwrite && fs::is_regular_file(fs::path(out) / name, ec))
          throw ConfigError(fmt::format("{} holds an earlier run ({}): give another folder, or add --overwrite to "
                                        "replace it",
                                        opt, name));
    } else {
      fs::create_directories(parent, ec);
      if (ec) throw ConfigError(fmt::format("cannot create the output folder {}: {}", vp::quoted(parent), ec.message()));
      // create_directory claims a number atomically: two runs started together
      // get different folders.
      for (unsigned n = 1;; ++n) {
        std::string name = fmt::format("{:03}", n);
        fs::path dir = fs::path(parent) / name;
        if (fs::create_directory(dir, ec)) {
          f.path_ = dir.string();
          f.lock("output folder " + vp::quoted(f.path_));
          fs::path link = fs::path(parent) / "latest", tmp = fs::path(parent) / fmt::format(".latest.{}", getpid());
          fs::remove(tmp, ec);
          fs::create_directory_symlink(name, tmp, ec);
          if (!ec) fs::rename(tmp, link, ec);  // replaces the old link in one step
          break;
        }
        if (ec)
          throw ConfigError(fmt::format("cannot create the output folder {}: {}", vp::quoted(dir.string()), ec.message()));
      }
    }
    uint64_t avail = free_bytes(f.path_);
    if (avail < kReserveBytes)
      throw ConfigError(fmt::format("{}: only {} KiB free on its file system; a run needs {} MiB for config.yaml and "
                                    "summary.json",
                                    out.empty() ? "output folder " + vp::quoted(f.path_) : "--out " + vp::quoted(out),
                                    avail >> 10, kReserveBytes >> 20));
  } catch (...) {  // refused: a folder made for this run goes again
    f.abandon();
    throw;
  }
  return f;
}

void OutputFolder::lock(const std::string& option) {
  const std::string file = (fs::path(path_) / kLockName).string();
  for (;;) {
    int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw ConfigError(fmt::format("{}: cannot write there: {}", option, std::strerror(errno)));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      char buf[32] = {};
      ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
      ::close(fd);
      std::string pid = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
      while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
      throw ConfigError(fmt::format("{} is in use by another run{}: wait for it to end, or give another folder",
                                    option, pid.empty() ? "" : " (process " + pid + ")"));
    }
    // The run that held it may have removed the file between our open and
    // our lock: then the lock is on a name no one else will open. Retry.
    struct stat held {}, named {};
    if (::fstat(fd, &held) == 0 && ::stat(file.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
        held.st_dev == named.st_dev) {
      std::string pid = fmt::format("{}\n", static_cast<long>(getpid()));
      if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
        int err = errno;
        ::close(fd);
        throw ConfigError(fmt::format("{}: cannot write there: {}", option, std::strerror(err)));
      }
      fd_ = fd;
      return;
    }
    ::close(fd);
  }
}

void OutputFolder::release() {
  if (fd_ < 0) return;
  // Removed while still locked, so no later run locks the old file.
  ::unlink((fs::path(path_) / kLockName).c_str());
  ::close(fd_);
  fd_ = -1;
}

OutputFolder::OutputFolder(OutputFolder&& o) noexcept : path_(std::move(o.path_)), fd_(o.fd_), created_(o.created_) {
  o.fd_ = -1;
  o.created_ = false;
}

OutputFolder& OutputFolder::operator=(OutputFolder&& o) noexcept {
  if (this != &o) {
    release();
    path_ = std::move(o.path_);
    fd_ = o.fd_;
    created_ = o.created_;
    o.fd_ = -1;
    o.created_ = false;
  }
  return *this;
}

OutputFolder::~OutputFolder() { release(); }

void OutputFolder::abandon() {
  release();
  std::error_code ec;
  if (created_ && fs::is_empty(path_, ec)) fs::remove(path_, ec);
  created_ = false;
}

uint64_t OutputFolder::free_bytes(const std::string& dir) {
  struct statvfs v {};
  if (::statvfs(dir.c_str(), &v) != 0) return std::numeric_limits<uint64_t>::max();
  return static_cast<uint64_t>(v.f_bavail) * v.f_frsize;
}

}  // namespace vp::platform
