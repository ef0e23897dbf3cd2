// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A fake QEMU for the proxy bridge tests: speaks QEMU's mpqemu-link protocol
// over a socketpair as x-pci-proxy-dev does, and runs simulated time in
// steps between messages as vp-qemu does.
#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>
#include <memory>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

#include "platforms/qemu/QemuTop.hpp"
#include "tests/TestSupport.hpp"
#include "vp/nvme/NvmeSpec.hpp"
#include "vp/pcie/FdPassing.hpp"

namespace vp::test {

enum QemuCmd : int32_t { SYNC_SYSMEM = 0, RET = 1, CFG_WRITE = 2, CFG_READ = 3, BAR_WRITE = 4, BAR_READ = 5,
                         SET_IRQFD = 6, DEVICE_RESET = 7 };

struct FakeQemu {
  static constexpr uint64_t kBar = 0xFEBC0000ull;
  int fd;
  platform::QemuTop& top;
  void send(int32_t cmd, const void* payload, uint64_t size, int pass_fd = -1) {
    uint8_t buf[16 + 192] = {};
    std::memcpy(buf, &cmd, 4);
    std::memcpy(buf + 8, &size, 8);
    if (size) std::memcpy(buf + 16, payload, size);
    REQUIRE(pcie::send_with_fd(fd, buf, 16 + size, pass_fd) == static_cast<ssize_t>(16 + size));
  }
  // SET_IRQFD: no payload, the interrupt and the resample eventfd.
  void set_irqfd(int irq, int resample) {
    uint8_t head[16] = {};
    int32_t cmd = SET_IRQFD;
    std::memcpy(head, &cmd, 4);
    const int fds[2] = {irq, resample};
    REQUIRE(pcie::send_with_fds(fd, head, sizeof head, fds, 2) == 16);
    REQUIRE(top.bridge.serve(1000));  // no answer expected
  }
  // The bridge answers at once, in simulated no time.
  uint64_t ret() {
    REQUIRE(top.bridge.serve(1000));
    uint8_t r[24];
    REQUIRE(read(fd, r, 24) == 24);
    int32_t cmd;
    uint64_t size, v;
    std::memcpy(&cmd, r, 4);
    std::memcpy(&size, r + 8, 8);
    std::memcpy(&v, r + 16, 8);
    CHECK(cmd == RET);
    CHECK(size == 8);
    return v;
  }
  uint32_t cfg_read(uint32_t addr, int32_t len) {
    uint8_t p[12] = {};
    std::memcpy(p, &addr, 4);
    std::memcpy(p + 8, &len, 4);
    send(CFG_READ, p, 12);
    return static_cast<uint32_t>(ret());
  }
  void cfg_write(uint32_t addr, uint32_t v, int32_t len) {
    uint8_t p[12] = {};
    std::memcpy(p, &addr, 4);
    std::memcpy(p + 4, &v, 4);
    std::memcpy(p + 8, &len, 4);
    send(CFG_WRITE, p, 12);
    ret();
  }
  uint64_t bar(int32_t cmd, uint32_t off, uint64_t v, uint32_t len) {
    uint8_t p[24] = {};
    uint64_t addr = kBar + off;
    std::memcpy(p, &addr, 8);
    std::memcpy(p + 8, &v, 8);
    std::memcpy(p + 16, &len, 4);
    p[20] = 1;
    send(cmd, p, 24);
    return ret();
  }
  uint64_t reg(uint32_t off) { return bar(BAR_READ, off, 0, 4); }
  void set_reg(uint32_t off, uint64_t v, uint32_t len = 4) { bar(BAR_WRITE, off, v, len); }
  // A guest driver's first steps: 8-entry admin queues at `asq` and `acq`
  // in guest RAM, controller enabled (4 KiB pages, 64/16-byte entries); the
  // controller's CSTS afterwards.
  uint64_t enable(uint64_t asq, uint64_t acq) {
    set_reg(nvme::AQA, (7u << 16) | 7);
    set_reg(nvme::ASQ, asq, 8);
    set_reg(nvme::ACQ, acq, 8);
    set_reg(nvme::CC, nvme::CC_EN | (6u << 16) | (4u << 20));
    run();
    return reg(nvme::CSTS);
  }
  // Identify Controller into guest RAM at `id` as the first admin command
  // (slot 0 of the queues enable() set up); its completion entry.
  nvme::Cqe identify_first(uint8_t* ram, uint64_t asq, uint64_t acq, uint64_t id, uint16_t cid) {
    nvme::Sqe c = nvme::Sqe::make(nvme::ADMIN_IDENTIFY, cid);
    c.prp1 = id;
    c.cdw10 = nvme::CNS_CONTROLLER;
    std::memcpy(ram + asq, &c, sizeof c);
    set_reg(nvme::sq_tail_doorbell(0, 0), 1);
    run();
    nvme::Cqe e;
    std::memcpy(&e, ram + acq, sizeof e);
    return e;
  }
  // Simulated time runs until nothing is left to do (the guest "waits").
  void run() {
    while (sc_core::sc_pending_activity()) sc_core::sc_start(sc_core::sc_time_to_pending_activity());
  }
};

// The model a fake QEMU talks to: the quick preset's QemuTop on one end of a
// socketpair (`qemu_end` is the other).
struct QemuBench {
  Config cfg = model_config("quick", {}, {});
  StatRegistry stats;
  Waves waves;
  RequestTracker tracker;
  Services svc{cfg, stats, waves, tracker, 1};
  int sv[2] = {-1, -1};
  std::unique_ptr<platform::QemuTop> top;
  std::vector<std::string> route_warnings;
  // `intx_route`: configured as vp-qemu does for --irq-route intx before the model is built.
  explicit QemuBench(bool intx_route = false, const Sets& sets = {}) {
    for (const auto& [k, v] : sets) cfg.set(k, v, "test");
    route_warnings = platform::QemuTop::configure_interrupt_route(cfg, intx_route);
    cfg.validate();
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    top = std::make_unique<platform::QemuTop>("top", svc, sv[0]);
  }
  int qemu_end() const { return sv[1]; }
};

// Guest RAM as QEMU shares it: a memfd, announced with SYNC_SYSMEM as one
// region at guest-physical 0, which the bridge maps.
struct GuestRam {
  uint64_t size;
  int fd;
  uint8_t* ptr;
  GuestRam(FakeQemu& q, uint64_t bytes) : size(bytes), fd(memfd_create("guest", 0)) {
    REQUIRE(fd >= 0);
    REQUIRE(ftruncate(fd, static_cast<off_t>(size)) == 0);
    ptr = static_cast<uint8_t*>(mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
    REQUIRE(ptr != MAP_FAILED);
    uint8_t sync[192] = {};  // base[8], size[8], offset[8]: entry 0 = {0, size, 0}
    std::memcpy(sync + 64, &size, 8);
    q.send(SYNC_SYSMEM, sync, 192, fd);
    REQUIRE(q.top.bridge.serve(1000));  // no answer expected
  }
  ~GuestRam() {
    munmap(ptr, size);
    close(fd);
  }
  GuestRam(const GuestRam&) = delete;
  GuestRam& operator=(const GuestRam&) = delete;
};

// An eventfd's counter, read and cleared; 0 when nothing was written
// (the descriptor must be non-blocking).
inline uint64_t take_event(int efd) {
  uint64_t v = 0;
  ssize_t r = read(efd, &v, sizeof v);
  return r == sizeof v ? v : 0;
}

inline void signal_event(int efd) {
  uint64_t one = 1;
  REQUIRE(write(efd, &one, sizeof one) == sizeof one);
}

}  // namespace vp::test
