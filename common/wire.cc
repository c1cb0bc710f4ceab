// Envelope encoding and clocks.
#include "common/wire.h"

namespace sweep {

std::string EncodeEnvelope(pb::Envelope* env) {
  env->set_version(kProtocolVersion);
  return env->SerializeAsString();
}

Result<pb::Envelope> DecodeEnvelope(const void* data, size_t size) {
  if (size > kMaxMessageBytes) {
    return Status::ResourceExhausted("message of " + std::to_string(size) + " bytes exceeds the " +
                                     std::to_string(kMaxMessageBytes) + "-byte limit");
  }
  pb::Envelope env;
  if (!env.ParseFromArray(data, static_cast<int>(size))) {
    return Status::InvalidArgument("malformed message (" + std::to_string(size) +
                                   " bytes): not a sweep Envelope");
  }
  if (env.version() != kProtocolVersion) {
    return Status::InvalidArgument("protocol version " + std::to_string(env.version()) +
                                   " is not supported (this build speaks " +
                                   std::to_string(kProtocolVersion) + ")");
  }
  if (env.body_case() == pb::Envelope::BODY_NOT_SET)
    return Status::InvalidArgument("message has no body");
  return env;
}

}  // namespace sweep
