// The service's control socket: a ROUTER on an ipc:// endpoint in a folder
// only this user may enter (common/private_endpoint.h), so every client is
// this user. It answers one ControlReply to each ControlRequest: requests
// over the cap, malformed or of another version are answered with an error
// here and never reach the service. Replies may wait (for a commit): the
// service answers a request by its handle.
// REQUIRES: external synchronization (the service's thread).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "common/status.h"
#include "common/zmq_socket.h"
#include "proto/sweep.pb.h"

namespace sweep {

class ControlSocket {
 public:
  // Binds a fresh private endpoint.
  static Result<std::unique_ptr<ControlSocket>> Bind();
  ~ControlSocket();

  const std::string& endpoint() const { return endpoint_; }
  // For the event loop's poll: readable when a request waits.
  void* socket() const { return sock_.get(); }
  // The user every client of this socket is (who owns the process).
  const std::string& user() const { return user_; }

  // Hands each waiting request to `handle` with a handle to answer it by
  // (Reply), without blocking.
  void Receive(
      const std::function<void(const std::string& client, const pb::ControlRequest&)>& handle);
  void Reply(const std::string& client, pb::ControlReply reply);

 private:
  ControlSocket() = default;
  ZmqContext ctx_;
  ZmqSocket sock_;
  std::string endpoint_;
  std::string dir_;
  std::string user_;
};

}  // namespace sweep
