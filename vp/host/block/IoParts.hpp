// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// An I/O carried by several others (blk-mq's split pieces, md's member
// I/Os) completes with the last of them.
#include <cstdint>
#include <vector>

#include "vp/host/block/IoRequest.hpp"

namespace vp::host {

// `whole` takes `status` (the first error any part had, else 0), the
// command fields and stage record of `last` (from the application's issue
// to the last part's completion) and the serials of every part's commands.
void complete_from_parts(IoRequest& whole, const IoRequest& last, uint16_t status,
                         const std::vector<IoRequest*>& parts);

}  // namespace vp::host
