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

  // Admits `public_key_z85` for good (a local runner's fresh key).
  void Allow(const std::string& public_key_z85) { fixed_.insert(public_key_z85); }
  // Keys from a folder: `read` runs now and again, at most once a second,
  // when a handshake comes, so keys written into the folder while the
  // tuner runs (`sweep keys new`) are admitted and keys deleted from it are
  // refused from then on (connections already open stay). When a read
  // fails, the keys read last stay.
  Status SetReload(std::function<Result<std::set<std::string>>()> read);
  void* socket() const { return sock_.get(); }
  // Answers every request waiting on the socket. An allowed key is still
  // refused when `over_cap(key)` says so (the tuner holds as many
  // connections as it may, and that key has no runner in).
  void Serve(const std::function<bool(const std::string& z85)>& over_cap);
  int64_t refused() const { return refused_; }

 private:
  ZapHandler() = default;
  bool Allowed(const std::string& z85) const { return fixed_.count(z85) || loaded_.count(z85); }
  void MaybeReload();
  ZmqSocket sock_;
  std::string who_;
  std::set<std::string> fixed_;   // Allow's
  std::set<std::string> loaded_;  // SetReload's, as read last
  std::function<Result<std::set<std::string>>()> read_;
  int64_t last_read_ms_ = 0;
  int64_t refused_ = 0;
};

}  // namespace sweep
