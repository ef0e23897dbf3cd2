// SPDX-License-Identifier: BSD-3-Clause
#include "vp/pcie/PciFunction.hpp"

#include <algorithm>
#include <cstring>

#include "vp/core/Payload.hpp"

namespace vp::pcie {

PciFunction::PciFunction(sc_core::sc_module_name name, const PciIdentity& id, const PciFunctionShape& shape,
                         const StatGroup& stats)
    : sc_module(name),
      bar0("bar0"),
      config("config"),
      dma("dma"),
      eq_("eq"),
      pci_(id, shape),
      signals_(shape.msix_vectors, pci_,
               [this](uint64_t addr, uint32_t data, Tick delay) {
                 Tick d = delay;
                 dma_access(tlm::TLM_WRITE_COMMAND, addr, reinterpret_cast<uint8_t*>(&data), 4, d);
                 ++messages_sent_;
               },
               stats) {
  bar0.register_b_transport(this, &PciFunction::bar_access);
  config.register_b_transport(this, &PciFunction::config_access);
  pci_.on_change([this](PciConfigSpace::Change c) {
    config_changed(c);
    if (c == PciConfigSpace::Change::FunctionLevelReset) signals_.reset_table();
  });
}

void PciFunction::pci_reset() {
  pci_.reset(PciConfigSpace::Reset::Conventional);
  device_reset(PciConfigSpace::Reset::Conventional);
  signals_.reset_table();
}

void PciFunction::config_access(tlm::tlm_generic_payload& gp, sc_core::sc_time&) {
  auto off = static_cast<uint32_t>(gp.get_address());
  unsigned len = gp.get_data_length();
  uint32_t v = 0;
  if (gp.is_write()) {
    std::memcpy(&v, gp.get_data_ptr(), std::min(len, 4u));
    pci_.write(off, v, len);  // unsupported sizes are dropped, as a root complex would
  } else {
    v = pci_.read(off, len);
    std::memcpy(gp.get_data_ptr(), &v, std::min(len, 4u));
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

bool PciFunction::in_msix_table(uint64_t off) const {
  return off >= pci_.msix_table_offset() && off < pci_.msix_table_offset() + signals_.table_bytes();
}

bool PciFunction::in_msix_pba(uint64_t off) const {
  return off >= pci_.msix_pba_offset() && off < pci_.msix_pba_offset() + signals_.pba_bytes();
}

uint64_t PciFunction::read_register(uint32_t off, unsigned len) {
  uint64_t v = 0;
  if (in_msix_table(off))
    signals_.table_read(off - pci_.msix_table_offset(), reinterpret_cast<uint8_t*>(&v), len);
  else if (in_msix_pba(off))
    signals_.pba_read(off - pci_.msix_pba_offset(), reinterpret_cast<uint8_t*>(&v), len);
  else
    v = bar_read(off, len);
  return v;
}

void PciFunction::write_register(uint32_t off, uint64_t value, unsigned len) {
  if (in_msix_table(off))
    signals_.table_write(off - pci_.msix_table_offset(), reinterpret_cast<const uint8_t*>(&value), len);
  else if (!in_msix_pba(off))  // the PBA is read-only
    bar_write(off, value, len);
}

void PciFunction::bar_access(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  uint64_t off = gp.get_address();
  unsigned len = gp.get_data_length();
  uint8_t* p = gp.get_data_ptr();
  // A function with memory decoding off (or in D3hot) claims nothing: the
  // request ends as an Unsupported Request.
  bool mem = off + len <= pci_.bar0_size() && in_memory(off, len);
  if (!pci_.memory_enabled() || pci_.power_state() != 0 || off + len > pci_.bar0_size() ||
      (!mem && !bar_width_ok(len))) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  if (gp.is_write()) {
    PostedWrite w{static_cast<uint32_t>(off), len, 0, {}, now_ps() + delay.value(), posted_id_++};
    if (mem)
      w.bytes.assign(p, p + len);
    else
      std::memcpy(&w.value, p, len);
    eq_.after(delay.value(), [this, id = w.id] { land(id); });
    posted_.push_back(std::move(w));
  } else {
    // Taken out before any is applied: applying one may post another.
    Tick arrival = now_ps() + delay.value();
    std::vector<PostedWrite> due;
    for (auto it = posted_.begin(); it != posted_.end();) {
      if (it->arrival > arrival) {
        ++it;
      } else {
        due.push_back(std::move(*it));
        it = posted_.erase(it);
      }
    }
    for (const PostedWrite& w : due) apply(w);
    if (mem) {
      memory_read(off, p, len, delay);
    } else {
      uint64_t v = read_register(static_cast<uint32_t>(off), len);
      std::memcpy(p, &v, len);
    }
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

// A write a read did not land first.
void PciFunction::land(uint64_t id) {
  for (auto it = posted_.begin(); it != posted_.end(); ++it)
    if (it->id == id) {
      PostedWrite w = std::move(*it);
      if (it == posted_.begin())
        posted_.pop_front();  // the usual case: writes land in the order posted
      else
        posted_.erase(it);
      apply(w);
      return;
    }
}

void PciFunction::apply(const PostedWrite& w) {
  write_arrival_ = w.arrival;
  if (w.bytes.empty())
    write_register(w.off, w.value, w.len);
  else
    memory_write(w.off, w.bytes.data(), w.len);
}

bool PciFunction::dma_access(tlm::tlm_command cmd, uint64_t addr, uint8_t* p, uint32_t len, Tick& delay) {
  prepare(gp_, cmd, addr, p, len);
  sc_core::sc_time d = to_sc(delay);
  dma->b_transport(gp_, d);
  delay = d.value();
  return gp_.is_response_ok();
}

}  // namespace vp::pcie
