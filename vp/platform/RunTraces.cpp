// SPDX-License-Identifier: BSD-3-Clause
#include "vp/platform/RunTraces.hpp"

#include <cstring>
#include <filesystem>
#include <fmt/format.h>

#include "vp/platform/OutputFolder.hpp"

namespace vp::platform {

std::string RunTraces::check() {
  if (failed_ || (!requests && !waves_.enabled())) return "";
  if (requests && requests->error()) {
    failed_ = true;
    return fmt::format("writing the trace {} failed: {}; the run stops here and the partial trace is removed",
                       requests->path(), std::strerror(requests->error()));
  }
  if (const Timeline* t = waves_.timeline(); t && t->error()) {
    failed_ = true;
    return fmt::format("writing the trace {} failed: {}; the run stops here and the partial trace is removed",
                       t->path(), std::strerror(t->error()));
  }
  // statfs is cheap, but a chunk can be microseconds of wall time.
  auto now = std::chrono::steady_clock::now();
  if (now < next_disk_check_) return "";
  next_disk_check_ = now + std::chrono::milliseconds(250);
  uint64_t avail = OutputFolder::free_bytes(out_dir_);
  if (avail >= OutputFolder::kReserveBytes) return "";
  // Name the trace that has grown the most.
  std::error_code ec;
  std::string name;
  uint64_t largest = 0;
  const std::string rq = requests ? requests->temp_path() : "";
  const std::string tl = waves_.timeline() ? waves_.timeline()->temp_path() : "";
  for (const auto& [path, shown] :
       {std::pair{rq, std::string("requests.csv")}, std::pair{waves_.temp_path(), std::string("waves.vcd")},
        std::pair{tl, std::string("timeline.json")}}) {
    if (path.empty()) continue;
    uint64_t size = std::filesystem::file_size(path, ec);
    if (!ec && size >= largest) {
      largest = size;
      name = shown;
    }
  }
  failed_ = true;
  return fmt::format("the disk holding {} has {} KiB left while tracing ({} is {} MiB): the run stops here so "
                     "summary.json fits, and the partial traces are removed",
                     out_dir_, avail >> 10, name, largest >> 20);
}

}  // namespace vp::platform
