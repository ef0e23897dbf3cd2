// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// FlashShare's I/O-stack accelerator (XLER, OSDI'18 sec. 4.3, Figures 7
// and 10): a PCIe function of its own beside the SSD. Its driver writes a
// bio's fields into BAR registers and a "go"; the accelerator reads the
// bio's segment list from host memory, searches the LBA CAM of the target
// SQ and either merges the bio into an entry the SSD has not fetched yet
// (adjacent LBAs, same direction, within the largest transfer and the PRP
// rule) or composes a new 64-byte NVMe command at the SQ tail, and rings the
// SSD's doorbell peer to peer. The SQs, CQs and PRP lists live in the
// accelerator's BAR (the paper's BAR1): the SSD fetches commands from it, so
// the status bitmap clears exactly when an entry is fetched, and the
// barrier (the MUX between the merge logic and the SSD's fetch) makes a
// fetch that meets a merge wait for it. The SSD posts completions into the
// same window, where the CQ logic sees each entry as it lands (an event on
// the write, no tick), completes the bios the command carried into the DONE
// FIFO, rings the SSD's CQ head doorbell and raises MSI-X to the host: one
// message per bio, or per command (accel.irq_per).
//
// The segment list is read as a bio is latched, ahead of the merge logic
// (its DMA works while the merge logic serves earlier bios), so bios given
// in a burst meet each other's commands in the CAM. A bio overlapping a command not yet completed (where merging cannot keep
// both buffers) waits for that command, as does a bio for a full SQ or for a
// tail slot whose command the SSD fetched and has not completed (its
// command id is still in use). Timing
// parameters are the accelerator's pipeline at accel.clock; see
// declare_params for the basis.
#include <cstdint>
#include <deque>
#include <nlohmann/json.hpp>
#include <vector>

#include "vp/accel/AccelRegs.hpp"
#include "vp/accel/SqCam.hpp"
#include "vp/core/Event.hpp"
#include "vp/core/ParamScope.hpp"
#include "vp/core/Services.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/pcie/PciFunction.hpp"
#include "vp/pcie/PcieLink.hpp"

namespace vp::accel {

class IoAccelerator : public pcie::PciFunction {
 public:
  static constexpr const char* kScope = "accel";
  // Timing and interrupt policy in `scope`; the PCI function's identity in `pci_scope`.
  static void declare_params(const ParamScope& scope, const ParamScope& pci_scope);
  IoAccelerator(sc_core::sc_module_name name, Services& svc, const pcie::LinkTiming& link,
                const std::string& scope = kScope, const std::string& pci_scope = "accel.pci");

  nlohmann::json summary() const;
  // What a core spinning on DONE_Q(q) would see at its next read, so that
  // a polling driver is simulated as waits rather than reads (as
  // HostDram::written() for polled CQs): whether a completed bio of queue
  // `q` waits, and the event of one more being completed.
  bool done_waiting(uint32_t q) const { return q < q_.size() && !q_[q].done.empty(); }
  const Event& done_changed() const { return done_changed_; }

 private:
  struct Bio {
    bool write = false;
    uint64_t slba = 0, segs_addr = 0;
    uint32_t bytes = 0, nseg = 0, tag = 0, queue = 0;
  };
  struct Pending {
    Bio bio;
    std::vector<BioSeg> segs;
    Tick ready = 0;     // its segment list is in by then
    bool bad = false;   // the segment list could not be read
  };
  struct Queue {
    bool on = false;
    uint32_t entries = 0, tail = 0, head = 0, cq_head = 0;
    bool phase = true;
    uint64_t sq_doorbell = 0, cq_doorbell = 0;
    uint16_t vector = 0;
    SqCam cam{0};
    std::vector<uint8_t> sq, cq;
    std::vector<uint64_t> prp;
    std::deque<Pending> held;  // waiting for a hazard or for room
    Tick barrier_until = 0;    // the merge logic holds the SQ until then
    bool reaping = false;
    std::deque<std::pair<uint64_t, uint64_t>> done;  // completed bios: (serial, DONE value)
  };

  uint64_t bar_read(uint32_t off, unsigned len) override;
  void bar_write(uint32_t off, uint64_t v, unsigned len) override;
  bool in_memory(uint64_t off, unsigned len) const override;
  void memory_read(uint64_t off, uint8_t* p, unsigned len, sc_core::sc_time& delay) override;
  void memory_write(uint64_t off, const uint8_t* p, unsigned len) override;
  void device_reset(pcie::PciConfigSpace::Reset) override;

  void queue_register(uint32_t off, uint64_t v);
  void next();  // the merge logic takes the next bio
  Pending latch();  // the go write: the bio's registers latched, its segment list read
  void place(Pending p);
  bool segments_ok(const std::vector<BioSeg>& segs, uint32_t bytes) const;
  // PRP1 and PRP2 for `segs`, writing slot `slot`'s PRP list when needed; the list's entries.
  uint32_t build_prps(Queue& q, uint32_t slot, const std::vector<BioSeg>& segs, uint64_t& prp1, uint64_t& prp2);
  void write_sqe(Queue& q, uint32_t slot);
  void ring(uint64_t doorbell, uint32_t value);  // a peer-to-peer doorbell write, now
  void cq_landed(uint32_t qid, uint64_t at, const uint8_t* p, unsigned len);  // a completion entry arrived
  void reap(uint32_t qid);
  void finish_bio(uint32_t qid, uint32_t tag, uint16_t status, uint16_t slot);
  uint32_t oldest_done() const;  // the queue whose completed bio is the oldest
  uint64_t pop_done(uint32_t qid);
  void retry_held(Queue& q);
  void count_valid();
  uint32_t pages(const std::vector<BioSeg>& segs) const;

  ScopedConfig cfg_;
  StatGroup stats_;
  Tick t_register_, t_cam_, t_merge_, t_compose_, t_prp_entry_, t_poll_;
  bool irq_per_bio_;
  std::vector<Queue> q_;
  uint32_t qsel_ = 0, lba_shift_ = 12, max_transfer_ = 128 * 1024, nsid_ = 1;
  Bio latch_;
  std::deque<Pending> in_;  // bios latched (segment lists being read), waiting for the merge logic
  bool working_ = false;
  uint64_t done_serial_ = 0;
  Event done_changed_;
  // Traced: CAM entries written and not fetched (all queues); the merge
  // logic, not the SSD's fetch, owns an SQ (the barrier's MUX).
  uint64_t cam_valid_ = 0;
  bool barrier_merge_ = false;
  Tick barrier_release_ = 0;
  uint64_t in_flight_ = 0;
  // The statistics it registers, named in its scope (a group, as gem5's).
  struct Stats {
    explicit Stats(const StatGroup& stats);
    Counter &bios, &commands, &merges, &cam_hits, &barrier_waits, &barrier_wait_ps, &polls, &irqs,
        &hazard_waits, &full_waits, &errors;
  };
  Stats st_;
};

}  // namespace vp::accel
