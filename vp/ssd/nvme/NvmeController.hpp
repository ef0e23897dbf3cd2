// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// NVMe controller (NVM Express base specification 1.4): BAR0 registers,
// doorbells and the MSI-X table behind a PCIe target socket, the PCI
// configuration space behind another, a DMA initiator socket towards host
// memory. Admin commands are executed here; I/O commands are checked, their
// data moved by PRPs, and handed to firmware. Submission queues are chosen by
// `SqArbiter` (round robin, weighted round robin with urgent class, or
// FlashShare's priority SQ, per CC.AMS) and fetched in batches; completions
// are written with their phase tag and signalled through `NvmeInterrupts`.
// Malformed commands and register writes get the status or asynchronous
// event a real controller returns.
#include <array>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "vp/core/EventQueue.hpp"
#include "vp/core/Hook.hpp"
#include "vp/core/Services.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/core/TimeAverage.hpp"
#include "vp/pcie/PciFunction.hpp"
#include "vp/pcie/PcieLink.hpp"
#include "vp/ssd/nvme/DataDmaQueue.hpp"
#include "vp/ssd/nvme/NvmeInterrupts.hpp"
#include "vp/nvme/NvmeSpec.hpp"
#include "vp/ssd/nvme/PrpList.hpp"
#include "vp/ssd/nvme/SqArbiter.hpp"
#include "vp/ssd/SsdInterfaces.hpp"

namespace vp::ssd {

class NvmeAdminCommands;
class NvmeIoCommands;

class NvmeController : public pcie::PciFunction, public FirmwareClient {
 public:
  sc_core::sc_port<IFirmware> fw;
  // The SSD DRAM the data is staged in on its way between host and flash.
  // Optional: unbound (unit rigs), data moves without DRAM time.
  sc_core::sc_port<ISsdDram, 1, sc_core::SC_ZERO_OR_MORE_BOUND> dram;

  // Parameters relative to the controller's scope (the drive's: ssd.nvme);
  // its PCI function's (identity, interrupt capabilities) are declared by
  // PciConfigSpace in a scope of their own (ssd.pci).
  static constexpr const char* kScope = "ssd.nvme";  // the platform's drive's controller
  static void declare_params(const ParamScope& reg);
  // `link`: what the link the platform attaches it to supports (the PCI
  // Express capability advertises it). Statistics are named in `scope` too.
  NvmeController(sc_core::sc_module_name name, Services& svc, const pcie::LinkTiming& link, const std::string& scope,
                 const std::string& pci_scope);
  ~NvmeController() override;

  void firmware_issued(HostCommand& c) override;
  void firmware_done(HostCommand& c) override;
  uint64_t namespace_lbas() const;
  // The staging region: one MDTS-sized buffer per command slot
  // (ssd.nvme.max_outstanding x 4 KiB << ssd.nvme.mdts). The platform reserves
  // it in the DRAM it binds `dram` to and gives the controller its base.
  uint64_t staging_bytes() const { return uint64_t(slots_.size()) * staging_slot(); }
  void set_staging_base(uint64_t base) { staging_base_ = base; }
  // The arbitration mechanism the host enabled (CC.AMS: 0 RR, 1 WRR, 7 FlashShare).
  uint32_t arbitration() const { return nvme::cc_ams(cc_); }
  // summary.json's "nvme": commands held (time-weighted mean and maximum)
  // and, with in-order fetch, each SQ's time held behind its own writes.
  nlohmann::json summary(Tick now) const;
  uint64_t outstanding_max() const { return st_.outstanding_max.value; }
  uint64_t error_completions() const { return st_.errors.value; }
  // FlashShare's workload attribute at the DMA engine (ssd.priority.dma):
  // data transfers queue per direction and latency-critical ones go first.
  void set_latency_first_dma(bool on);
  // The host will use queue ids below `n` (its driver knows, before the
  // run): only those are in the waveform, where every signal costs the VCD
  // a compare at each time step. Unset: every queue the controller supports.
  void trace_queues(uint32_t n) { traced_queues_ = n; }
  // Each I/O command as the device saw it, reported when its completion is
  // posted (a device-side request trace; vp-qemu writes it as CSV).
  struct CommandRecord {
    uint16_t sqid, cid, status;
    uint8_t opcode, attr;
    uint64_t slba;
    uint32_t nlb;
    Tick fetched, completed;
    bool victim;            // FastDrain page-victimization write (CDW2 bit 8)
    uint32_t victim_pages;  // its dirty pages (CDW3), 0 if untagged
    uint32_t buffer_status; // what the completion reported (0: none)
  };
  Hook<const CommandRecord&> on_command;

