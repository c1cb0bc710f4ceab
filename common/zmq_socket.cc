// ZeroMQ errors converted once, and the socket wrapper's calls.
#include "common/zmq_socket.h"

#include <cerrno>

namespace sweep {

Status ZmqError(const std::string& call) {
  int err = zmq_errno();
  std::string message = call + ": " + zmq_strerror(err);
  switch (err) {
    case EHOSTUNREACH:
    case EADDRINUSE:
    case EADDRNOTAVAIL:
    case ECONNREFUSED:
    case ENOTCONN:
    case ETERM:
      return Status::Unavailable(std::move(message));
    case EAGAIN:
    case EMFILE:
    case ENOMEM:
      return Status::ResourceExhausted(std::move(message));
    case EINVAL:
    case EPROTONOSUPPORT:
    case ENOCOMPATPROTO:
    case ENODEV:
      return Status::InvalidArgument(std::move(message));
    default:
      return Status::IOError(std::move(message));
  }
}

Result<ZmqSocket> ZmqSocket::Open(const ZmqContext& ctx, int type) {
  if (!ctx.get()) return ZmqError("zmq_ctx_new");
  void* s = zmq_socket(ctx.get(), type);
  if (!s) return ZmqError("zmq_socket");
  return ZmqSocket(s);
}

Status ZmqSocket::SetInt(int option, int value, const char* name) {
  if (zmq_setsockopt(sock_, option, &value, sizeof value) != 0)
    return ZmqError(std::string("zmq_setsockopt(") + name + ")");
  return Status::Ok();
}

Status ZmqSocket::SetInt64(int option, int64_t value, const char* name) {
  if (zmq_setsockopt(sock_, option, &value, sizeof value) != 0)
    return ZmqError(std::string("zmq_setsockopt(") + name + ")");
  return Status::Ok();
}

Status ZmqSocket::SetBytes(int option, const std::string& value, const char* name) {
  if (zmq_setsockopt(sock_, option, value.data(), value.size()) != 0)
    return ZmqError(std::string("zmq_setsockopt(") + name + ")");
  return Status::Ok();
}

Status CheckEndpoint(const std::string& endpoint) {
  if (endpoint.find("://") != std::string::npos) return Status::Ok();
  return Status::InvalidArgument("'" + endpoint + "' names no transport: write tcp://" + endpoint +
                                 " (or ipc:///path/sock for a Unix socket)");
}

Status ZmqSocket::Bind(const std::string& endpoint) {
  RETURN_IF_ERROR(CheckEndpoint(endpoint).Wrap("cannot listen"));
  if (zmq_bind(sock_, endpoint.c_str()) != 0) return ZmqError("cannot listen on " + endpoint);
  return Status::Ok();
}

Status ZmqSocket::Connect(const std::string& endpoint) {
  RETURN_IF_ERROR(CheckEndpoint(endpoint).Wrap("cannot connect"));
  if (zmq_connect(sock_, endpoint.c_str()) != 0) return ZmqError("cannot connect to " + endpoint);
  return Status::Ok();
}

Result<std::string> ZmqSocket::LastEndpoint() const {
  char buf[512];
  size_t len = sizeof buf;
  if (zmq_getsockopt(sock_, ZMQ_LAST_ENDPOINT, buf, &len) != 0)
    return ZmqError("zmq_getsockopt(ZMQ_LAST_ENDPOINT)");
  return std::string(buf);
}

}  // namespace sweep
