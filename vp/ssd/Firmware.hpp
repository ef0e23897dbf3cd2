#pragma once
// The SSD firmware as an embedded core with per-task costs: it parses each
// host command, looks up the FTL for every logical page and issues one flash
// command per page. The core serves tasks first come first served; the
// FTL's work is charged to it here, the FTL itself only maps addresses.
#include <systemc>

#include "vp/core/EventQueue.hpp"
#include "vp/core/Services.hpp"
#include "vp/ssd/SsdInterfaces.hpp"

namespace vp::ssd {

class Firmware : public sc_core::sc_module, public IFirmware, public FtlClient {
 public:
  sc_core::sc_export<IFirmware> target;
  sc_core::sc_port<IFtl> ftl;

  static void declare_params(ParamRegistry& reg);
  Firmware(sc_core::sc_module_name name, Services& svc);

  void submit(HostCommand& c) override;
  uint64_t capacity_bytes() const override { return ftl->logical_pages() * uint64_t(ftl->page_size()); }
  uint32_t mapping_unit() const override { return ftl->page_size(); }
  MediaHealth health() const override { return ftl->health(); }
  // Writes are acknowledged once programmed: no volatile cache until the
  // DRAM cache layer sits in front of the FTL, so Flush and FUA have nothing to do.
  bool volatile_write_cache() const override { return false; }
  void set_write_cache(bool) override {}
  void ftl_done(FtlRequest& r) override;
  uint64_t events() const { return eq_.fired(); }

  // Cost of the firmware tasks of one command touching `pages` pages.
  Tick task_time(uint32_t pages) const;

 private:
  EventQueue eq_;
  double clock_hz_;
  uint64_t parse_cycles_, lookup_cycles_, issue_cycles_;
  FcfsResource core_;
  BusySignal busy_;
  Counter &commands_, &busy_ps_;
};

}  // namespace vp::ssd
