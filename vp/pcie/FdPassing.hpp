// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Sending bytes with a file descriptor riding along (SCM_RIGHTS) on a UNIX
// socket, as QEMU's ivshmem and mpqemu-link protocols do.
#include <cstring>
#include <sys/socket.h>
#include <sys/types.h>

namespace vp::pcie {

// Sends `len` bytes and the `n` descriptors `fds`; returns what sendmsg returns.
inline ssize_t send_with_fds(int sock, const void* data, size_t len, const int* fds, size_t n) {
  iovec iov{const_cast<void*>(data), len};
  msghdr m{};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  alignas(cmsghdr) char ctl[CMSG_SPACE(8 * sizeof(int))];  // mpqemu-link passes at most 8
  if (n > 8) return -1;
  if (n > 0) {
    m.msg_control = ctl;
    m.msg_controllen = CMSG_SPACE(n * sizeof(int));
    cmsghdr* c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(n * sizeof(int));
    std::memcpy(CMSG_DATA(c), fds, n * sizeof(int));
  }
  return sendmsg(sock, &m, MSG_NOSIGNAL);
}

// Sends `len` bytes and, if `fd` >= 0, the descriptor.
inline ssize_t send_with_fd(int sock, const void* data, size_t len, int fd) {
  return send_with_fds(sock, data, len, &fd, fd >= 0 ? 1 : 0);
}

}  // namespace vp::pcie
