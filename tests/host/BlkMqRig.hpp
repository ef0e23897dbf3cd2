// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// blk-mq on its own: a BlkMqQueue over a driver that records every command
// it is given (hardware queue, direction, LBA range, the I/Os it carries),
// with times passed by hand. 4 KiB LBAs; I/O buffers are page-aligned 4 KiB
// unless a test says otherwise.
#include <deque>
#include <vector>

#include "tests/TestSupport.hpp"
#include "vp/host/block/BlkMqQueue.hpp"

namespace vp::test {

struct RecordingDriver : host::BlkMqDriver {
  struct Cmd {
    unsigned hwq;
    bool write;
    uint64_t lba;
    uint32_t nlb;
    uint8_t attr;
    std::vector<host::IoRequest*> ios;
  };
  uint32_t mdts = 128 << 10;
  std::vector<Cmd> cmds;
  uint32_t tags = 1023;
  uint32_t max_transfer() const override { return mdts; }
  uint32_t queue_tags() const override { return tags; }
  void issue(host::IoRequest& head, unsigned hwq) override {
    Cmd c{hwq, head.write, head.lba, 0, head.attr, {}};
    for (host::IoRequest* s = &head; s; s = s->next_in_cmd) {
      c.nlb += s->nlb;
      c.ios.push_back(s);
    }
    cmds.push_back(c);
  }
};

struct BlkMqRig {
  Config cfg;
  StatRegistry stats;
  RecordingDriver drv;
  host::BlkMqQueue q;
  std::deque<host::IoRequest> ios;  // stable addresses
  uint64_t next_buf = 1 << 20;

  BlkMqRig(std::initializer_list<std::pair<std::string, std::string>> sets, unsigned cores = 1)
      : cfg(model_config("", {{"host.cores", std::to_string(cores)}}, Sets(sets))),
        drv(tags_of(cfg)),
        q(ScopedConfig(cfg, host::BlkMqQueue::kScope), StatGroup(stats, host::BlkMqQueue::kScope), drv, cores, cores) {}

  static RecordingDriver tags_of(const Config& c) {
    RecordingDriver d;
    d.tags = static_cast<uint32_t>(c.get_int("host.nvme.queue_depth")) - 1;  // an SQ of N holds N - 1
    return d;
  }

  host::IoRequest& io(bool write, uint64_t lba, uint32_t bytes = 4096, uint8_t attr = 0) {
    host::IoRequest& r = ios.emplace_back();
    r.write = write;
    r.lba = lba;
    r.bytes = bytes;
    r.nlb = (bytes + 4095) / 4096;
    r.attr = attr;
    r.buf_addr = next_buf;
    next_buf += (bytes + 4095) / 4096 * 4096 + 4096;  // a gap page: buffers are never adjacent
    return r;
  }
  host::IoRequest& submit(bool write, uint64_t lba, Tick now = 0, unsigned core = 0, uint8_t attr = 0) {
    host::IoRequest& r = io(write, lba, 4096, attr);
    q.submit(r, core, now);
    return r;
  }
  uint64_t stat(const char* name) const { return stats.value(name); }
};

}  // namespace vp::test
