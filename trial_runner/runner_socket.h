// The runner's DEALER socket to its tuner: its routing id, no linger, the
// message size cap, the CURVE keys when it has them, and a fast reconnect
// to a private tuner that is still starting.
#pragma once

#include <string>

#include "common/status.h"
#include "common/zmq_socket.h"
#include "trial_runner/runner.h"

namespace sweep {

// A socket connecting to o.endpoint as `routing_id` (ZeroMQ connects in
// the background; a tuner not up yet is tried again).
Result<ZmqSocket> ConnectToTuner(ZmqContext& ctx, const RunnerOptions& o,
                                 const std::string& routing_id);

}  // namespace sweep
