// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A block I/O trace to replay: the reads and writes of an MSR Cambridge CSV
// trace, of blkparse's default text output or of a fio iolog (version 2 or
// 3), as records with their time from the first record, byte offset and
// size. Parsing and mapping into a job's region only; FioJobRunner replays.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace vp::host {

enum class TraceFormat { Auto, Msr, Blkparse, Iolog };
// How trace offsets are placed in the job's region (see BlockTrace::fit).
enum class ReplayFit { None, Scale, Wrap };

const char* trace_format_name(TraceFormat f);
const char* replay_fit_name(ReplayFit f);

struct TraceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct TraceRecord {
  uint64_t time_ps = 0;  // from the first replayed record; never below the record before
  bool write = false;
  uint64_t offset = 0;  // bytes
  uint64_t bytes = 0;
  size_t line = 0;  // in the trace file, for error messages
};

class BlockTrace {
 public:
  // `origin` names the trace in errors ("trace.csv:12: ..."). Auto detects
  // the format from the first non-empty line.
  static BlockTrace parse(const std::string& text, const std::string& origin, TraceFormat format = TraceFormat::Auto);
  static BlockTrace load(const std::string& path, TraceFormat format = TraceFormat::Auto);  // names the path if unreadable
  // The format a first non-empty line belongs to, Auto if none fits.
  static TraceFormat detect(const std::string& first_line);

  const std::vector<TraceRecord>& records() const { return records_; }
  const std::string& origin() const { return origin_; }
  TraceFormat format() const { return format_; }
  // Entries that are not reads or writes (sync, trim, discard, file actions,
  // other blkparse events), counted but not replayed.
  uint64_t skipped() const { return skipped_; }
  uint64_t extent() const { return extent_; }       // highest offset + bytes
  uint64_t max_bytes() const { return max_bytes_; }  // largest record, before LBA rounding

  // The records placed in a region of `region_bytes` (offsets relative to its
  // start), each widened to whole LBAs (offset down, end up):
  //   None:  a record beyond the region is an error naming its line;
  //   Scale: when the trace's extent exceeds the region, offsets are
  //          multiplied by region/extent (a trace that fits is kept as is);
  //   Wrap:  offsets modulo the region.
  // Under Scale and Wrap an I/O that would cross the region's end is moved
  // back to end there. An I/O larger than the region is always an error.
  std::vector<TraceRecord> fit(uint64_t region_bytes, uint32_t lba_size, ReplayFit mode) const;

 private:
  std::string origin_;
  TraceFormat format_ = TraceFormat::Auto;
  std::vector<TraceRecord> records_;
  uint64_t skipped_ = 0, extent_ = 0, max_bytes_ = 0;
};

}  // namespace vp::host
