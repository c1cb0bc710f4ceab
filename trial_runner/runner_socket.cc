// The runner's socket to its tuner: see runner_socket.h.
#include "trial_runner/runner_socket.h"

#include <zmq.h>

#include "common/wire.h"

namespace sweep {

Result<ZmqSocket> ConnectToTuner(ZmqContext& ctx, const RunnerOptions& o,
                                 const std::string& routing_id) {
  ASSIGN_OR_RETURN(ZmqSocket sock, ZmqSocket::Open(ctx, ZMQ_DEALER));
  Status st = sock.SetBytes(ZMQ_ROUTING_ID, routing_id, "ZMQ_ROUTING_ID");
  if (st.ok()) st = sock.SetInt(ZMQ_LINGER, 0, "ZMQ_LINGER");
  if (st.ok())
    st = sock.SetInt64(ZMQ_MAXMSGSIZE, static_cast<int64_t>(kMaxMessageBytes), "ZMQ_MAXMSGSIZE");
  if (st.ok() && o.keys) {
    st = sock.SetBytes(ZMQ_CURVE_SERVERKEY, o.server_key, "ZMQ_CURVE_SERVERKEY");
    if (st.ok()) st = sock.SetBytes(ZMQ_CURVE_PUBLICKEY, o.keys->public_key, "ZMQ_CURVE_PUBLICKEY");
    if (st.ok()) st = sock.SetBytes(ZMQ_CURVE_SECRETKEY, o.keys->secret_key, "ZMQ_CURVE_SECRETKEY");
  }
  if (st.ok() && o.private_tuner) {
    // A local runner starts while its tuner opens the database, before
    // the socket is bound: it tries again after 1, 2 and then every 4 ms
    // (a refused connect to a local socket costs microseconds), not every
    // 100 ms (ZeroMQ's default). A longer back-off would keep a runner
    // that was ready early waiting after the bind, on every start.
    st = sock.SetInt(ZMQ_RECONNECT_IVL, 1, "ZMQ_RECONNECT_IVL");
    if (st.ok()) st = sock.SetInt(ZMQ_RECONNECT_IVL_MAX, 4, "ZMQ_RECONNECT_IVL_MAX");
  }
  if (st.ok()) st = sock.Connect(o.endpoint);
  RETURN_IF_ERROR(st);
  return sock;
}

}  // namespace sweep
