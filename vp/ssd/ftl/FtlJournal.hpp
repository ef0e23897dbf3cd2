// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Journaling and recovery of the page-mapping FTL. Each page's spare area
// records its logical page and a write sequence number (the writers put it
// there); a periodic checkpoint saves the parts of the map and of the block
// table changed since the last one to reserved blocks, a circular log
// written one page at a time. After a power loss the map is rebuilt from
// the last committed checkpoint plus a scan of the spare areas of the blocks
// written or erased since, newest copy winning.
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <vector>

#include "vp/core/Counter.hpp"
#include "vp/core/ParamScope.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/ssd/ftl/FtlState.hpp"

namespace vp::ssd {

class FtlJournal : public flash::FlashClient {
 public:
  // checkpoint_* in the FTL's scope (ssd.ftl).
  static void declare_params(const ParamScope& ftl);
  // Blocks per plane the checkpoints take from the data blocks.
  static uint32_t reserved_blocks(const ScopedConfig& ftl);

  FtlJournal(FtlState& s, const ScopedConfig& ftl, const StatGroup& stats);
  ~FtlJournal() override;

  // The run starts: the first checkpoint (of what preconditioning left) and the timer.
  void start();
  // No host request is at the FTL any more: a checkpoint paused for it goes on.
  void host_idle();
  void power_loss();
  // A host program (write sequence `seq`) is on flash.
  void host_program_done(uint32_t seq);
  // Rebuilds the map and the blocks from flash, as at boot.
  void recover();
  uint64_t recoveries() const { return recoveries_.value; }
  bool checkpointing() const { return pending_ != nullptr; }  // one taken, not yet committed
  // Blocks the last recovery read page by page (the others: from the
  // checkpoint's block table and the map, or known erased).
  uint64_t scanned_blocks() const { return scanned_; }
  void report(nlohmann::json& j) const { j["checkpoints"] = ckpts_.value; }

  void flash_done(flash::FlashTransaction& t) override;

 private:
  struct Checkpoint;
  // A block as a checkpoint saved it: Full is full with no program in
  // flight, so unchanged until its next erase; rule_pages, pages [0, n)
  // laid out by preconditioning's rule (the map's layout).
  struct BlockRecord {
    enum Kind : uint8_t { Free, Busy, Full, Meta };
    uint32_t erases = 0, rule_pages = 0;
    Kind kind = Free;
    bool operator==(const BlockRecord& o) const {
      return erases == o.erases && rule_pages == o.rule_pages && kind == o.kind;
    }
  };
  static constexpr uint64_t kBlockChunk = 256;
  BlockRecord record_now(uint64_t block) const;
  BlockRecord record_before(uint64_t block) const;  // as preconditioning left it
  BlockRecord saved(const Checkpoint& cp, uint64_t block) const;
  uint64_t save_blocks(Checkpoint& cp);  // returns the records changed
  void recover_from_checkpoint();
  void recover_from_spare_areas();

  void start_timer();
  void take_checkpoint(bool timed);
  void step();
  void commit();

  FtlState& s_;
  Tick interval_;
  bool when_idle_;
  // What survives a power loss besides the flash: the last committed checkpoint.
  std::unique_ptr<Checkpoint> ckpt_, pending_;
  std::vector<uint64_t> blocks_;  // the reserved blocks, in log order
  uint64_t cursor_ = 0, todo_ = 0;
  flash::FlashTransaction txn_;
  bool erased_ = false, paused_ = false;
  bool written_ = false;  // the pending checkpoint's pages are on flash; host programs it waits for are not
  Counter &ckpts_, &ckpt_pages_, &recoveries_, &replayed_;
  uint64_t scanned_ = 0;
  // After a recovery: the fill's blocks that the flash still holds as filled.
  bool still_filled(uint64_t block) const;
  struct StillFilled : flash::FillRule {
    explicit StillFilled(const FtlJournal* journal) : j(journal) {}
    const FtlJournal* j;
    flash::BlockFill fill_of(uint64_t block) const override;
  } still_filled_{this};
  uint64_t adopt_fill(std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>>& newest, uint32_t& top);
};

}  // namespace vp::ssd
