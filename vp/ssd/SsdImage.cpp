// SPDX-License-Identifier: BSD-3-Clause
#include "vp/ssd/SsdImage.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "vp/core/Quote.hpp"

namespace vp::ssd {

namespace fs = std::filesystem;

namespace {
constexpr uint64_t kIoBytes = 1 << 20;  // one read or write call moves at most this much

bool all_zero(const uint8_t* p, size_t n) { return p[0] == 0 && std::memcmp(p, p + 1, n - 1) == 0; }

std::string sys_error(const std::string& what, const std::string& path) {
  return fmt::format("ssd.image: {} {}: {}", what, vp::quoted(path), std::strerror(errno));
}

[[noreturn]] void size_mismatch(const ScopedConfig& cfg, uint64_t size, uint64_t capacity) {
  uint64_t lba = cfg.get_size("nvme.lba_size");
  cfg.fail("image", fmt::format("the file is {} bytes but namespace 1 holds {} bytes ({} LBAs of {} bytes); give "
                                    "an image of exactly that size, or a new file name to start from an empty drive",
                                    size, capacity, capacity / lba, lba));
}

// The file the image lives in: a symbolic link's target, so saving replaces
// the target and keeps the link.
std::string resolved(const std::string& path) {
  std::error_code ec;
  if (fs::is_symlink(path, ec)) {
    fs::path t = fs::canonical(path, ec);
    if (!ec) return t.string();
  }
  return path;
}

// Reads exactly n bytes at off.
void read_at(int fd, uint8_t* buf, uint64_t n, uint64_t off, const std::string& path) {
  while (n > 0) {
    ssize_t got = pread(fd, buf, n, static_cast<off_t>(off));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) throw std::runtime_error(got < 0 ? sys_error("cannot read", path)
                                                   : fmt::format("ssd.image: {} ended early", vp::quoted(path)));
    buf += got;
    off += static_cast<uint64_t>(got);
    n -= static_cast<uint64_t>(got);
  }
}

void write_at(int fd, const uint8_t* buf, uint64_t n, uint64_t off, const std::string& path) {
  while (n > 0) {
    ssize_t put = pwrite(fd, buf, n, static_cast<off_t>(off));
    if (put < 0 && errno == EINTR) continue;
    if (put < 0) throw std::runtime_error(sys_error("cannot write", path));
    buf += put;
    off += static_cast<uint64_t>(put);
    n -= static_cast<uint64_t>(put);
  }
}

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};
}  // namespace

void SsdImage::declare_params(const ParamScope& r) {
  r.string("image", "",
           "raw image file of namespace 1 (byte i of the file = byte i of the namespace), so the drive's contents "
           "survive a restart: loaded before the run if it exists (after preconditioning, which still applies: "
           "the image's non-zero pages are written over the preconditioned drive), written back sparse at the end "
           "(empty: no image)");
}

void SsdImage::check(const ScopedConfig& cfg, uint64_t capacity) {
  std::string path = cfg.get_string("image");
  if (path.empty()) return;
  struct stat st;
  if (stat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) cfg.fail("image", "not a regular file");
    if (uint64_t(st.st_size) != capacity) size_mismatch(cfg, uint64_t(st.st_size), capacity);
    if (access(path.c_str(), R_OK | W_OK) != 0)
      cfg.fail("image", fmt::format("the file cannot be read and written: {}", std::strerror(errno)));
  } else if (errno != ENOENT) {
    cfg.fail("image", std::strerror(errno));
  }
  fs::path dir = fs::path(resolved(path)).parent_path();
  if (dir.empty()) dir = ".";
  if (access(dir.c_str(), W_OK) != 0)
    cfg.fail("image", fmt::format("the image is written into {} at the end of the run, and that folder is not "
                                      "writable: {}",
                                      vp::quoted(dir.string()), std::strerror(errno)));
}

SsdImage::SsdImage(const ScopedConfig& cfg, PageMappingFtl& ftl, uint64_t capacity)
    : cfg_(cfg), ftl_(ftl), path_(cfg.get_string("image")), capacity_(capacity) {
  if (capacity_ % ftl_.page_size() != 0 || capacity_ > ftl_.logical_pages() * uint64_t(ftl_.page_size()))
    throw std::logic_error("SsdImage: the namespace is not a whole number of the FTL's logical pages");
  if (enabled()) ftl_.at_start([this] { load(); });
}

