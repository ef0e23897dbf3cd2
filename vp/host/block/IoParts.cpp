// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/block/IoParts.hpp"

namespace vp::host {

void complete_from_parts(IoRequest& whole, const IoRequest& last, uint16_t status,
                         const std::vector<IoRequest*>& parts) {
  whole.status = status;
  whole.sqid = last.sqid;
  whole.cid = last.cid;
  whole.attr = last.attr;
  whole.result = last.result;
  whole.clock = last.clock;
  whole.command = last.command;
  whole.commands.clear();
  for (const IoRequest* p : parts) {
    if (p->commands.empty())
      whole.commands.push_back(p->command);
    else  // a part split in turn
      whole.commands.insert(whole.commands.end(), p->commands.begin(), p->commands.end());
  }
}

}  // namespace vp::host
