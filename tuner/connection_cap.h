// A cap on the connections the tuner's ROUTER holds open: a socket monitor
// counts accepted and closed connections (raw ones that never finish a
// handshake included), and while more than `cap` are open a new connection
// is refused as it completes its handshake (by the ZAP handler under CURVE,
// else at its Hello), so a flood of peers costs the tuner one descriptor
// each only until it is refused, and ones that never complete a handshake
// are dropped by ZMQ_HANDSHAKE_IVL (dispatcher.cc). The runners already
// joined keep their connections.
// REQUIRES: external synchronization (the dispatcher's thread polls it).
#pragma once

#include <cstdint>
#include <memory>

#include "common/status.h"
#include "common/zmq_socket.h"

namespace sweep {

class ConnectionCap {
 public:
  // Monitors `router` in `ctx` (before it binds).
  static Result<std::unique_ptr<ConnectionCap>> Start(const ZmqContext& ctx, void* router, int cap);
  // The monitor's socket, to poll beside the ROUTER.
  void* socket() const { return monitor_.get(); }
  // Reads the events waiting on the monitor.
  void Serve();
  // More connections are open than the cap: refuse the newest.
  bool full() const { return open_ > cap_; }
  // Counts and logs (at a bounded rate) a refusal for being full.
  void Refused();

 private:
  ConnectionCap() = default;
  ZmqSocket monitor_;
  int cap_ = 0;
  int64_t open_ = 0;
  int64_t refused_ = 0;
};

// The default cap: 4096, or less where the process may open fewer files
// (its soft RLIMIT_NOFILE, raised first to the hard limit up to 65536), so
// the tuner keeps descriptors for its database, checkpoints and logs.
int DefaultMaxConnections();

}  // namespace sweep
