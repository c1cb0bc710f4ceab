// The service's control sockets: a ROUTER on an ipc:// endpoint in a folder
// only this user may enter (common/private_endpoint.h), whose clients are
// this user, an admin; and, with keys, a second ROUTER on a TCP endpoint
// where clients authenticate with CURVE (their public keys in the keys
// folder's clients/ and admins/, the file's name the user's name; any other
// key is refused at the handshake). Each ControlRequest gets one
// ControlReply: requests over the cap, malformed or of another version are
// answered with an error here and never reach the service. Replies may wait
// (for a commit): the service answers a request by its handle.
// REQUIRES: external synchronization (the service's thread).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/curve_keys.h"
#include "common/status.h"
#include "common/zmq_socket.h"
#include "proto/sweep.pb.h"
#include "tuner/zap_handler.h"

namespace sweep {

// Who sent a request.
struct ControlCaller {
  std::string user;
  bool admin = false;  // may act on any study
};

// The TCP control endpoint, with CURVE.
struct RemoteControl {
  std::string endpoint;
  CurveKeyPair server;  // the service's (tuner.key)
  // DIR/clients/NAME.pub and DIR/admins/NAME.pub, read at Bind and again as
  // clients connect (at most once a second): a key made while the service
  // runs is let in, a deleted one refused from then on.
  std::string keys_dir;
  std::map<std::string, std::string> clients;  // public key -> user name
  std::map<std::string, std::string> admins;
};

// Reads `remote->keys_dir`'s clients and admins into `remote`.
Status ReadControlKeys(RemoteControl* remote);

class ControlSocket {
 public:
  // Binds a fresh private endpoint, and `remote` if given.
  static Result<std::unique_ptr<ControlSocket>> Bind(const std::optional<RemoteControl>& remote);
  ~ControlSocket();

  const std::string& endpoint() const { return endpoint_; }
  // The remote endpoint bound ("" without one; a wildcard port resolved).
  const std::string& remote_endpoint() const { return remote_endpoint_; }
  // For the event loop's poll: readable when something waits.
  std::vector<void*> sockets() const;

  // Answers the handshakes waiting, then hands each waiting request to
  // `handle` with a handle to answer it by (Reply), without blocking.
  void Receive(const std::function<void(const std::string& client, const pb::ControlRequest&,
                                        const ControlCaller&)>& handle);
  void Reply(const std::string& client, pb::ControlReply reply);

 private:
  ControlSocket() = default;
  // Reads up to a batch of requests from `sock` (0: private, 1: remote).
  void ReceiveFrom(int which,
                   const std::function<void(const std::string&, const pb::ControlRequest&,
                                            const ControlCaller&)>& handle);
  ZmqContext ctx_;
  std::unique_ptr<ZapHandler> zap_;  // before the sockets it vets
  ZmqSocket sock_, remote_;
  std::string endpoint_, remote_endpoint_;
  std::string dir_;
  std::string user_;  // who owns this process: the private socket's clients
  std::optional<RemoteControl> auth_;
};

}  // namespace sweep
