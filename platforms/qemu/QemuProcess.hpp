// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// QEMU started by vp-qemu: one socket end of the PCI proxy handed over by
// file descriptor (`-device x-pci-proxy-dev,fd=N`), guest RAM in a shared
// memfd (the proxy needs it for DMA), the serial console on our stdio, and
// (ivshmem interrupt route) an `ivshmem-doorbell` device connected to our
// interrupt server. QEMU dies
// with us (PR_SET_PDEATHSIG), so a killed vp-qemu leaves no orphan.
#include <string>
#include <sys/types.h>
#include <vector>

namespace vp::platform {

struct QemuOptions {
  std::string binary = "qemu-system-x86_64";
  std::string kernel, initrd, append = "console=ttyS0 panic=-1";
  std::string memory = "512M";
  unsigned smp = 1;
  bool kvm = false;
  std::vector<std::string> extra;  // more QEMU arguments, as given
};

// A proxied function: QEMU's `-device x-pci-proxy-dev,id=ID,fd=FD`.
struct ProxyDevice {
  std::string id;
  int fd;
};

class QemuProcess {
 public:
  // `irq_socket` empty: no ivshmem device (the INTx route needs none).
  QemuProcess(const QemuOptions& o, const std::vector<ProxyDevice>& proxies, const std::string& irq_socket);
  ~QemuProcess();  // kills QEMU if it still runs
  pid_t pid() const { return pid_; }
  // The command line, for messages.
  const std::string& command() const { return command_; }
  // True once QEMU has exited; `status` is then its wait status.
  bool exited(bool block);
  int status() const { return status_; }
  // A one-line account of how QEMU ended.
  std::string how_it_ended() const;

 private:
  pid_t pid_ = -1;
  bool done_ = false;
  int status_ = 0;
  std::string command_;
};

}  // namespace vp::platform
