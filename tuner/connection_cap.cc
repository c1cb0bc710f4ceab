// The tuner's cap on open connections (see connection_cap.h).
#include "tuner/connection_cap.h"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>

#include "common/log.h"

namespace sweep {

Result<std::unique_ptr<ConnectionCap>> ConnectionCap::Start(const ZmqContext& ctx, void* router,
                                                            int cap) {
  std::unique_ptr<ConnectionCap> c(new ConnectionCap());
  static std::atomic<int> serial{0};
  std::string address = "inproc://sweep-connections-" + std::to_string(++serial);
  if (zmq_socket_monitor(router, address.c_str(), ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED) != 0)
    return ZmqError("zmq_socket_monitor");
  ASSIGN_OR_RETURN(c->monitor_, ZmqSocket::Open(ctx, ZMQ_PAIR));
  RETURN_IF_ERROR(c->monitor_.SetInt(ZMQ_LINGER, 0, "ZMQ_LINGER"));
  // No high-water mark on the pipe: a dropped event would skew the count.
  RETURN_IF_ERROR(c->monitor_.SetInt(ZMQ_RCVHWM, 0, "ZMQ_RCVHWM"));
  RETURN_IF_ERROR(c->monitor_.Connect(address));
  c->cap_ = std::max(1, cap);
  return c;
}

void ConnectionCap::Serve() {
  for (int n = 0; n < 100000; ++n) {
    zmq_msg_t event;
    zmq_msg_init(&event);
    if (zmq_msg_recv(&event, monitor_.get(), ZMQ_DONTWAIT) < 0) {
      zmq_msg_close(&event);
      return;
    }
    uint16_t kind = 0;
    if (zmq_msg_size(&event) >= 2) std::memcpy(&kind, zmq_msg_data(&event), 2);
    bool more = zmq_msg_more(&event);
    zmq_msg_close(&event);
    while (more) {  // the endpoint's frame
      zmq_msg_t rest;
      zmq_msg_init(&rest);
      zmq_msg_recv(&rest, monitor_.get(), 0);
      more = zmq_msg_more(&rest);
      zmq_msg_close(&rest);
    }
    if (kind == ZMQ_EVENT_ACCEPTED) ++open_;
    if (kind == ZMQ_EVENT_DISCONNECTED) open_ = std::max<int64_t>(0, open_ - 1);
  }
}

void ConnectionCap::Refused() {
  if (++refused_ <= 10 || refused_ % 1000 == 0)
    LOG_WARN << "refused a connection: " << open_ << " are open, more than this tuner holds "
             << "(--max-connections " << cap_ << "; refusals so far: " << refused_ << ")";
}

int DefaultMaxConnections() {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return 1024;
  rlim_t want = std::min<rlim_t>(rl.rlim_max, 65536);
  if (rl.rlim_cur < want) {
    rl.rlim_cur = want;
    setrlimit(RLIMIT_NOFILE, &rl);
    getrlimit(RLIMIT_NOFILE, &rl);
  }
  // Room for the database, its WAL, checkpoints, logs and local runners.
  int64_t room = static_cast<int64_t>(rl.rlim_cur) - 256;
  return static_cast<int>(std::clamp<int64_t>(room, 16, 4096));
}

}  // namespace sweep
