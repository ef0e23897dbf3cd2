// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The client of an online (request/response) server job, after FlashShare
// (OSDI'18) sec. 5.1: it sends requests on a fixed schedule (linear: every
// 1/rate) or as a Poisson process (exponential gaps of mean 1/rate) whatever
// the server is doing (open loop), and measures each response from its send
// to its receipt, both network crossings (net_delay each way) included. The
// server side is the job's worker threads (FioJobRunners, `workers=N`): the
// requests that have reached the server and are not yet taken form its one
// FIFO queue, and whichever worker is idle takes the oldest.
#include <cstdint>
#include <vector>

#include "vp/core/Rng.hpp"
#include "vp/core/Units.hpp"

namespace vp::host {

class OnlineClient {
 public:
  // `seed` drives the Poisson gaps only (linear uses none).
  OnlineClient(uint64_t rate_per_s, bool poisson, Tick net_delay, uint64_t seed);

  // Requests are sent from t0: linear's first at t0, Poisson's after one gap.
  void start(Tick t0);
  // Every worker of the server starts it; only the first call counts.
  bool started() const { return started_; }
  // Send time of the next request not yet taken by the server.
  Tick next_send() const { return sends_[taken_]; }
  // When that request reaches the server.
  Tick next_arrival() const { return next_send() + net_; }
  // The server takes the next request; returns its number (0, 1, ...).
  uint64_t take();
  // Worker `worker` took request k at `taken`, spent `io` of its service in
  // I/O and finished it at `server_end`; the client receives it net_delay
  // later.
  void respond(uint64_t k, Tick taken, Tick io, unsigned worker, Tick server_end);

  // Where a response's time went: both network crossings, waiting at the
  // server until a worker was free to take it, the worker's time with an
  // I/O of the request in flight, and the rest of its service (the
  // request's compute and any wait for the core, context switches
  // included).
  struct Response {
    uint64_t request;
    Tick sent, received;  // by the client, ps
    Tick taken;           // a worker took it at the server
    Tick io;              // of the service, time with one of its I/Os in flight
    unsigned worker;
    Tick net;             // one network crossing
    Tick time() const { return received - sent; }
    Tick queued() const { return taken - sent - net; }
    Tick compute() const { return received - net - taken - io; }
  };
  const std::vector<Tick>& sends() const { return sends_; }           // per request generated, ps
  const std::vector<Response>& responses() const { return resp_; }  // in the order they were received
  uint64_t taken() const { return taken_; }

 private:
  void generate();  // appends the send time of the next request
  uint64_t rate_;
  bool poisson_;
  Tick net_;
  Rng rng_;
  Tick t0_ = 0;
  bool started_ = false;
  uint64_t taken_ = 0;
  std::vector<Tick> sends_;
  std::vector<Response> resp_;
};

}  // namespace vp::host
