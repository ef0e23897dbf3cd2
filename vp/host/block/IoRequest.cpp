// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/block/IoRequest.hpp"

#include <string>

#include "vp/host/workload/FioJobRunner.hpp"

namespace vp::host {

void join_device_half(IoRequest& r, RequestTracker& tracker, Stage gap) {
  DeviceHalf* d = tracker.device(r.sqid, r.cid);
  if (!d || !d->valid) return;
  r.clock.join(d->clock, gap);
  r.attr = d->attr;
  r.result = d->result;
}

namespace {
RequestLog::Row row_of(const IoRequest& r, Tick end) {
  static const std::string kPageCache = "pagecache";
  RequestLog::Commands cmds = r.commands.empty() ? RequestLog::Commands{&r.command, 1}
                                                 : RequestLog::Commands{r.commands.data(), r.commands.size()};
  return {r.job ? r.job->result().name : kPageCache, r.write, r.lba, r.bytes, r.sqid, r.cid, r.status, r.attr,
          r.result, r.issued, end, r.clock, cmds, r.flush, r.trim};
}
}  // namespace

void log_request(RequestLog& log, const IoRequest& r, Tick end) { log.write(row_of(r, end)); }

void timeline_request(Timeline& t, const IoRequest& r, Tick end, int core_thread) {
  t.request(row_of(r, end), r.dev, core_thread);
}

}  // namespace vp::host