void SsdImage::load() {
  started_ = true;
  auto wall0 = std::chrono::steady_clock::now();
  Fd f{open(path_.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) {
    if (errno == ENOENT) return;  // a new image: the drive starts empty
    throw std::runtime_error(sys_error("cannot open", path_));
  }
  existed_ = true;
  struct stat st;
  if (fstat(f.fd, &st) != 0) throw std::runtime_error(sys_error("cannot stat", path_));
  uint64_t size = uint64_t(st.st_size);
  if (size != capacity_) size_mismatch(cfg_, size, capacity_);
  const uint64_t page = ftl_.page_size();
  std::vector<uint8_t> buf(kIoBytes / page * page);
  // Only the data extents are read: holes are zeros. A file system without
  // SEEK_DATA gives the whole file as one extent.
  uint64_t pos = 0;
  while (pos < size) {
    off_t data = lseek(f.fd, static_cast<off_t>(pos), SEEK_DATA);
    if (data < 0 && errno == ENXIO) break;  // only a hole is left
    if (data < 0) data = static_cast<off_t>(pos);
    off_t hole = lseek(f.fd, data, SEEK_HOLE);
    uint64_t end = hole < 0 ? size : std::min<uint64_t>(size, (uint64_t(hole) + page - 1) / page * page);
    for (uint64_t off = uint64_t(data) / page * page; off < end;) {
      uint64_t n = std::min<uint64_t>(buf.size(), end - off);
      read_at(f.fd, buf.data(), n, off, path_);
      for (uint64_t k = 0; k < n; k += page) {
        if (all_zero(buf.data() + k, page)) continue;
        ftl_.load_page((off + k) / page, buf.data() + k);
        ++load_.pages;
      }
      off += n;
    }
    pos = end;
  }
  load_.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
}

void SsdImage::save() {
  if (!enabled()) return;
  if (!started_) throw std::logic_error("SsdImage: saved before the FTL started (the image was never loaded)");
  auto wall0 = std::chrono::steady_clock::now();
  std::string target = resolved(path_), tmp = target + ".tmp";
  struct stat old;
  mode_t mode = stat(target.c_str(), &old) == 0 ? (old.st_mode & 07777) : 0644;
  Fd f{open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)};
  if (f.fd < 0) throw std::runtime_error(sys_error("cannot create", tmp));
  // The whole namespace as a hole, then the pages holding data, consecutive
  // ones in one write.
  if (ftruncate(f.fd, static_cast<off_t>(capacity_)) != 0) throw std::runtime_error(sys_error("cannot size", tmp));
  const uint64_t page = ftl_.page_size();
  std::vector<uint8_t> run(kIoBytes / page * page);
  uint64_t first = 0, len = 0;  // the run of pages gathered: first lpn, bytes
  auto flush = [&] {
    if (len) write_at(f.fd, run.data(), len, first * page, tmp);
    len = 0;
  };
  save_.pages = 0;
  ftl_.for_each_written(capacity_ / page, [&](uint64_t lpn) {
    if (len == run.size() || (len && lpn != first + len / page)) flush();
    uint8_t* slot = run.data() + len;
    ftl_.debug_read(lpn, slot);
    if (all_zero(slot, page)) return;  // a page written with zeros stays a hole
    if (len == 0) first = lpn;
    len += page;
    ++save_.pages;
  });
  flush();
  if (fsync(f.fd) != 0) throw std::runtime_error(sys_error("cannot sync", tmp));
  if (close(f.fd) != 0) {
    f.fd = -1;
    throw std::runtime_error(sys_error("cannot close", tmp));
  }
  f.fd = -1;
  if (rename(tmp.c_str(), target.c_str()) != 0) throw std::runtime_error(sys_error("cannot rename over", target));
  saved_once_ = true;
  save_.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
}

nlohmann::json SsdImage::summary() const {
  nlohmann::json j;
  j["file"] = path_;
  j["existed"] = existed_;
  j["loaded_pages"] = load_.pages;
  j["load_wall_s"] = load_.wall_s;
  if (saved_once_) {
    j["saved_pages"] = save_.pages;
    j["save_wall_s"] = save_.wall_s;
  }
  return j;
}

}  // namespace vp::ssd
