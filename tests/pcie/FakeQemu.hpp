#pragma once
// A fake QEMU for the proxy bridge tests: speaks QEMU's mpqemu-link protocol
// over a socketpair as x-pci-proxy-dev does, and runs simulated time in
// steps between messages as vp-qemu does.
#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

#include "platforms/qemu/QemuTop.hpp"
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
    iovec iov{head, sizeof head};
    msghdr m{};
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    alignas(cmsghdr) char ctl[CMSG_SPACE(2 * sizeof(int))];
    m.msg_control = ctl;
    m.msg_controllen = sizeof ctl;
    cmsghdr* c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(2 * sizeof(int));
    int fds[2] = {irq, resample};
    std::memcpy(CMSG_DATA(c), fds, sizeof fds);
    REQUIRE(sendmsg(fd, &m, MSG_NOSIGNAL) == 16);
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
  // Simulated time runs until nothing is left to do (the guest "waits").
  void run() {
    while (sc_core::sc_pending_activity()) sc_core::sc_start(sc_core::sc_time_to_pending_activity());
  }
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
