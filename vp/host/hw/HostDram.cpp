// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/hw/HostDram.hpp"

#include <algorithm>
#include <iterator>
#include <cstring>
#include <sys/mman.h>

namespace vp::host {

void HostDram::declare_params(const ParamScope& r) {
  r.size("size", "2GiB", "host main memory (FlashShare Table 2: 2 GB)").range(1 << 20, 1ull << 40);
  r.time("latency", "60ns", "latency of a device read of host memory (posted writes are not waited for)");
}

HostDram::HostDram(sc_core::sc_module_name name, Services& svc, const std::string& scope)
    : sc_module(name),
      socket("socket"),
      size_(ScopedConfig(svc.cfg, scope).get_size("size")),
      latency_(ScopedConfig(svc.cfg, scope).get_time("latency")),
      eq_("eq") {
  void* p = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::runtime_error("host DRAM: cannot reserve " + scoped_key(scope, "size") + " bytes");
  mem_ = static_cast<uint8_t*>(p);
  socket.register_b_transport(this, &HostDram::b_transport);
  socket.register_get_direct_mem_ptr(this, &HostDram::get_dmi);
}

HostDram::~HostDram() { munmap(mem_, size_); }

void HostDram::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  uint64_t a = gp.get_address();
  uint32_t len = gp.get_data_length();
  if (a + len > size_ || a + len < a) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  land_due();
  if (gp.is_write()) {  // posted: nobody waits for it
    if (delay == sc_core::SC_ZERO_TIME) {
      std::memcpy(mem_ + a, gp.get_data_ptr(), len);
      if (notifying_) Calendar::get().notify_delta(written_);
    } else {
      uint32_t slot;
      if (free_.empty()) {
        slot = static_cast<uint32_t>(in_flight_.size());
        in_flight_.emplace_back();
      } else {
        slot = free_.back();
        free_.pop_back();
      }
      in_flight_[slot].addr = a;
      in_flight_[slot].bytes.assign(gp.get_data_ptr(), gp.get_data_ptr() + len);
      if (notifying_) {
        eq_.after(delay.value(), [this, slot] { land(slot); });
      } else {
        const Tick at = now_ps() + delay.value();
        auto it = due_.end();
        while (it != due_.begin() && std::prev(it)->at > at) --it;  // after those sent before with the same arrival
        due_.insert(it, {at, slot});
      }
    }
  } else {
    std::memcpy(gp.get_data_ptr(), mem_ + a, len);
    delay += to_sc(latency_);
  }
  gp.set_dmi_allowed(true);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void HostDram::land(uint32_t slot) {
  const Landing& l = in_flight_[slot];
  std::memcpy(mem_ + l.addr, l.bytes.data(), l.bytes.size());
  free_.push_back(slot);
  Calendar::get().notify_delta(written_);
}

void HostDram::land_next() {
  uint32_t slot = due_.front().slot;
  due_.pop_front();
  const Landing& l = in_flight_[slot];
  std::memcpy(mem_ + l.addr, l.bytes.data(), l.bytes.size());
  free_.push_back(slot);
}

// The writes still on their way get their landing events, in the order
// events would have landed them.
const Event& HostDram::notify_landings() {
  if (!notifying_) {
    notifying_ = true;
    land_due();
    for (const Due& d : due_) eq_.at(d.at, [this, slot = d.slot] { land(slot); });
    due_.clear();
  }
  return written_;
}

bool HostDram::get_dmi(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
  dmi.set_dmi_ptr(mem_);
  dmi.set_start_address(0);
  dmi.set_end_address(size_ - 1);
  dmi.allow_read_write();
  dmi.set_read_latency(to_sc(latency_));
  dmi.set_write_latency(to_sc(latency_));
  return true;
}

}  // namespace vp::host
