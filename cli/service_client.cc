// A client of the service's control socket (see service_client.h).
#include "cli/service_client.h"

#include "cli/command.h"
#include "common/control_wire.h"
#include "common/curve_keys.h"
#include "common/zmq_socket.h"
#include "storage/db_lock.h"

namespace sweep {

Result<std::optional<ServiceRow>> RunningService(const std::string& db) {
  ASSIGN_OR_RETURN(std::optional<int64_t> holder, DbLock::Holder(db));
  if (!holder) return std::optional<ServiceRow>();
  ASSIGN_OR_RETURN(auto reader, Reader::Open(db));
  ASSIGN_OR_RETURN(std::optional<ServiceRow> row, reader->Service());
  if (!row || row->pid != *holder) return std::optional<ServiceRow>();
  return row;
}

void AddServiceOptions(CLI::App* command, ServiceAddress* a) {
  AddDbOption(command, &a->db);
  command->add_option("--server", a->server,
                      "A service on another machine: its --control endpoint, tcp://HOST:PORT");
  command->add_option("--key", a->key, "With --server: your key file (NAME.key)");
  command->add_option("--server-key", a->server_key,
                      "With --server: the service's public key (its keys folder's tuner.pub)");
}

namespace {

// Connects `sock` to the service at `a.server` with CURVE.
Status ConnectRemote(const ServiceAddress& a, ZmqSocket* sock) {
  if (a.key.empty() || a.server_key.empty()) {
    return Status::InvalidArgument(
        "--server needs --key (your key file, from `sweep keys new NAME --role client`) and "
        "--server-key (the service's tuner.pub)");
  }
  ASSIGN_OR_RETURN(std::string server_key, ReadCurvePublicFile(a.server_key));
  ASSIGN_OR_RETURN(CurveKeyPair mine, ReadCurveSecretFile(a.key));
  RETURN_IF_ERROR(sock->SetBytes(ZMQ_CURVE_SERVERKEY, server_key, "ZMQ_CURVE_SERVERKEY"));
  RETURN_IF_ERROR(sock->SetBytes(ZMQ_CURVE_PUBLICKEY, mine.public_key, "ZMQ_CURVE_PUBLICKEY"));
  RETURN_IF_ERROR(sock->SetBytes(ZMQ_CURVE_SECRETKEY, mine.secret_key, "ZMQ_CURVE_SECRETKEY"));
  return sock->Connect(a.server).Wrap("--server");
}

}  // namespace

Result<pb::ControlReply> CallService(const ServiceAddress& a, pb::ControlRequest request,
                                     int timeout_ms) {
  const std::string& db = a.db;
  const std::string where = a.server.empty() ? db : a.server;
  std::optional<ServiceRow> service;
  if (a.server.empty()) {
    ASSIGN_OR_RETURN(service, RunningService(db));
  }
  if (a.server.empty() && !service) {
    auto holder = DbLock::Holder(db);
    if (holder.ok() && *holder) {
      return Status::FailedPrecondition("the process holding " + db + " (pid " +
                                        std::to_string(**holder) +
                                        ") is a `sweep run`, not a service; start the service "
                                        "with `sweep serve --db " +
                                        db + "` once it is done");
    }
    return Status::FailedPrecondition("no service runs on " + db + "; start one with `sweep " +
                                      "serve --db " + db + "`");
  }
  ZmqContext ctx;
  ASSIGN_OR_RETURN(ZmqSocket sock, ZmqSocket::Open(ctx, ZMQ_DEALER));
  RETURN_IF_ERROR(sock.SetInt(ZMQ_LINGER, 0, "ZMQ_LINGER"));
  RETURN_IF_ERROR(
      sock.SetInt64(ZMQ_MAXMSGSIZE, static_cast<int64_t>(kMaxControlReplyBytes), "ZMQ_MAXMSGSIZE"));
  // A refused key shows only as a failed handshake: watched for.
  RETURN_IF_ERROR(zmq_socket_monitor(sock.get(), "inproc://control-client-monitor",
                                     ZMQ_EVENT_HANDSHAKE_FAILED_AUTH |
                                         ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                                         ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL) == 0
                      ? Status::Ok()
                      : ZmqError("zmq_socket_monitor"));
  ASSIGN_OR_RETURN(ZmqSocket monitor, ZmqSocket::Open(ctx, ZMQ_PAIR));
  RETURN_IF_ERROR(monitor.SetInt(ZMQ_LINGER, 0, "ZMQ_LINGER"));
  RETURN_IF_ERROR(monitor.Connect("inproc://control-client-monitor"));
  if (a.server.empty()) {
    RETURN_IF_ERROR(sock.Connect(service->control).Wrap("the service's control socket"));
  } else {
    RETURN_IF_ERROR(ConnectRemote(a, &sock));
  }
  std::string bytes = EncodeControlRequest(&request);
  if (zmq_send(sock.get(), bytes.data(), bytes.size(), 0) < 0) return ZmqError("zmq_send");
  zmq_pollitem_t items[2] = {{sock.get(), 0, ZMQ_POLLIN, 0}, {monitor.get(), 0, ZMQ_POLLIN, 0}};
  int ready = zmq_poll(items, 2, timeout_ms);
  if (ready < 0) return ZmqError("zmq_poll");
  if (items[1].revents & ZMQ_POLLIN) {
    return Status::FailedPrecondition(
        "the service at " + where +
        " refused this client's key: only keys in its keys folder's clients/ and admins/ may "
        "talk to it (and --server-key must be its tuner.pub)");
  }
  if (ready == 0) {
    return Status::Unavailable("the service at " + where + " did not answer within " +
                               std::to_string(timeout_ms / 1000) + " s");
  }
  zmq_msg_t msg;
  zmq_msg_init(&msg);
  if (zmq_msg_recv(&msg, sock.get(), 0) < 0) {
    zmq_msg_close(&msg);
    return ZmqError("zmq_msg_recv");
  }
  auto reply = DecodeControlReply(zmq_msg_data(&msg), zmq_msg_size(&msg));
  zmq_msg_close(&msg);
  RETURN_IF_ERROR(reply.status().Wrap("the service's reply"));
  if (!reply->ok()) return Status::FailedPrecondition(reply->error());
  return reply;
}

}  // namespace sweep
