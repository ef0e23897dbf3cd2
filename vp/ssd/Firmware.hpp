#pragma once
// The SSD firmware as embedded cores with per-task costs: a core parses each
// host command, looks up the FTL for every logical page and issues one flash
// command per page. The FTL's work is charged to the core here, the FTL
// itself only maps addresses.
//
// `ssd.fw.cores` cores run this command-processing task (DeepFlash's NVMQ
// threads); each core serves the commands given to it first come first
// served, one at a time, for task_time(pages). The controller has already
// fetched the command (fetch is decoupled from parsing), so what differs is
// which core a command is given to, `ssd.fw.dispatch`:
//   per_sq  the static queue allocation DeepFlash compares against (FAST'19
//           section 4.1, Figure 6b): SQ s is bound to core (s - 1) mod cores;
//           the admin queue and the controller's own work (sqid 0) go to
//           core 0. One SQ's commands are serialized on its core even when
//           the other cores are idle.
//   dios    DeepFlash's dynamic I/O serialization (FAST'19 section 5.1): any
//           core serves any command of any SQ. A command arriving at t goes
//           to the core whose earliest start max(t, free_at) is smallest,
//           ties to the lowest core index: a single FIFO of commands served
//           by whichever core frees first.
// With one core both rules are the same single first-come-first-served core.
// DIOS's ordering of same-LBA requests of one SQ (ILOCK) is not modeled:
// commands are issued to the FTL in the order their tasks end.
#include <memory>
#include <systemc>
#include <vector>

#include "vp/core/EventQueue.hpp"
#include "vp/core/Services.hpp"
#include "vp/ssd/SsdInterfaces.hpp"

namespace vp::ssd {

class Firmware : public sc_core::sc_module, public IFirmware, public FtlClient {
 public:
  sc_core::sc_export<IFirmware> target;
  sc_core::sc_port<IFtl> ftl;

  enum class Dispatch { PerSq, Dios };

  static void declare_params(ParamRegistry& reg);
  Firmware(sc_core::sc_module_name name, Services& svc);

  void submit(HostCommand& c) override;
  uint64_t capacity_bytes() const override { return ftl->logical_pages() * uint64_t(ftl->page_size()); }
  uint32_t mapping_unit() const override { return ftl->page_size(); }
  MediaHealth health() const override { return ftl->health(); }
  // The cache layer below, if any, holds written data in DRAM.
  bool volatile_write_cache() const override { return ftl->volatile_write_cache(); }
  void set_write_cache(bool enabled) override { ftl->set_write_cache(enabled); }
  void ftl_done(FtlRequest& r) override;
  uint64_t events() const { return eq_.fired(); }

  // Cost of the firmware tasks of one command touching `pages` pages.
  Tick task_time(uint32_t pages) const;
  unsigned cores() const { return static_cast<unsigned>(cores_.size()); }
  Dispatch dispatch() const { return dispatch_; }
  // The core a command from `sqid` arriving at `now` would be given.
  unsigned pick_core(uint16_t sqid, Tick now) const;

 private:
  struct Core {
    FcfsResource res;
    BusySignal busy;
    Counter *commands, *busy_ps;
  };

  EventQueue eq_;
  double clock_hz_;
  uint64_t parse_cycles_, lookup_cycles_, issue_cycles_;
  Dispatch dispatch_;
  // Cores are held by pointer: the VCD traces each one's busy flag by address.
  std::vector<std::unique_ptr<Core>> cores_;
  Counter &commands_, &busy_ps_;
};

}  // namespace vp::ssd
