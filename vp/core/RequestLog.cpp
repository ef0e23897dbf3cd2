// SPDX-License-Identifier: BSD-3-Clause
#include "vp/core/RequestLog.hpp"

#include <cerrno>
#include <fmt/format.h>
#include <stdexcept>

#include "vp/core/StagePath.hpp"

namespace vp {

RequestLog::RequestLog(const std::string& path) : file_(path), f_(std::fopen(file_.temp_path().c_str(), "w")) {
  if (!f_) throw OutputError("cannot write " + path);
  // Each stage's time, then when it ended, both in a read's path order.
  std::string head = "job,op,lba,bytes,sqid,cid,commands,status,attr,result,issue_ps,latency_ps";
  for (Stage st : stage_path(false)) head += fmt::format(",{}_ps", stage_name(st));
  for (Stage st : stage_path(false)) head += fmt::format(",{}_end_ps", stage_name(st));
  head += "\n";
  std::fputs(head.c_str(), f_);
}

RequestLog::~RequestLog() {
  if (f_) std::fclose(f_);
}

void RequestLog::close() {
  if (!f_) return;  // discarded
  bool ok = std::fflush(f_) == 0 && !std::ferror(f_);
  ok = std::fclose(f_) == 0 && ok;
  f_ = nullptr;
  if (!ok) throw OutputError("cannot write " + file_.path() + ": the write failed");
  file_.commit();
}

void RequestLog::write(const Row& r) {
  fmt::memory_buffer b;
  const char* op = r.op();
  fmt::format_to(std::back_inserter(b), "{},{},{},{},{},{},", r.job, op, r.lba, r.bytes, r.sqid, r.cid);
  for (size_t i = 0; i < r.commands.count; ++i)
    fmt::format_to(std::back_inserter(b), i ? " {}" : "{}", r.commands.serials[i]);
  fmt::format_to(std::back_inserter(b), ",{},{},{},{},{}", r.status, r.attr, r.result, r.issued, r.done - r.issued);
  // The stages' times, then their ends; a stage that did not occur is empty in both.
  for (const auto* column : {&r.clock.spent, &r.clock.ended})
    for (Stage st : stage_path(false)) {
      auto i = static_cast<size_t>(st);
      if (r.clock.ended[i])
        fmt::format_to(std::back_inserter(b), ",{}", (*column)[i]);
      else
        b.push_back(',');
    }
  b.push_back('\n');
  if (std::fwrite(b.data(), 1, b.size(), f_) != b.size() && !error_) error_ = errno ? errno : EIO;
}

void RequestLog::discard() {
  if (f_) std::fclose(f_);
  f_ = nullptr;
}

}  // namespace vp