 private:
  // The command sets work on the queues, slots and features.
  friend class NvmeAdminCommands;
  friend class NvmeIoCommands;
  struct SubQueue {
    bool valid = false;
    uint64_t base = 0;
    uint32_t size = 0, head = 0, tail = 0;
    uint16_t cqid = 0;
    uint32_t fetching = 0;  // entries being read (the arbiter already counted them out)
    // In-order fetch: writes started and not finished, and the commands
    // fetched behind them, waiting in their slots.
    uint32_t writes_out = 0;
    std::deque<uint32_t> parked;
  };
  struct CompQueue {
    bool valid = false;
    uint64_t base = 0;
    uint32_t size = 0, head = 0, tail = 0;
    bool phase = true, ien = false;
    uint16_t vector = 0;
    std::deque<uint32_t> waiting;  // slots whose completion finds the CQ full
  };
  // A command the firmware serves in several requests, one after another
  // (Dataset Management ranges, Write Zeroes above MDTS).
  struct Step {
    IoOp op;
    uint64_t offset;
    uint32_t bytes;
  };
  struct Slot {
    bool busy = false;
    Tick fetched = 0;  // when its fetch began
    bool aborted = false;  // completed early (SQ deleted); the firmware's answer is dropped
    HostCommand hc;
    std::vector<Step> steps;
    size_t step = 0;
    nvme::Sqe sqe{};
    uint16_t sqid = 0;
    uint16_t status = 0;
    uint32_t dw0 = 0;
    uint64_t generation = 0;
    std::vector<uint8_t> buf;
    PrpList prps;  // where its data is in host memory
    DeviceHalf* rec = nullptr;
    bool io_counted = false;  // counted in the busy time
    bool in_order_write = false;  // a write its SQ's later commands wait for (in-order fetch)
    bool compare = false;     // a Compare: the data read is checked against the host's
    std::vector<uint8_t> media;
  };
  struct ErrorEntry {  // one Error Information log entry
    uint64_t count;
    uint16_t sqid, cid, status;
    uint64_t lba;
    uint32_t nsid;
  };

  uint64_t cap_timeout() const;
  uint64_t bar_read(uint32_t off, unsigned len) override;
  void bar_write(uint32_t off, uint64_t v, unsigned len) override;
  void config_changed(pcie::PciConfigSpace::Change c) override;
  void device_reset(pcie::PciConfigSpace::Reset) override;
  void doorbell(uint32_t off, uint32_t v);
  // The firmware's cache is known now, and how many queues to trace.
  void end_of_elaboration() override {
    reset_queues();
    trace_signals();
  }
  void trace_signals();
  void set_enable(bool en);
  void reset_queues();
  void shutdown();
  void shutdown_when_idle();
  void configure_arbiter();
  void raise_event(uint8_t type, uint8_t info, uint8_t log);
  void deliver_events();
  void keep_alive();
  bool cq_entries_outstanding() const;
  void doorbell_error(uint32_t qid, uint8_t info);
  void log_error(uint16_t sqid, uint16_t cid, uint16_t st, uint64_t lba, uint32_t nsid);

  void fetch();
  bool can_fetch() const;
  bool read_entries(uint16_t qid, uint32_t count, Tick start, Tick& delay, std::vector<uint32_t>& taken);
  uint32_t take_slot(const nvme::Sqe& e, uint16_t qid, Tick start);
  void fetch_read_done(const std::vector<uint32_t>& taken, uint16_t qid, uint64_t gen);
  std::vector<nvme::Sqe> sqe_buf_;                     // entries read by one fetch
  std::vector<std::vector<uint32_t>> spare_lists_;  // slot lists of finished fetches, for reuse
  void arm_guard();
  void on_fetched(uint32_t s, uint16_t sqid);
  void start_io(uint32_t s);
  void in_order_write_done(Slot& sl);
  void io_busy(bool begins);
  uint64_t staging_slot() const;  // bytes of one slot's staging buffer: MDTS
  // When `bytes` of slot `s`'s staging buffer, ready at `ready`, are written
  // to or read from the SSD DRAM (`ready` itself without a DRAM).
  Tick stage(uint32_t s, uint32_t bytes, bool write, Tick ready);

  // The slot's segment list from its PRP1/PRP2 (PrpList::walk); an NVMe status.
  uint16_t walk_prps(Slot& sl, uint32_t bytes, Tick& delay);
  // Moves the slot's buffer to or from host memory; false on a bus error.
  bool move_data(Slot& sl, bool to_host, uint32_t bytes, Tick& delay);
  void complete(uint32_t s, uint16_t status, Tick delay = 0);
  void post(uint32_t s, Tick delay);
  void release(uint32_t s);
  void free_slot(uint32_t s);  // release without the follow-ups

