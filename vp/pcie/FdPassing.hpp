#pragma once
// Sending bytes with a file descriptor riding along (SCM_RIGHTS) on a UNIX
// socket, as QEMU's ivshmem and mpqemu-link protocols do.
#include <cstring>
#include <sys/socket.h>
#include <sys/types.h>

namespace vp::pcie {

// Sends `len` bytes and, if `fd` >= 0, the descriptor; returns what sendmsg returns.
inline ssize_t send_with_fd(int sock, const void* data, size_t len, int fd) {
  iovec iov{const_cast<void*>(data), len};
  msghdr m{};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(int))];
  if (fd >= 0) {
    m.msg_control = ctl;
    m.msg_controllen = sizeof ctl;
    cmsghdr* c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  }
  return sendmsg(sock, &m, MSG_NOSIGNAL);
}

}  // namespace vp::pcie
