// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What a cache organisation does with written data, the second slot of the
// cache layer beside its CachePolicy (which places pages). The caches
// (uni, uni-dyn, split) write back on replacement and Flush, their copies
// bounded by the drive's write buffer (WriteBackCache); the write buffers are classes of their own,
// chosen once at elaboration: BulkFlushBuffer (the conventional buffer
// FastDrain CAL'20 compares with: a bulk of dirty data flushed when a write
// finds it full), FastDrainBuffer (FastDrain sec. 3.2: a level kept under
// watermarks by background and foreground drains, and writes held while the
// buffer's DRAM is full) and BurstBuffer (DeepFlash FAST'20 sec. 4.3: direct
// mapped, a write whose entry is still being evicted goes to the FTL). They
// leave read misses uncached.
#include <cstdint>

#include "vp/ssd/cache/CacheTags.hpp"
#include "vp/ssd/SsdInterfaces.hpp"
#include "vp/ssd/buffer/WriteBufferLevel.hpp"

namespace vp::ssd {

// Who asked for a page to be written to the FTL: FastDrain's background or
// foreground drain, a conventional buffer's bulk flush, or none of them
// (replacement, Flush, write-through).
enum class CacheDrain : uint8_t { None, Background, Foreground, Bulk };

// What a write-buffer policy may ask of the cache layer it is plugged into.
class CacheLines {
 public:
  virtual ~CacheLines() = default;
  // Writes the dirty `line` to the FTL and keeps it, clean.
  virtual void drain_line(int64_t line, CacheDrain mode) = 0;
  // Whether host work of the layer (misses, pass-downs, write-throughs) is at the FTL.
  virtual bool host_work_at_ftl() const = 0;
  // A write the policy held (admit() false) goes in now.
  virtual void write_now(FtlRequest& r) = 0;
};

class WriteBufferPolicy {
 public:
  virtual ~WriteBufferPolicy() = default;
  // Whether read misses are installed (the write buffers leave them out).
  virtual bool caches_reads() const { return true; }
  // A host write arrives: false if the policy holds it for now (it calls
  // CacheLines::write_now when it may go).
  virtual bool admit(FtlRequest& /*r*/) { return true; }
  // A written page's miss picked `line` to replace: true if the page must go
  // to the FTL instead.
  virtual bool bypass(int64_t /*line*/) { return false; }
  // A written page's miss is about to replace `line` (after bypass()).
  virtual void replacing(int64_t /*line*/) {}
  // A clean line became dirty.
  virtual void dirtied(int64_t /*line*/) {}
  // A dirty line was replaced; its page's write to the FTL is `seq`.
  virtual void replaced_dirty(int64_t /*line*/, uint64_t /*seq*/) {}
  // A page write to the FTL was queued / is on flash; `buffered`: a line's
  // copy (part of the buffer until then).
  virtual void write_queued(bool /*buffered*/, CacheDrain /*mode*/) {}
  virtual void write_done(uint64_t /*lpn*/, uint64_t /*seq*/, bool /*buffered*/, CacheDrain /*mode*/) {}
  // A host write is in the cache.
  virtual void after_write(const FtlRequest& /*r*/) {}
  // Dirty lines or copies in flight changed.
  virtual void changed() {}
  // Space freed: held writes may go.
  virtual void resume() {}
  // The status a completion reports (false: none; the FTL's stands).
  virtual bool status(uint32_t& /*out*/) const { return false; }
  virtual const WriteBufferLevel* level() const { return nullptr; }
  // summary.json's "write_buffer" (null: nothing to report).
  virtual nlohmann::json summary() const { return level() ? level()->summary() : nlohmann::json(); }
};

}  // namespace vp::ssd
