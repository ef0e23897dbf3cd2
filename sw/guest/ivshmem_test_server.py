#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A minimal ivshmem server for testing the guest's flashvp_irqfwd without
FlashVP (Python 3 standard library only).

It serves one QEMU `ivshmem-doorbell` client the way FlashVP will: shared
memory holding the FVPI version 1 header (see sw/guest/irqfwd/README.md),
and eventfds for the client's MSI-X vectors. Commands arrive one per line on
a control FIFO:

    kick MASK    OR MASK (an integer, bit i = NVMe vector i) into the pending
                 words at offset 64, then signal the eventfd of vector 0
    quit         exit

The OR is a plain read-modify-write, not atomic against the guest's xchg:
send a kick only once the guest has handled the previous one (the self-test
waits for the guest to report each). FlashVP proper must use an atomic OR.

ivshmem server protocol (QEMU docs/specs/ivshmem-spec.txt): on connect the
server sends little-endian int64 messages: the protocol version 0, the
client's ID, -1 with the shared memory fd (SCM_RIGHTS), then the client's
own ID once per vector, each with the eventfd that raises that vector. The
connection stays open; the server exits when the client goes away.
"""
import argparse
import mmap
import os
import selectors
import socket
import struct
import sys

MAGIC = 0x49505646  # "FVPI" little endian
VERSION = 1
PENDING_OFFSET = 64
PENDING_WORDS = 8
CLIENT_ID = 0


def log(msg):
    print(f"[ivshmem_test_server] {msg}", file=sys.stderr, flush=True)


def send_msg(conn, value, fd=None):
    data = struct.pack("<q", value)
    if fd is None:
        conn.sendall(data)
    else:
        socket.send_fds(conn, [data], [fd])


class Server:
    def __init__(self, args):
        self.vectors = args.vectors
        self.shm_fd = os.memfd_create("flashvp-ivshmem", 0)
        os.ftruncate(self.shm_fd, args.shm_size)
        self.shm = mmap.mmap(self.shm_fd, args.shm_size)
        if not args.no_header:
            struct.pack_into("<II", self.shm, 0, MAGIC, VERSION)
        # Eventfds the client receives for its own vectors: writing one
        # raises that MSI-X vector in the guest.
        self.eventfds = [os.eventfd(0, os.EFD_CLOEXEC) for _ in range(self.vectors)]
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        if os.path.exists(args.socket):
            os.unlink(args.socket)
        self.listener.bind(args.socket)
        self.listener.listen(1)
        self.socket_path = args.socket
        # O_RDWR keeps the FIFO open when a writer goes away.
        self.control = os.open(args.control, os.O_RDWR | os.O_NONBLOCK)
        self.control_buf = b""
        self.client = None
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.listener, selectors.EVENT_READ, self.on_accept)
        self.sel.register(self.control, selectors.EVENT_READ, self.on_control)
        self.running = True

    def on_accept(self):
        conn, _ = self.listener.accept()
        if self.client is not None:
            log("refusing a second client")
            conn.close()
            return
        self.client = conn
        send_msg(conn, 0)  # protocol version
        send_msg(conn, CLIENT_ID)
        send_msg(conn, -1, self.shm_fd)
        for fd in self.eventfds:
            send_msg(conn, CLIENT_ID, fd)
        self.sel.register(conn, selectors.EVENT_READ, self.on_client)
        log(f"client {CLIENT_ID} connected, {self.vectors} vector(s)")

    def on_client(self):
        # The client never sends; readable means it hung up.
        if not self.client.recv(64):
            log("client disconnected")
            self.running = False

    def kick(self, mask):
        for w in range(PENDING_WORDS):
            bits = (mask >> (64 * w)) & ((1 << 64) - 1)
            if bits:
                off = PENDING_OFFSET + 8 * w
                (old,) = struct.unpack_from("<Q", self.shm, off)
                struct.pack_into("<Q", self.shm, off, old | bits)
        os.eventfd_write(self.eventfds[0], 1)
        log(f"kicked mask {mask:#x}")

    def on_control(self):
        self.control_buf += os.read(self.control, 4096)
        while b"\n" in self.control_buf:
            line, self.control_buf = self.control_buf.split(b"\n", 1)
            words = line.decode().split()
            if not words:
                continue
            if words[0] == "kick" and len(words) == 2:
                self.kick(int(words[1], 0))
            elif words[0] == "quit":
                self.running = False
            else:
                log(f"unknown command: {line!r}")

    def run(self):
        log(f"listening on {self.socket_path}")
        while self.running:
            for key, _ in self.sel.select():
                key.data()
        os.unlink(self.socket_path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--socket", required=True, help="UNIX socket QEMU connects to")
    ap.add_argument("--control", required=True, help="FIFO with kick/quit commands")
    ap.add_argument("--vectors", type=int, default=1)
    ap.add_argument("--shm-size", type=int, default=1 << 20)
    ap.add_argument("--no-header", action="store_true",
                    help="leave the FVPI header out (the guest must then forward nothing)")
    Server(ap.parse_args()).run()


if __name__ == "__main__":
    main()
