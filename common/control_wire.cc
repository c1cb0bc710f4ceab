// The service's control messages: encoding and the checks on decoding.
#include "common/control_wire.h"

namespace sweep {

namespace {

template <typename M>
Result<M> Decode(const void* data, size_t size, size_t cap, const char* what) {
  if (size > cap) {
    return Status::ResourceExhausted(std::string(what) + " of " + std::to_string(size) +
                                     " bytes exceeds the " + std::to_string(cap) + "-byte limit");
  }
  M m;
  if (!m.ParseFromArray(data, static_cast<int>(size)))
    return Status::InvalidArgument(std::string("malformed ") + what);
  if (m.version() != kControlVersion) {
    return Status::InvalidArgument(std::string(what) + " of control protocol version " +
                                   std::to_string(m.version()) + "; this sweep speaks " +
                                   std::to_string(kControlVersion) +
                                   " (use the same sweep version for the service and its clients)");
  }
  return m;
}

}  // namespace

std::string EncodeControlRequest(pb::ControlRequest* request) {
  request->set_version(kControlVersion);
  return request->SerializeAsString();
}

Result<pb::ControlRequest> DecodeControlRequest(const void* data, size_t size) {
  ASSIGN_OR_RETURN(pb::ControlRequest r,
                   Decode<pb::ControlRequest>(data, size, kMaxControlRequestBytes, "request"));
  if (r.body_case() == pb::ControlRequest::BODY_NOT_SET)
    return Status::InvalidArgument("request has no body");
  return r;
}

std::string EncodeControlReply(pb::ControlReply* reply) {
  reply->set_version(kControlVersion);
  return reply->SerializeAsString();
}

Result<pb::ControlReply> DecodeControlReply(const void* data, size_t size) {
  return Decode<pb::ControlReply>(data, size, kMaxControlReplyBytes, "reply");
}

}  // namespace sweep
