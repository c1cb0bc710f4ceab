// A client of the service's control socket (see service_client.h).
#include "cli/service_client.h"

#include "common/control_wire.h"
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

Result<pb::ControlReply> CallService(const std::string& db, pb::ControlRequest request,
                                     int timeout_ms) {
  ASSIGN_OR_RETURN(std::optional<ServiceRow> service, RunningService(db));
  if (!service) {
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
  RETURN_IF_ERROR(sock.Connect(service->control).Wrap("the service's control socket"));
  std::string bytes = EncodeControlRequest(&request);
  if (zmq_send(sock.get(), bytes.data(), bytes.size(), 0) < 0) return ZmqError("zmq_send");
  zmq_pollitem_t item = {sock.get(), 0, ZMQ_POLLIN, 0};
  int ready = zmq_poll(&item, 1, timeout_ms);
  if (ready < 0) return ZmqError("zmq_poll");
  if (ready == 0) {
    return Status::Unavailable("the service on " + db + " (pid " + std::to_string(service->pid) +
                               ") did not answer within " + std::to_string(timeout_ms / 1000) +
                               " s");
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
