// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The host's interrupt controller as a memory-mapped MSI target: a 4-byte
// write to base + (cpu << 12) with the vector as data (the x86 MSI address
// format) interrupts that core when the write arrives. INTx assert/deassert
// messages (data 1/0) are written to intx_address() and interrupt the core
// named in the pin's redirection entry (a 4-byte write of the core number to
// intx_route_address(), as an I/O APIC entry's destination; core 0 until set).
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "vp/core/EventQueue.hpp"
#include "vp/core/Services.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/host/driver/InterruptRouting.hpp"

namespace vp::host {

struct IrqSink : virtual sc_core::sc_interface {
  virtual void interrupt(uint32_t vector) = 0;
};

class InterruptController : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<InterruptController> socket;
  sc_core::sc_port<IrqSink, 0> cpu;  // one binding per core, in core order

  static constexpr uint64_t kBase = 0xFEE00000ull, kSize = 0x101000;
  static uint64_t msi_address(unsigned cpu) { return kBase + (uint64_t(cpu) << 12); }
  static uint64_t intx_address() { return kBase + 0x100000; }  // after the pages of 256 cores
  static uint64_t eoi_address() { return kBase + 0x100004; }
  static uint64_t intx_route_address() { return kBase + 0x100008; }
  static constexpr uint32_t kIntxVector = InterruptRouting::kIntxVector;  // the pin's, never a message's

  // Statistics in `scope` (host.irq on the server).
  InterruptController(sc_core::sc_module_name name, Services& svc, const std::string& scope = "host.irq");
  uint64_t events() const { return eq_.fired(); }

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void deliver(unsigned core, uint32_t vector, Tick delay);
  EventQueue eq_;
  Counter &delivered_, &intx_asserts_;
  bool intx_level_ = false;
  unsigned intx_core_ = 0;
};

}  // namespace vp::host
