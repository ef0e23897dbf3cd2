// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Reusing one generic payload per initiator: resets every field a plain
// memory access needs.
#include <tlm>

namespace vp {

inline void prepare(tlm::tlm_generic_payload& gp, tlm::tlm_command cmd, uint64_t addr, uint8_t* data,
                    unsigned len) {
  gp.set_command(cmd);
  gp.set_address(addr);
  gp.set_data_ptr(data);
  gp.set_data_length(len);
  gp.set_streaming_width(len);
  gp.set_byte_enable_ptr(nullptr);
  gp.set_dmi_allowed(false);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
}

}  // namespace vp
