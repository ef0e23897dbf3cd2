// SPDX-License-Identifier: BSD-3-Clause
#include "vp/pcie/QemuProxy2Tlm.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fmt/format.h>
#include <poll.h>
#include <stdexcept>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "vp/core/Payload.hpp"

namespace vp::pcie {

namespace {
double wall_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
// mpqemu-link commands.
enum Cmd : int32_t { SYNC_SYSMEM = 0, RET = 1, CFG_WRITE = 2, CFG_READ = 3, BAR_WRITE = 4, BAR_READ = 5, SET_IRQFD = 6,
                     DEVICE_RESET = 7 };
constexpr size_t kHeader = 16, kMaxPayload = 192, kMaxFds = 8;
constexpr uint8_t kCapIdMsix = 0x11;

bool read_full(int fd, uint8_t* p, size_t n) {
  while (n > 0) {
    ssize_t r = read(fd, p, n);
    if (r == 0) return false;
    if (r < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

// One mpqemu-link message: its command, payload and the descriptors passed
// with it (SCM_RIGHTS). False: the socket closed.
bool receive_message(int fd, int32_t& cmd, uint8_t (&payload)[kMaxPayload], std::vector<int>& fds) {
  uint8_t head[kHeader];
  iovec iov{head, kHeader};
  msghdr m{};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(int) * kMaxFds)];
  m.msg_control = ctl;
  m.msg_controllen = sizeof ctl;
  ssize_t r;
  do r = recvmsg(fd, &m, MSG_CMSG_CLOEXEC | MSG_WAITALL);
  while (r < 0 && errno == EINTR);
  if (r <= 0) return false;
  for (cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
      for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); ++i) {
        int f;
        std::memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof f);
        fds.push_back(f);
      }
  if (static_cast<size_t>(r) < kHeader && !read_full(fd, head + r, kHeader - static_cast<size_t>(r))) return false;
  uint64_t size;
  std::memcpy(&cmd, head, 4);
  std::memcpy(&size, head + 8, 8);
  if (size > kMaxPayload) throw std::runtime_error(fmt::format("QEMU proxy: message {} with a {}-byte payload", cmd, size));
  return !size || read_full(fd, payload, size);
}
}  // namespace

QemuProxy2Tlm::QemuProxy2Tlm(sc_core::sc_module_name name, Services& svc, int fd, uint64_t bar0_size)
    : sc_module(name),
      config_out("config_out"),
      mmio_out("mmio_out"),
      dma_in("dma_in"),
      svc_(svc),
      fd_(fd),
      bar0_size_(bar0_size),
      eq_("eq") {
  dma_in.register_b_transport(this, &QemuProxy2Tlm::dma);
}

QemuProxy2Tlm::~QemuProxy2Tlm() {
  close_irqfd();
  unmap_all();
}

void QemuProxy2Tlm::unmap_all() {
  for (auto& r : ram_) {
    munmap(r.ptr, r.size);
    close(r.fd);
  }
  ram_.clear();
}

