// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A PCIe endpoint function, the base every device on the platform's fabric
// derives from (the NVMe controller, the I/O-stack accelerator): a
// configuration space behind `config`, registers in BAR0 behind `bar0`, and
// a DMA initiator `dma` towards host memory that also carries its interrupt
// messages. A platform attaches a function with three binds and tells it
// where INTx messages go.
//
// What the base does for every device:
// - configuration requests go to the PciConfigSpace; a change the device
//   acts on reaches config_changed();
// - BAR0 claims nothing while memory decoding is off or the function is in
//   D3hot (the request ends as an Unsupported Request); the MSI-X table and
//   PBA are served from PciInterrupts; everything else goes to the device's
//   bar_read()/bar_write();
// - PCIe ordering of register accesses: a write is posted and takes effect
//   when it arrives (at the end of its annotated delay); a read may not pass
//   the writes that arrive before it, so they take effect first;
// - dma_access(): one memory read or write on the DMA socket, returning the
//   time it ends.
#include <cstdint>
#include <deque>
#include <systemc>
#include <vector>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "vp/core/EventQueue.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/pcie/PciConfigSpace.hpp"
#include "vp/pcie/PciInterrupts.hpp"

namespace vp::pcie {

class PciFunction : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<PciFunction> bar0;    // MMIO from the host
  tlm_utils::simple_target_socket<PciFunction> config;  // PCI configuration requests
  tlm_utils::simple_initiator_socket<PciFunction> dma;  // to host memory and the interrupt controller

  // Where INTx assert/deassert messages go (set by the platform).
  void set_intx_address(uint64_t a) { signals_.intx_address = a; }
  // The memory window BAR0 asks for (a power of two; the platform places it).
  uint64_t bar0_size() const { return pci_.bar0_size(); }
  uint64_t events() const { return eq_.fired(); }
  // A conventional PCI reset (power-on state of the function and the device).
  void pci_reset();

 protected:
  // `stats`: where the function's interrupt counters go (its own scope).
  PciFunction(sc_core::sc_module_name name, const PciIdentity& id, const PciFunctionShape& shape,
              const StatGroup& stats);

  // The device's registers in BAR0 (outside the MSI-X table and PBA), in
  // the order the link delivers them; `len` is 4 or 8 unless
  // bar_width_ok() allows others.
  virtual uint64_t bar_read(uint32_t off, unsigned len) = 0;
  virtual void bar_write(uint32_t off, uint64_t value, unsigned len) = 0;
  virtual bool bar_width_ok(unsigned len) const { return len == 4 || len == 8; }
  // Device memory in BAR0 (queues a device keeps for another's DMA, say):
  // accesses of any length there go to memory_read()/memory_write() instead,
  // in the same order as register accesses. A read may end later than it
  // arrived: the device adds its own wait to `delay`.
  virtual bool in_memory(uint64_t /*off*/, unsigned /*len*/) const { return false; }
  virtual void memory_read(uint64_t /*off*/, uint8_t* /*p*/, unsigned /*len*/, sc_core::sc_time& /*delay*/) {}
  virtual void memory_write(uint64_t /*off*/, const uint8_t* /*p*/, unsigned /*len*/) {}
  // Inside bar_write()/memory_write(): when the write arrives. Later than
  // now when a read that arrives after it lands it first (PCIe ordering).
  Tick write_arrival() const { return write_arrival_; }
  // The host changed something in configuration space the device acts on
  // (after the change took effect; FLR after the space was reset).
  virtual void config_changed(PciConfigSpace::Change) {}
  // The device's own state back to power-on, after the configuration space
  // was reset (pci_reset: Conventional).
  virtual void device_reset(PciConfigSpace::Reset) {}

  // One memory access on the DMA socket starting `delay` from now; `delay`
  // becomes when it ends. False on a bus error.
  bool dma_access(tlm::tlm_command cmd, uint64_t addr, uint8_t* p, uint32_t len, Tick& delay);

  EventQueue eq_;
  PciConfigSpace pci_;
  PciInterrupts signals_;
  uint64_t messages_sent_ = 0;  // interrupt messages written (traced by devices that want it)

 private:
  void bar_access(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void config_access(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  bool in_msix_table(uint64_t off) const;
  bool in_msix_pba(uint64_t off) const;
  uint64_t read_register(uint32_t off, unsigned len);
  void write_register(uint32_t off, uint64_t value, unsigned len);

  // Writes on their way to the function, in the order they were sent. Each
  // lands at its arrival; a read lands those that arrive before it (a read
  // does not pass a posted write ahead of it on the link), not a peer's
  // write still on its way by another path (the SSD's completion entry to
  // the accelerator: applied early, a bio completed before its data landed).
  struct PostedWrite {
    uint32_t off;
    unsigned len;
    uint64_t value;
    std::vector<uint8_t> bytes;  // a write to device memory (in_memory)
    Tick arrival;
    uint64_t id;
  };
  void apply(const PostedWrite& w);
  void land(uint64_t id);
  std::deque<PostedWrite> posted_;
  uint64_t posted_id_ = 0;
  Tick write_arrival_ = 0;
  tlm::tlm_generic_payload gp_;
};

}  // namespace vp::pcie
