// SPDX-License-Identifier: BSD-3-Clause
#include "platforms/qemu/QemuProcess.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace vp::platform {

QemuProcess::QemuProcess(const QemuOptions& o, const std::vector<ProxyDevice>& proxies, const std::string& irq_socket) {
  // Single-threaded TCG: QEMU 7.2's x-pci-proxy-dev drops the big lock
  // while it waits for our answer, and its per-device re-entrancy guard
  // then refuses (drops) a second vCPU's access to the same BAR: with
  // several vCPUs in their own threads, doorbell writes were lost. One TCG
  // thread runs the vCPUs in turn, so no two proxy accesses overlap.
  std::vector<std::string> args = {o.binary,
                                   "-accel", o.kvm ? "kvm" : "tcg,thread=single",
                                   "-machine", "q35,memory-backend=flashvp-ram",
                                   "-m", o.memory,
                                   "-object", "memory-backend-memfd,id=flashvp-ram,size=" + o.memory + ",share=on",
                                   "-smp", std::to_string(o.smp),
                                   "-nographic", "-nodefaults", "-serial", "stdio", "-no-reboot"};
  for (const ProxyDevice& p : proxies)
    args.insert(args.end(), {"-device", fmt::format("x-pci-proxy-dev,id={},fd={}", p.id, p.fd)});
  if (!irq_socket.empty())
    args.insert(args.end(), {"-chardev", "socket,path=" + irq_socket + ",id=flashvp-irq",
                             "-device", "ivshmem-doorbell,chardev=flashvp-irq,vectors=1"});
  // Under TCG on a loaded host the guest's IO-APIC timer check can see too
  // few ticks and panic at boot ("IO-APIC + timer doesn't work!"); the
  // check is meant for broken boards, so a TCG guest skips it.
  std::string append = o.append;
  if (!o.kvm && append.find("no_timer_check") == std::string::npos) append += " no_timer_check";
  if (!o.kernel.empty()) args.insert(args.end(), {"-kernel", o.kernel, "-append", append});
  if (!o.initrd.empty()) args.insert(args.end(), {"-initrd", o.initrd});
  args.insert(args.end(), o.extra.begin(), o.extra.end());
  for (const auto& a : args) command_ += (command_.empty() ? "" : " ") + a;
  pid_t parent = getpid();
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error(std::string("cannot fork QEMU: ") + std::strerror(errno));
  if (pid_ == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the parent is already gone
    for (const ProxyDevice& p : proxies) {
      int flags = fcntl(p.fd, F_GETFD);
      fcntl(p.fd, F_SETFD, flags & ~FD_CLOEXEC);
    }
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    fmt::print(stderr, "vp-qemu: cannot run {}: {}\n", o.binary, std::strerror(errno));
    _exit(127);
  }
}

QemuProcess::~QemuProcess() {
  if (pid_ > 0 && !done_) {
    kill(pid_, SIGKILL);
    exited(true);
  }
}

bool QemuProcess::exited(bool block) {
  if (done_) return true;
  int st = 0;
  pid_t r;
  do r = waitpid(pid_, &st, block ? 0 : WNOHANG);
  while (r < 0 && errno == EINTR);
  if (r == pid_) {
    done_ = true;
    status_ = st;
  }
  return done_;
}

std::string QemuProcess::how_it_ended() const {
  if (!done_) return "QEMU is still running";
  if (WIFSIGNALED(status_)) return fmt::format("QEMU was killed by signal {} ({})", WTERMSIG(status_), strsignal(WTERMSIG(status_)));
  if (WEXITSTATUS(status_) == 0) return "QEMU exited normally (the guest powered off)";
  return fmt::format("QEMU exited with status {}", WEXITSTATUS(status_));
}

}  // namespace vp::platform
