// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The SSD's logical contents kept in a raw image file between runs
// (<drive>.image, ssd.image for the first drive), so that a guest's filesystem survives a restart. Byte i of
// the file is byte i of namespace 1, as in QEMU's raw format.
//
// If the file exists when the run starts, it is loaded into the FTL before
// simulated time starts (after preconditioning): each page holding anything
// but zeros is written as preconditioning's overwrites are; pages of zeros
// stay unmapped, since an unwritten or trimmed page reads as zeros anyway.
// At the end of the run, what a host read would return is written back:
// into FILE.tmp, renamed over FILE once complete, so a crash leaves the old
// image. Both ways are sparse (holes and zero pages are skipped, only the
// map chunks changed since boot are visited), so a mostly empty image of a
// large namespace costs little time.
#include <nlohmann/json.hpp>
#include <string>

#include "vp/core/Config.hpp"
#include "vp/core/Param.hpp"
#include "vp/core/ParamScope.hpp"
#include "vp/ssd/ftl/PageMappingFtl.hpp"

namespace vp::ssd {

class SsdImage {
 public:
  // `image` in the drive's scope.
  static void declare_params(const ParamScope& drive);
  // Before elaboration: an existing file must be a regular file of exactly
  // `capacity` bytes (the namespace), readable and writable, and its folder
  // writable. Throws ConfigError naming the drive's image key otherwise.
  static void check(const ScopedConfig& drive, uint64_t capacity);

  // Loads the file (if the drive's image is set and the file exists) when
  // `ftl` starts, through its at_start hook. `capacity`: the namespace's bytes.
  SsdImage(const ScopedConfig& drive, PageMappingFtl& ftl, uint64_t capacity);

  bool enabled() const { return !path_.empty(); }
  const std::string& path() const { return path_; }
  // Writes the namespace's current contents to the file. Only after the
  // load ran: an image never loaded must not be overwritten with zeros.
  void save();

  struct Transfer {
    uint64_t pages = 0;  // logical pages holding data, read or written
    double wall_s = 0;
  };
  bool existed() const { return existed_; }
  const Transfer& loaded() const { return load_; }
  const Transfer& saved() const { return save_; }
  nlohmann::json summary() const;

 private:
  void load();

  ScopedConfig cfg_;
  PageMappingFtl& ftl_;
  std::string path_;
  uint64_t capacity_;
  bool started_ = false, existed_ = false, saved_once_ = false;
  Transfer load_, save_;
};

}  // namespace vp::ssd
