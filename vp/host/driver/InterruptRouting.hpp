// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The host's interrupt vector table: which driver's handler a vector that
// reaches a core belongs to. Each driver allocates a block of vectors (as
// Linux's pci_alloc_irq_vectors does) and programs its function's MSI/MSI-X
// messages with them; handlers on the shared INTx pin are all called, as
// Linux calls every handler of a shared IRQ line.
#include <cstdint>
#include <string>
#include <vector>

#include "vp/core/Stats.hpp"
#include "vp/host/block/IoRequest.hpp"

namespace vp::host {

struct IrqHandler {
  virtual ~IrqHandler() = default;
  // `vector`: the handler's own numbering, 0 .. count-1 (0 on the INTx pin).
  virtual void handle_irq(uint32_t vector, std::vector<IoRequest*>& done) = 0;
};

class InterruptRouting {
 public:
  // The vector the interrupt controller delivers for the INTx pin; never
  // allocated to a message.
  static constexpr uint32_t kIntxVector = 0xFFFFFFFFu;

  explicit InterruptRouting(StatRegistry& stats)
      : spurious_(StatGroup(stats, "host.irq").counter("spurious", "interrupts",
                                                        "interrupts whose vector no driver owns")) {}

  // `count` vectors for `handler`, the first a multiple of `align` (MSI's
  // multiple messages put the vector in the data's low bits); returns it.
  uint32_t allocate(uint32_t count, uint32_t align, IrqHandler& handler, const std::string& owner);
  // `handler` shares the INTx pin.
  void share_intx(IrqHandler& handler, const std::string& owner);
  // Runs the handler(s) of `vector`; a vector nobody owns is counted as
  // spurious (Linux's "nobody cared").
  void dispatch(uint32_t vector, std::vector<IoRequest*>& done);
  uint64_t spurious() const { return spurious_.value; }
  std::string owner_of(uint32_t vector) const;

 private:
  struct Block {
    uint32_t base, count;
    IrqHandler* handler;
    std::string owner;
  };
  std::vector<Block> blocks_;
  std::vector<Block> intx_;
  uint32_t next_ = 0;
  Counter& spurious_;
};

}  // namespace vp::host