bool QemuProxy2Tlm::serve(int timeout_ms) {
  for (;;) {
    // The resample eventfd is watched with the socket: KVM signals it at
    // the guest's EOI, whenever that comes.
    pollfd p[2] = {{fd_, POLLIN, 0}, {resamplefd_, POLLIN, 0}};
    int r = poll(p, resamplefd_ >= 0 ? 2 : 1, timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return true;
    if (resamplefd_ >= 0 && (p[1].revents & POLLIN)) resample();
    if (p[0].revents && !handle_one()) return false;
    timeout_ms = 0;  // then drain what else is there
  }
}

bool QemuProxy2Tlm::handle_one() {
  int32_t cmd = 0;
  uint8_t payload[kMaxPayload] = {};
  std::vector<int> fds;
  if (!receive_message(fd_, cmd, payload, fds)) return false;
  auto close_fds = [&] {
    for (int f : fds) close(f);
  };
  switch (cmd) {
    case SYNC_SYSMEM: sync_sysmem(payload, fds); break;
    case CFG_READ:
    case CFG_WRITE: {
      uint32_t addr, value;
      int32_t len;
      std::memcpy(&addr, payload, 4);
      std::memcpy(&value, payload + 4, 4);
      std::memcpy(&len, payload + 8, 4);
      ++n_.config;
      double t0 = wall_s();
      uint32_t v = config_access(cmd == CFG_WRITE, addr, value, static_cast<unsigned>(len));
      close_fds();
      reply(cmd == CFG_READ ? v : 0);
      n_.access_wall_s += wall_s() - t0;
      break;
    }
    case BAR_READ:
    case BAR_WRITE: {
      uint64_t addr, value;
      uint32_t len;
      std::memcpy(&addr, payload, 8);
      std::memcpy(&value, payload + 8, 8);
      std::memcpy(&len, payload + 16, 4);
      bool memory = payload[20] != 0;
      ++(cmd == BAR_READ ? n_.bar_reads : n_.bar_writes);
      double t0 = wall_s();
      uint64_t v = memory ? bar_access(cmd == BAR_WRITE, addr, value, len) : ~0ull;
      close_fds();
      reply(cmd == BAR_READ ? v : 0);
      n_.access_wall_s += wall_s() - t0;
      break;
    }
    case SET_IRQFD: set_irqfd(fds); break;
    case DEVICE_RESET:
      ++n_.resets;
      close_fds();
      if (reset_device) reset_device();
      msix_known_ = false;
      reply(0);
      break;
    default:
      close_fds();
      throw std::runtime_error(fmt::format("QEMU proxy: unknown message {}", cmd));
  }
  return true;
}

// QEMU sends the pair once at startup (with or without KVM: under TCG
// nothing reads it); a new pair replaces the old one.
void QemuProxy2Tlm::set_irqfd(const std::vector<int>& fds) {
  ++n_.irqfd_sets;
  close_irqfd();
  if (fds.size() >= 2) {
    irqfd_ = fds[0];
    resamplefd_ = fds[1];
  }
  for (size_t i = fds.size() >= 2 ? 2 : 0; i < fds.size(); ++i) close(fds[i]);
  if (intx_route_ && intx_level_) raise_line();  // the line was already up: tell the new route
}

void QemuProxy2Tlm::close_irqfd() {
  if (irqfd_ >= 0) close(irqfd_);
  if (resamplefd_ >= 0) close(resamplefd_);
  irqfd_ = resamplefd_ = -1;
}

// The guest's EOI lowered the line; a level still asserted raises it again.
void QemuProxy2Tlm::resample() {
  uint64_t v;
  ssize_t r;
  do r = read(resamplefd_, &v, sizeof v);
  while (r < 0 && errno == EINTR);
  if (r != sizeof v) return;  // already drained (QEMU's eventfds are non-blocking)
  ++n_.resamples;
  if (intx_route_ && intx_level_) {
    ++n_.rearms;
    raise_line();
  }
}

void QemuProxy2Tlm::raise_line() {
  if (irqfd_ < 0) return;
  uint64_t one = 1;
  ssize_t w;
  do w = write(irqfd_, &one, sizeof one);
  while (w < 0 && errno == EINTR);
  if (w == sizeof one) ++n_.irqfd_writes;
}

void QemuProxy2Tlm::reply(uint64_t value) {
  uint8_t msg[kHeader + 8] = {};
  int32_t cmd = RET;
  uint64_t size = 8;
  std::memcpy(msg, &cmd, 4);
  std::memcpy(msg + 8, &size, 8);
  std::memcpy(msg + kHeader, &value, 8);
  size_t off = 0;
  while (off < sizeof msg) {
    ssize_t w = send(fd_, msg + off, sizeof msg - off, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw std::runtime_error(std::string("QEMU proxy: reply failed: ") + std::strerror(errno));
    off += static_cast<size_t>(w);
  }
}

// Every SYNC_SYSMEM replaces the whole map of guest RAM.
void QemuProxy2Tlm::sync_sysmem(const uint8_t* p, const std::vector<int>& fds) {
  ++n_.sysmem_syncs;
  unmap_all();
  for (size_t i = 0; i < fds.size() && i < 8; ++i) {
    uint64_t gpa, size;
    int64_t off;
    std::memcpy(&gpa, p + 8 * i, 8);
    std::memcpy(&size, p + 64 + 8 * i, 8);
    std::memcpy(&off, p + 128 + 8 * i, 8);
    void* m = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fds[i], off);
    if (m == MAP_FAILED) {
      close(fds[i]);
      throw std::runtime_error(fmt::format("QEMU proxy: cannot map guest RAM at {:#x} ({} bytes): {}", gpa, size,
                                           std::strerror(errno)));
    }
    ram_.push_back({gpa, size, static_cast<uint8_t*>(m), fds[i]});
  }
  for (size_t i = 8; i < fds.size(); ++i) close(fds[i]);
}

uint32_t QemuProxy2Tlm::config_access(bool write, uint32_t addr, uint32_t value, unsigned len) {
  uint32_t v = write ? value : 0;
  prepare(gp_, write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, addr, reinterpret_cast<uint8_t*>(&v), len);
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  config_out->b_transport(gp_, d);
  if (!gp_.is_response_ok()) return write ? 0 : (len >= 4 ? 0xFFFFFFFFu : (1u << (8 * len)) - 1);
  return v;
}

// The MSI-X capability says where the table is; the bridge keeps a copy of
// what the guest writes there, to tell which vector a message belongs to.
void QemuProxy2Tlm::locate_msix() {
  msix_known_ = true;
  uint32_t p = config_access(false, 0x34, 0, 1) & 0xFC;
  for (int hops = 0; p && hops < 48; ++hops) {
    uint32_t hdr = config_access(false, p, 0, 4);
    if ((hdr & 0xFF) == kCapIdMsix) {
      msix_entries_ = ((hdr >> 16) & 0x7FF) + 1;
      msix_table_ = config_access(false, p + 4, 0, 4) & ~7u;  // BIR 0 assumed: the SSD keeps it in BAR0
      msix_.assign(msix_entries_, {0, 0});
      return;
    }
    p = (hdr >> 8) & 0xFC;
  }
}

uint64_t QemuProxy2Tlm::bar_access(bool write, uint64_t addr, uint64_t value, unsigned len) {
  uint64_t off = addr & (bar0_size_ - 1);
  bar0_base_ = addr - off;  // BARs are aligned to their size
  bar0_known_ = true;
  if (!msix_known_) locate_msix();
  // A CQ head doorbell (odd doorbell index, default stride) answers the oldest raised interrupt.
  if (write && irq_raised_at_ >= 0 && off >= 0x1000 && off < 0x1000 + 8 * 1024 && (off - 0x1000) % 8 == 4) {
    n_.irq_to_doorbell_wall_s += wall_s() - irq_raised_at_;
    ++n_.irq_round_trips;
    irq_raised_at_ = -1;
  }
  if (write && msix_entries_ && off >= msix_table_ && off < msix_table_ + 16ull * msix_entries_) {
    uint64_t e = (off - msix_table_) / 16, field = (off - msix_table_) % 16;
    auto& [a, d] = msix_[e];
    if (field == 0) a = len == 8 ? value : (a & ~0xFFFFFFFFull) | (value & 0xFFFFFFFFull);
    if (field == 4) a = (a & 0xFFFFFFFFull) | (value << 32);
    if (field == 8) d = static_cast<uint32_t>(value);
  }
  uint64_t v = write ? value : 0;
  prepare(gp_, write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, off, reinterpret_cast<uint8_t*>(&v), len);
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  mmio_out->b_transport(gp_, d);
  if (!gp_.is_response_ok()) return ~0ull;
  return v;
}

uint8_t* QemuProxy2Tlm::guest(uint64_t gpa, uint32_t len) {
  for (auto& r : ram_)
    if (gpa >= r.gpa && gpa + len <= r.gpa + r.size) return r.ptr + (gpa - r.gpa);
  return nullptr;
}

// Device writes land in guest RAM at their arrival time, in order; reads
// see guest RAM as it is when they are made.
void QemuProxy2Tlm::dma(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  uint64_t a = gp.get_address();
  uint32_t len = gp.get_data_length();
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  if (gp.is_write() && ((a >= kMsiBase && a < kMsiBase + kMsiSize) || a == kIntxAddress) && len == 4) {
    uint32_t data;
    std::memcpy(&data, gp.get_data_ptr(), 4);
    eq_.after(delay.value(), [this, a, data] { interrupt(a, data); });
    return;
  }
  for (QemuProxy2Tlm* peer : peers_)
    if (peer->claims(a, len)) return peer->peer_access(gp, delay);
  uint8_t* p = guest(a, len);
  if (!p) {
    ++n_.dma_errors;
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  if (gp.is_read()) {
    std::memcpy(gp.get_data_ptr(), p, len);
    return;
  }
  std::vector<uint8_t> bytes(gp.get_data_ptr(), gp.get_data_ptr() + len);
  eq_.after(delay.value(), [this, a, bytes = std::move(bytes)] {
    if (uint8_t* q = guest(a, static_cast<uint32_t>(bytes.size()))) std::memcpy(q, bytes.data(), bytes.size());
  });
}

bool QemuProxy2Tlm::claims(uint64_t addr, uint32_t len) const {
  return bar0_known_ && addr >= bar0_base_ && addr + len <= bar0_base_ + bar0_size_;
}

void QemuProxy2Tlm::peer_access(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  uint64_t a = gp.get_address();
  gp.set_address(a - bar0_base_);
  mmio_out->b_transport(gp, delay);
  gp.set_address(a);
}

void QemuProxy2Tlm::interrupt(uint64_t addr, uint32_t data) {
  uint32_t vector = 0;
  if (addr == kIntxAddress) {
    bool was = intx_level_;
    intx_level_ = data != 0;
    // Only the rising edge raises. Deassert needs nothing: under the INTx
    // route the guest's EOI lowers the line (and the resample finds the
    // level low); under the ivshmem route the handler looks at every queue.
    if (!intx_level_ || was) return;
  } else {
    for (uint32_t i = 0; i < msix_.size(); ++i)
      if (msix_[i].first == addr && msix_[i].second == data) {
        vector = i;
        break;
      }
  }
  ++n_.irqs;
  if (irq_raised_at_ < 0) irq_raised_at_ = wall_s();
  if (intx_route_) {
    if (addr == kIntxAddress) raise_line();  // (no MSI or MSI-X can be enabled: the guest cannot see them)
  } else if (raise_irq) {
    raise_irq(vector);
  }
}

}  // namespace vp::pcie
