// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// requests.csv: one row per completed I/O with its latency, the time it
// spent in each stage (they add up to the latency) and when each stage
// ended (picoseconds of simulated time; both empty when a stage did not
// occur), stages in a read's path order, and the serial numbers of the
// device commands it became (space separated: several for a split I/O;
// merged I/Os share one).
#include <cstdio>
#include <string>

#include "vp/core/AtomicFile.hpp"
#include "vp/core/RequestRecord.hpp"

namespace vp {

class RequestLog {
 public:
  // Rows go to a temporary beside `path`, which appears there at close().
  explicit RequestLog(const std::string& path);
  ~RequestLog();
  void close();
  // Ends it without publishing it: the partial temporary is removed.
  void discard();
  // errno of the first write that failed (a full disk, a file-size limit), 0 if none.
  int error() const { return error_; }
  const std::string& path() const { return file_.path(); }
  const std::string& temp_path() const { return file_.temp_path(); }
  struct Commands {
    const uint64_t* serials;
    size_t count;
  };
  struct Row {
    const std::string& job;
    bool write;
    uint64_t lba;
    uint32_t bytes;
    uint16_t sqid, cid, status;
    uint8_t attr;     // workload attribute as the device decoded it
    uint32_t result;  // device-reported completion field (buffer status)
    Tick issued, done;
    const StageClock& clock;
    Commands commands;
    bool flush = false;  // an NVMe Flush (op "flush", no data)
    bool trim = false;   // a deallocate (op "trim", no data)
    const char* op() const { return flush ? "flush" : trim ? "trim" : write ? "write" : "read"; }
  };
  void write(const Row& r);

 private:
  AtomicFile file_;
  std::FILE* f_;
  int error_ = 0;
};

}  // namespace vp
