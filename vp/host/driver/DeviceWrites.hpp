// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Device writes to host memory land at their arrival. The host sees them
// when it looks: before it reads what a device may have written (a
// completion queue, a buffer named by a completion) it asks for every write
// due by now to land. Only a core spinning on a completion queue needs to
// be told of each landing as it happens; asking for that notification
// makes every later write land by its own event.
#include "vp/core/Event.hpp"

namespace vp::host {

class DeviceWrites {
 public:
  virtual ~DeviceWrites() = default;
  // Every write that has arrived by now is in memory after this.
  virtual void land_due() = 0;
  // Notified (next delta) as each write lands, from this call on.
  virtual const Event& notify_landings() = 0;
};

}  // namespace vp::host
