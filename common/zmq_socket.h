// A small ZeroMQ wrapper shared by the tuner and the runner: RAII for the
// context and sockets, and every zmq error converted once (ZmqError), with
// the call that failed. Not thread-safe, like the sockets themselves.
#pragma once

#include <zmq.h>

#include <cstdint>
#include <string>

#include "common/status.h"

namespace sweep {

// zmq_errno() after a failed `call`: kUnavailable for a peer or endpoint
// that cannot be reached (EHOSTUNREACH, EADDRINUSE, ECONNREFUSED, ...),
// kResourceExhausted for a full queue (EAGAIN), kInvalidArgument for a bad
// endpoint or option (EINVAL, EPROTONOSUPPORT), else kIOError.
Status ZmqError(const std::string& call);

class ZmqContext {
 public:
  ZmqContext() : ctx_(zmq_ctx_new()) {}
  ~ZmqContext() {
    if (ctx_) zmq_ctx_term(ctx_);
  }
  ZmqContext(const ZmqContext&) = delete;
  ZmqContext& operator=(const ZmqContext&) = delete;
  void* get() const { return ctx_; }

 private:
  void* ctx_;
};

// An endpoint with its transport (tcp://host:port, ipc:///path): a bare
// host:port, which ZeroMQ refuses as "Invalid argument", gets the fix.
Status CheckEndpoint(const std::string& endpoint);

class ZmqSocket {
 public:
  ZmqSocket() = default;
  ~ZmqSocket() { Close(); }
  ZmqSocket(ZmqSocket&& o) noexcept : sock_(o.sock_) { o.sock_ = nullptr; }
  ZmqSocket& operator=(ZmqSocket&& o) noexcept {
    if (this != &o) {
      Close();
      sock_ = o.sock_;
      o.sock_ = nullptr;
    }
    return *this;
  }
  ZmqSocket(const ZmqSocket&) = delete;
  ZmqSocket& operator=(const ZmqSocket&) = delete;

  static Result<ZmqSocket> Open(const ZmqContext& ctx, int type);

  Status SetInt(int option, int value, const char* name);
  Status SetInt64(int option, int64_t value, const char* name);
  Status SetBytes(int option, const std::string& value, const char* name);
  Status Bind(const std::string& endpoint);
  Status Connect(const std::string& endpoint);
  // The endpoint actually bound (a wildcard port resolved).
  Result<std::string> LastEndpoint() const;

  void* get() const { return sock_; }
  explicit operator bool() const { return sock_ != nullptr; }
  void Close() {
    if (sock_) zmq_close(sock_);
    sock_ = nullptr;
  }

 private:
  explicit ZmqSocket(void* sock) : sock_(sock) {}
  void* sock_ = nullptr;
};

}  // namespace sweep
