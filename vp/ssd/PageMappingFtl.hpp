#pragma once
// Page-level FTL: every logical page (one flash page) maps to any physical
// page. Writes go out of place to the active block of the next
// (channel, die, plane) in channel-first striping order. A preconditioned
// device starts with every logical page mapped to a fixed striped layout that
// costs no memory; only pages written during the run take map entries.
// No garbage collection yet: when a plane runs out of free blocks the run
// stops with a message.
#include <deque>
#include <systemc>
#include <unordered_map>
#include <vector>

#include "vp/core/Services.hpp"
#include "vp/ssd/SsdInterfaces.hpp"

namespace vp::ssd {

class PageMappingFtl : public sc_core::sc_module, public IFtl, public flash::FlashClient {
 public:
  sc_core::sc_export<IFtl> target;
  sc_core::sc_port<flash::IFlash> flash;

  static void declare_params(ParamRegistry& reg);
  // Logical capacity for a geometry and over-provisioning ratio.
  static uint64_t logical_pages_for(const flash::FlashGeometry& g, double overprovision);

  PageMappingFtl(sc_core::sc_module_name name, Services& svc);

  void submit(FtlRequest& r) override;
  uint64_t logical_pages() const override { return logical_pages_; }
  uint32_t page_size() const override { return geo_.page_size; }
  void flash_done(flash::FlashTransaction& t) override;

 private:
  struct Unit {  // one plane's allocation state
    std::deque<uint32_t> free_blocks;
    int64_t active = -1;
    uint32_t next_page = 0;
  };
  void end_of_elaboration() override;
  flash::FlashAddress unit_address(uint64_t unit) const;
  bool lookup(uint64_t lpn, uint64_t& ppn) const;
  bool allocate(uint64_t& ppn);
  void invalidate(uint64_t ppn);

  flash::FlashGeometry geo_;
  double overprovision_;
  bool precondition_;
  uint64_t units_ = 0, logical_pages_ = 0;
  std::unordered_map<uint64_t, uint64_t> map_;  // pages written during the run
  std::vector<uint32_t> valid_;                 // valid pages per block
  std::vector<Unit> unit_state_;
  uint64_t write_unit_ = 0;
  Counter &host_reads_, &host_writes_, &unmapped_reads_, &map_bytes_;
};

}  // namespace vp::ssd
