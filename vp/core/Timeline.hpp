// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// timeline.json (--trace perfetto): the run as Chrome's Trace Event Format,
// which ui.perfetto.dev and chrome://tracing open. Every signal the model
// registers with Waves becomes a track: a busy flag a thread of slices (one
// per busy interval), a count a counter; the signal's group is the process
// that holds it. Each completed I/O is a slice on a lane of its SQ's process
// ("read lba N", issue to completion) with a child slice per stage, lanes
// taken lowest free first so the slices of one lane never overlap.
//
// Times are picoseconds in the model; the format's ts and dur are
// microseconds, written with six decimals so every picosecond survives.
// Events go to the file as they happen (in no particular time order, which
// the format allows) under a temporary name, renamed by close().
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "vp/core/AtomicFile.hpp"
#include "vp/core/RequestLog.hpp"
#include "vp/core/Units.hpp"

namespace vp {

class Timeline {
 public:
  explicit Timeline(const std::string& path);
  ~Timeline();
  Timeline(const Timeline&) = delete;
  Timeline& operator=(const Timeline&) = delete;

  // Where a signal's process is listed: first (the host cores), right after
  // the requests (the NVMe queues), or with the other resources in the
  // order registered; a process keeps the place of its first track.
  enum class Place : uint8_t { First, AfterRequests, Resources };
  // A thread of slices named `name` in the process named `group` (a new
  // one at every call: two components may register the same name).
  uint32_t thread(const std::string& group, const std::string& name, Place place = Place::Resources);
  // A counter `name` in the process `group` (repeated names get #2, #3).
  uint32_t counter(const std::string& group, const std::string& name, Place place = Place::Resources);
  // The thread first registered as `name`, -1 if none.
  int find_thread(const std::string& name) const;

  void slice(uint32_t thread, const char* name, Tick start, Tick end);
  void count(uint32_t counter, Tick t, uint64_t value);
  // A busy interval booked ahead (BusySignal), as a slice: held until the
  // thread's next interval, which ends it early if it starts before its end
  // (a tenure cut short), or the end of the run.
  void interval(uint32_t thread, Tick start, Tick end);

  // A completed I/O of the host block device `dev` (0: /dev/nvme0n1), on a lane of its
  // SQ; `core_thread` >= 0: the host core's thread that took the completion,
  // linked to it by a flow arrow ending in a marker slice there.
  void request(const RequestLog::Row& r, unsigned dev, int core_thread);

  // Ends every slice still open at `now`, then the file; `publish`: it takes
  // its name (throws OutputError if it could not be written), else the
  // partial temporary is removed.
  void close(Tick now, bool publish);
  // errno of the first write that failed, 0 if none.
  int error() const { return error_; }
  const std::string& path() const { return file_.path(); }
  const std::string& temp_path() const { return file_.temp_path(); }

 private:
  struct Held {
    Tick start = 0, end = 0;
    bool set = false;
  };
  struct Sq {
    uint32_t pid = 0;
    std::vector<Tick> lane_end;  // the latest end of the requests on each lane
    std::vector<uint32_t> lane_tid;
  };
  uint32_t process(const std::string& name, uint32_t sort);
  static uint32_t sort_of(Place place);
  uint32_t new_thread(uint32_t pid, const std::string& name);
  void emit(const char* data, size_t size);
  void meta(const char* what, uint32_t pid, uint32_t tid, const std::string& name, int64_t sort);

  AtomicFile file_;
  std::FILE* f_;
  int error_ = 0;
  bool first_ = true;
  std::map<std::string, uint32_t> pids_;  // process by name
  uint32_t next_pid_ = 1, next_tid_ = 100000;  // apart: a tid equal to a pid is that process's main thread
  std::vector<std::pair<uint32_t, uint32_t>> threads_;  // (pid, tid) by thread handle
  std::vector<Held> held_;                              // by thread handle
  std::unordered_map<std::string, uint32_t> thread_by_name_;
  struct Counter {
    uint32_t pid;
    std::string name;
  };
  std::vector<Counter> counters_;
  std::map<std::pair<uint32_t, std::string>, unsigned> counter_names_;
  std::map<uint32_t, Sq> sqs_;  // by drive << 16 | sqid
  uint64_t flows_ = 0;
};

}  // namespace vp
