// The wire format between tuner and runners: one protobuf Envelope per ZeroMQ
// frame, led by a protocol version. Decoding checks size, parse and version.
#pragma once

#include <cstddef>
#include <string>

#include "common/status.h"
#include "proto/sweep.pb.h"

namespace sweep {

// 2: Started (the runner says when its worker begins a trial).
// 3: command tasks (Task.command, Assign.objective_metric and study,
//    TRIAL_OUTCOME_LOST, CheckpointFolder, Log).
inline constexpr uint32_t kProtocolVersion = 4;
// Larger messages are dropped by ZeroMQ itself (ZMQ_MAXMSGSIZE) before
// they are read; decoding checks again. Sized for checkpoints of the
// networks nn/ trains (a 3.3 M-parameter CNN with Adam state is 40 MB).
inline constexpr size_t kMaxMessageBytes = 128 << 20;

// Heartbeats: every kHeartbeatMs each way; a peer is presumed dead after
// kLivenessBeats missed beats. Any message counts as a beat.
inline constexpr int kHeartbeatMs = 1000;
inline constexpr int kLivenessBeats = 5;
// ProtocolError reasons after which a runner tries again later instead of
// exiting: the tuner holds as many connections as it may; or (without
// keys) a live connection already has this runner's name.
inline constexpr char kTooManyConnections[] = "too many connections";
inline constexpr char kNameInUse[] = "runner name in use by a live connection";

std::string EncodeEnvelope(pb::Envelope* env);
Result<pb::Envelope> DecodeEnvelope(const void* data, size_t size);

}  // namespace sweep
