// The service's private control socket (see control_socket.h).
#include "tuner/control_socket.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/control_wire.h"
#include "common/log.h"
#include "common/private_endpoint.h"

namespace sweep {

namespace {

Status SetUp(ZmqSocket* sock) {
  RETURN_IF_ERROR(sock->SetInt(ZMQ_LINGER, 0, "ZMQ_LINGER"));
  return sock->SetInt64(ZMQ_MAXMSGSIZE, static_cast<int64_t>(kMaxControlRequestBytes),
                        "ZMQ_MAXMSGSIZE");
}

}  // namespace

Status ReadControlKeys(RemoteControl* remote) {
  remote->clients.clear();
  remote->admins.clear();
  struct stat st;
  const std::string clients = remote->keys_dir + "/clients", admins = remote->keys_dir + "/admins";
  if (stat(clients.c_str(), &st) == 0) {
    ASSIGN_OR_RETURN(remote->clients, ReadCurveNamedKeys(clients));
  }
  if (stat(admins.c_str(), &st) == 0) {
    ASSIGN_OR_RETURN(remote->admins, ReadCurveNamedKeys(admins));
  }
  return Status::Ok();
}

Result<std::unique_ptr<ControlSocket>> ControlSocket::Bind(
    const std::optional<RemoteControl>& remote) {
  std::unique_ptr<ControlSocket> c(new ControlSocket());
  c->auth_ = remote;
  if (remote) {
    ASSIGN_OR_RETURN(c->zap_, ZapHandler::Start(c->ctx_, "client"));
    RemoteControl* auth = &*c->auth_;
    RETURN_IF_ERROR(c->zap_->SetReload([auth]() -> Result<std::set<std::string>> {
      if (!auth->keys_dir.empty()) {
        RemoteControl fresh = *auth;
        RETURN_IF_ERROR(ReadControlKeys(&fresh));
        auth->clients = std::move(fresh.clients);
        auth->admins = std::move(fresh.admins);
      }
      std::set<std::string> keys;
      for (const auto& [key, name] : auth->clients) keys.insert(key);
      for (const auto& [key, name] : auth->admins) keys.insert(key);
      return keys;
    }));
    ASSIGN_OR_RETURN(c->remote_, ZmqSocket::Open(c->ctx_, ZMQ_ROUTER));
    RETURN_IF_ERROR(SetUp(&c->remote_));
    RETURN_IF_ERROR(c->remote_.SetInt(ZMQ_CURVE_SERVER, 1, "ZMQ_CURVE_SERVER"));
    RETURN_IF_ERROR(
        c->remote_.SetBytes(ZMQ_CURVE_SECRETKEY, remote->server.secret_key, "ZMQ_CURVE_SECRETKEY"));
    RETURN_IF_ERROR(c->remote_.SetBytes(ZMQ_ZAP_DOMAIN, "sweep-control", "ZMQ_ZAP_DOMAIN"));
    RETURN_IF_ERROR(c->remote_.Bind(remote->endpoint).Wrap("--control"));
    ASSIGN_OR_RETURN(c->remote_endpoint_, c->remote_.LastEndpoint());
  }
  ASSIGN_OR_RETURN(c->dir_, MakePrivateSocketDir());
  c->endpoint_ = PrivateEndpoint(c->dir_);
  ASSIGN_OR_RETURN(c->sock_, ZmqSocket::Open(c->ctx_, ZMQ_ROUTER));
  RETURN_IF_ERROR(SetUp(&c->sock_));
  RETURN_IF_ERROR(c->sock_.Bind(c->endpoint_).Wrap("the control socket"));
  struct passwd* pw = getpwuid(geteuid());
  c->user_ = pw && pw->pw_name ? pw->pw_name : "uid" + std::to_string(geteuid());
  return c;
}

ControlSocket::~ControlSocket() {
  sock_.Close();
  remote_.Close();
  if (!dir_.empty()) {
    unlink((dir_ + "/tuner.sock").c_str());
    rmdir(dir_.c_str());
  }
}

std::vector<void*> ControlSocket::sockets() const {
  std::vector<void*> out = {sock_.get()};
  if (remote_) out.push_back(remote_.get());
  if (zap_) out.push_back(zap_->socket());
  return out;
}

void ControlSocket::Receive(const std::function<void(const std::string&, const pb::ControlRequest&,
                                                     const ControlCaller&)>& handle) {
  if (zap_) zap_->Serve([](const std::string&) { return false; });
  ReceiveFrom(0, handle);
  if (remote_) ReceiveFrom(1, handle);
}

void ControlSocket::ReceiveFrom(
    int which,
    const std::function<void(const std::string&, const pb::ControlRequest&, const ControlCaller&)>&
        handle) {
  void* sock = which == 0 ? sock_.get() : remote_.get();
  // A bounded batch: a flood of requests cannot starve the runners.
  for (int n = 0; n < 64; ++n) {
    zmq_msg_t id, body;
    zmq_msg_init(&id);
    if (zmq_msg_recv(&id, sock, ZMQ_DONTWAIT) < 0) {
      zmq_msg_close(&id);
      return;
    }
    // The handle: which socket, then the routing id.
    std::string client = std::string(1, static_cast<char>(which)) +
                         std::string(static_cast<char*>(zmq_msg_data(&id)), zmq_msg_size(&id));
    zmq_msg_close(&id);
    zmq_msg_init(&body);
    if (zmq_msg_recv(&body, sock, ZMQ_DONTWAIT) < 0) {  // a routing id with no body
      zmq_msg_close(&body);
      continue;
    }
    bool extra = zmq_msg_more(&body);
    ControlCaller caller{user_, true};
    if (which == 1) {
      // Named by the key it authenticated with (the ZAP handler's User-Id).
      const char* got = zmq_msg_gets(&body, "User-Id");
      const std::string key = got ? got : "";
      auto admin = auth_->admins.find(key);
      auto named = auth_->clients.find(key);
      caller.admin = admin != auth_->admins.end();
      caller.user = caller.admin                    ? admin->second
                    : named != auth_->clients.end() ? named->second
                                                    : "";
    }
    auto request = DecodeControlRequest(zmq_msg_data(&body), zmq_msg_size(&body));
    zmq_msg_close(&body);
    while (extra) {  // a request is one frame: drop the rest
      zmq_msg_t more;
      zmq_msg_init(&more);
      extra = zmq_msg_recv(&more, sock, ZMQ_DONTWAIT) >= 0 && zmq_msg_more(&more);
      zmq_msg_close(&more);
      if (!request.ok()) continue;
      request = Status::InvalidArgument("a request is one frame");
    }
    if (request.ok() && caller.user.empty()) request = Status::Internal("an unnamed client key");
    if (!request.ok()) {
      LOG_WARN << "control socket: refused a request: " << request.status().message();
      pb::ControlReply err;
      err.set_ok(false);
      err.set_error(request.status().message());
      Reply(client, std::move(err));
      continue;
    }
    handle(client, *request, caller);
  }
}

void ControlSocket::Reply(const std::string& client, pb::ControlReply reply) {
  if (client.empty()) return;
  void* sock = client[0] == 0 ? sock_.get() : remote_.get();
  std::string bytes = EncodeControlReply(&reply);
  if (zmq_send(sock, client.data() + 1, client.size() - 1, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0 ||
      zmq_send(sock, bytes.data(), bytes.size(), ZMQ_DONTWAIT) < 0) {
    LOG_DEBUG << "control socket: a reply was not sent: " << zmq_strerror(zmq_errno());
  }
}

}  // namespace sweep
