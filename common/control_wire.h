// The service's control messages on the wire (proto/sweep.proto,
// ControlRequest and ControlReply): their version, size cap and checks,
// shared by `sweep serve` and its clients.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/status.h"
#include "proto/sweep.pb.h"

namespace sweep {

inline constexpr uint32_t kControlVersion = 1;
// A request holds a study file at most (study files are capped at 1 MiB).
inline constexpr size_t kMaxControlRequestBytes = 1 << 20;
// A reply lists studies and runners: a large pool's list fits.
inline constexpr size_t kMaxControlReplyBytes = 64 << 20;

std::string EncodeControlRequest(pb::ControlRequest* request);
// Refuses what is over the cap, malformed, of another version or empty.
Result<pb::ControlRequest> DecodeControlRequest(const void* data, size_t size);
std::string EncodeControlReply(pb::ControlReply* reply);
Result<pb::ControlReply> DecodeControlReply(const void* data, size_t size);

}  // namespace sweep
