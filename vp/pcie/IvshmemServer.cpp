// SPDX-License-Identifier: BSD-3-Clause
#include "vp/pcie/IvshmemServer.hpp"

#include "vp/pcie/FdPassing.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <stdexcept>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace vp::pcie {

namespace {
[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error("ivshmem server: " + what + ": " + std::strerror(errno));
}
constexpr int64_t kClientId = 1;
}  // namespace

IvshmemServer::IvshmemServer(const std::string& socket_path) : path_(socket_path) {
  shm_ = memfd_create("flashvp-irq", MFD_CLOEXEC);
  if (shm_ < 0) fail("memfd_create");
  if (ftruncate(shm_, kShmSize) != 0) fail("ftruncate");
  void* m = mmap(nullptr, kShmSize, PROT_READ | PROT_WRITE, MAP_SHARED, shm_, 0);
  if (m == MAP_FAILED) fail("mmap");
  mem_ = static_cast<uint8_t*>(m);
  std::memcpy(mem_, &kMagic, 4);
  std::memcpy(mem_ + 4, &kVersion, 4);
  vector_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (vector_fd_ < 0) fail("eventfd");
  listen_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_ < 0) fail("socket");
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (path_.size() >= sizeof a.sun_path) throw std::runtime_error("ivshmem server: socket path too long: " + path_);
  std::strcpy(a.sun_path, path_.c_str());
  unlink(path_.c_str());
  if (bind(listen_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) fail("bind " + path_);
  if (listen(listen_, 1) != 0) fail("listen");
}

IvshmemServer::~IvshmemServer() {
  for (int fd : {client_, listen_, vector_fd_, shm_})
    if (fd >= 0) close(fd);
  if (mem_) munmap(mem_, kShmSize);
  unlink(path_.c_str());
}

void IvshmemServer::send_msg(int64_t value, int fd) {
  if (send_with_fd(client_, &value, sizeof value, fd) != sizeof value) fail("sendmsg");
}

bool IvshmemServer::accept_client(int timeout_ms) {
  pollfd p{listen_, POLLIN, 0};
  int r = poll(&p, 1, timeout_ms);
  if (r < 0) fail("poll");
  if (r == 0) return false;
  client_ = accept4(listen_, nullptr, nullptr, SOCK_CLOEXEC);
  if (client_ < 0) fail("accept");
  send_msg(0, -1);          // protocol version
  send_msg(kClientId, -1);  // the client's own id
  send_msg(-1, shm_);       // the shared memory
  send_msg(kClientId, vector_fd_);  // its vector 0: we ring it
  return true;
}

void IvshmemServer::raise_in(uint32_t v, uint32_t region) {
  if (v >= kVectorsTracked) v = kVectorsTracked - 1;
  auto* word = reinterpret_cast<uint64_t*>(mem_ + kPendingOffset + region * kVectorsTracked / 8) + v / 64;
  __atomic_fetch_or(word, uint64_t(1) << (v % 64), __ATOMIC_SEQ_CST);
  uint64_t one = 1;
  if (write(vector_fd_, &one, sizeof one) < 0 && errno != EAGAIN) fail("eventfd write");
  ++raised_;
}

}  // namespace vp::pcie