  // Limits advertised in Identify Controller.
  // Abort completes at once, so no more than ACL + 1 are ever outstanding.
  static constexpr uint32_t kAerLimit = 4, kAbortLimit = 4;  // AERL + 1, ACL + 1
  static constexpr uint32_t kKasMs = 100;                    // keep alive granularity (KAS)
  static constexpr uint16_t kMaxPowerCw = 2500;              // power state 0: 25 W

  std::unique_ptr<NvmeAdminCommands> admin_;
  std::unique_ptr<NvmeIoCommands> io_;
  PrpList::Dma dma_fn_;  // the function's DMA, for PRP lists and data
  Services& svc_;
  ScopedConfig cfg_;
  StatGroup stats_;
  NvmeInterrupts irq_;
  SqArbiter arb_;
  // Parameters.
  uint32_t max_queues_, max_entries_, dstrd_, mdts_, lba_size_, fetch_engines_, fetch_batch_;
  bool in_order_fetch_;
  Tick ready_time_, admin_time_, drain_age_;
  uint32_t drain_count_;
  std::string model_, serial_;
  enum class StatusField { None, Dw0, SqHead };  // ssd.nvme.buffer_status_field
  StatusField buffer_status_field_;
  uint32_t forced_status_;  // ssd.nvme.buffer_status_force (0: the firmware's own)
  // Registers.
  uint32_t cc_ = 0, csts_ = 0, aqa_ = 0;
  uint64_t asq_ = 0, acq_ = 0;
  uint16_t nsq_alloc_ = 0, ncq_alloc_ = 0;
  uint64_t generation_ = 0;
  // Features (current values; none is saveable).
  struct Features {
    uint32_t arbitration = 0, power = 0, coalescing = 0, async_events = 0, keep_alive_ms = 0;
    bool write_cache = false;
  } feat_;
  // Asynchronous events: outstanding requests (slots) and events not yet reported.
  std::deque<uint32_t> aer_slots_;
  std::deque<uint32_t> aer_events_;  // completion DW0 of each
  bool error_events_masked_ = false;  // until the host reads the Error Information log
  Tick keep_alive_at_ = 0;  // last Keep Alive
  uint64_t keep_alive_gen_ = 0;
  bool shutting_down_ = false, shutdown_flushing_ = false;
  bool flush_in_firmware_ = false;  // the one shutdown flush object is with the firmware
  static constexpr uint32_t kShutdownSlot = 0xFFFFFFFFu;
  struct ShutdownFlush : HostCommand {
    uint64_t generation = 0;
  } shutdown_flush_;
  Tick guard_wakeup_ = 0;  // FlashShare age guard re-arbitration already scheduled
  uint32_t fetches_ = 0;  // fetch reads in flight
  // Queues and commands in flight.
  std::vector<SubQueue> sqs_;
  std::vector<CompQueue> cqs_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  uint64_t waiting_ = 0;  // entries in all SQs not fetched yet
  // Observation.
  std::vector<uint64_t> sq_occupancy_;  // traced
  std::vector<uint64_t> cq_occupancy_;  // traced: entries posted the host has not freed (CQ head doorbell)
  uint32_t traced_queues_ = 0xFFFFFFFFu;  // trace_queues()
  uint64_t doorbell_writes_ = 0;  // traced
  // The statistics it registers, named in its scope (a group, as gem5's).
  struct Stats {
    explicit Stats(const StatGroup& stats);
    Counter &io_cmds, &admin_cmds, &errors, &doorbells, &bytes_read, &bytes_written, &read_cmds, &write_cmds,
        &fetch_reads, &events, &hol_stall_ps, &outstanding_max, &dma_waits, &dma_wait_ps;
  };
  Stats st_;
  TimeAverage outstanding_;        // commands held (fetched and not completed)
  std::vector<Tick> hol_ps_, held_since_;  // per SQ: time held behind a write (in-order fetch)
  // Health and error logs.
  std::deque<ErrorEntry> error_log_;  // newest first
  uint64_t io_outstanding_ = 0;
  Tick busy_since_ = 0, busy_ps_ = 0;
  uint64_t staging_base_ = 0;
  // With latency-first DMA: the data transfers to and from the host waiting
  // for the engine (null: each is put on the link when its data is ready).
  std::unique_ptr<DataDmaQueue> to_host_, from_host_;
};

}  // namespace vp::ssd
