// Who may join: the ZAP handler (ZeroMQ RFC 27). After a peer completes the
// CURVE handshake, libzmq asks this handler, over an inproc socket of the
// same context, whether that public key may connect. It admits only keys on
// its allow-list and names the connection by its key (the ZAP User-Id, which
// the dispatcher reads as the runner's identity). Refusals are counted and
// logged at a bounded rate.
// REQUIRES: external synchronization (the dispatcher's thread polls it).
#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>

#include "common/status.h"
#include "common/zmq_socket.h"

namespace sweep {

class ZapHandler {
 public:
  // Binds the handler in `ctx`: it must exist before any CURVE socket of the
  // context accepts a connection.
  // `who`: what its peers are, for the log ("runner", "client").
  static Result<std::unique_ptr<ZapHandler>> Start(const ZmqContext& ctx,
                                                   const std::string& who = "runner");

  void Allow(const std::string& public_key_z85) { allowed_.insert(public_key_z85); }
  void* socket() const { return sock_.get(); }
  // Answers every request waiting on the socket. An allowed key is still
  // refused when `over_cap(key)` says so (the tuner holds as many
  // connections as it may, and that key has no runner in).
  void Serve(const std::function<bool(const std::string& z85)>& over_cap);
  int64_t refused() const { return refused_; }

 private:
  ZapHandler() = default;
  ZmqSocket sock_;
  std::string who_;
  std::set<std::string> allowed_;
  int64_t refused_ = 0;
};

}  // namespace sweep
