// The service's private control socket (see control_socket.h).
#include "tuner/control_socket.h"

#include <pwd.h>
#include <unistd.h>

#include "common/control_wire.h"
#include "common/log.h"
#include "common/private_endpoint.h"

namespace sweep {

Result<std::unique_ptr<ControlSocket>> ControlSocket::Bind() {
  std::unique_ptr<ControlSocket> c(new ControlSocket());
  ASSIGN_OR_RETURN(c->dir_, MakePrivateSocketDir());
  c->endpoint_ = PrivateEndpoint(c->dir_);
  ASSIGN_OR_RETURN(c->sock_, ZmqSocket::Open(c->ctx_, ZMQ_ROUTER));
  RETURN_IF_ERROR(c->sock_.SetInt(ZMQ_LINGER, 0, "ZMQ_LINGER"));
  RETURN_IF_ERROR(c->sock_.SetInt64(ZMQ_MAXMSGSIZE, static_cast<int64_t>(kMaxControlRequestBytes),
                                    "ZMQ_MAXMSGSIZE"));
  // A client that went away is not waited for.
  RETURN_IF_ERROR(c->sock_.SetInt(ZMQ_ROUTER_MANDATORY, 0, "ZMQ_ROUTER_MANDATORY"));
  RETURN_IF_ERROR(c->sock_.Bind(c->endpoint_).Wrap("the control socket"));
  struct passwd* pw = getpwuid(geteuid());
  c->user_ = pw && pw->pw_name ? pw->pw_name : "uid" + std::to_string(geteuid());
  return c;
}

ControlSocket::~ControlSocket() {
  sock_.Close();
  if (!dir_.empty()) {
    unlink((dir_ + "/tuner.sock").c_str());
    rmdir(dir_.c_str());
  }
}

void ControlSocket::Receive(
    const std::function<void(const std::string& client, const pb::ControlRequest&)>& handle) {
  // A bounded batch: a flood of requests cannot starve the runners.
  for (int n = 0; n < 64; ++n) {
    zmq_msg_t id, body;
    zmq_msg_init(&id);
    if (zmq_msg_recv(&id, sock_.get(), ZMQ_DONTWAIT) < 0) {
      zmq_msg_close(&id);
      return;
    }
    std::string client(static_cast<char*>(zmq_msg_data(&id)), zmq_msg_size(&id));
    zmq_msg_close(&id);
    zmq_msg_init(&body);
    zmq_msg_recv(&body, sock_.get(), ZMQ_DONTWAIT);
    bool extra = zmq_msg_more(&body);
    auto request = DecodeControlRequest(zmq_msg_data(&body), zmq_msg_size(&body));
    zmq_msg_close(&body);
    while (extra) {  // a request is one frame: drop the rest
      zmq_msg_t more;
      zmq_msg_init(&more);
      extra = zmq_msg_recv(&more, sock_.get(), ZMQ_DONTWAIT) >= 0 && zmq_msg_more(&more);
      zmq_msg_close(&more);
      if (!request.ok()) continue;
      request = Status::InvalidArgument("a request is one frame");
    }
    if (!request.ok()) {
      LOG_WARN << "control socket: refused a request: " << request.status().message();
      pb::ControlReply err;
      err.set_ok(false);
      err.set_error(request.status().message());
      Reply(client, std::move(err));
      continue;
    }
    handle(client, *request);
  }
}

void ControlSocket::Reply(const std::string& client, pb::ControlReply reply) {
  std::string bytes = EncodeControlReply(&reply);
  if (zmq_send(sock_.get(), client.data(), client.size(), ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0 ||
      zmq_send(sock_.get(), bytes.data(), bytes.size(), ZMQ_DONTWAIT) < 0) {
    LOG_DEBUG << "control socket: a reply was not sent: " << zmq_strerror(zmq_errno());
  }
}

}  // namespace sweep
