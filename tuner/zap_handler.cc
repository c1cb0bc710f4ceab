// The ZAP handler: CURVE public keys on the allow-list may connect.
#include "tuner/zap_handler.h"

#include <vector>

#include "common/clock.h"
#include "common/log.h"

namespace sweep {

namespace {

constexpr const char* kZapEndpoint = "inproc://zeromq.zap.01";
constexpr size_t kZapFrames = 7;  // version .. credentials (one for CURVE)

// One request's frames, or empty if it could not be read.
std::vector<std::string> ReadRequest(void* sock) {
  std::vector<std::string> frames;
  bool more = true;
  while (more && frames.size() < 16) {
    zmq_msg_t m;
    zmq_msg_init(&m);
    if (zmq_msg_recv(&m, sock, ZMQ_DONTWAIT) < 0) {
      zmq_msg_close(&m);
      return {};
    }
    frames.emplace_back(static_cast<char*>(zmq_msg_data(&m)), zmq_msg_size(&m));
    more = zmq_msg_more(&m);
    zmq_msg_close(&m);
  }
  return frames;
}

void Reply(void* sock, const std::string& request_id, const char* code, const char* text,
           const std::string& user) {
  const std::string frames[] = {"1.0", request_id, code, text, user, ""};
  for (size_t i = 0; i < 6; ++i)
    zmq_send(sock, frames[i].data(), frames[i].size(), i + 1 < 6 ? ZMQ_SNDMORE : 0);
}

}  // namespace

Result<std::unique_ptr<ZapHandler>> ZapHandler::Start(const ZmqContext& ctx,
                                                      const std::string& who) {
  std::unique_ptr<ZapHandler> z(new ZapHandler());
  z->who_ = who;
  ASSIGN_OR_RETURN(z->sock_, ZmqSocket::Open(ctx, ZMQ_REP));
  RETURN_IF_ERROR(z->sock_.SetInt(ZMQ_LINGER, 0, "ZMQ_LINGER"));
  RETURN_IF_ERROR(z->sock_.Bind(kZapEndpoint));
  return z;
}

void ZapHandler::Serve(const std::function<bool(const std::string& z85)>& over_cap) {
  for (int n = 0; n < 1000; ++n) {
    int events = 0;
    size_t len = sizeof events;
    if (zmq_getsockopt(sock_.get(), ZMQ_EVENTS, &events, &len) != 0 || !(events & ZMQ_POLLIN))
      return;
    std::vector<std::string> f = ReadRequest(sock_.get());
    if (f.empty()) return;
    // A REP socket must answer every request it read, even a malformed one.
    std::string request_id = f.size() > 1 ? f[1] : "";
    if (f.size() < kZapFrames || f[0] != "1.0" || f[5] != "CURVE" || f[6].size() != 32) {
      Reply(sock_.get(), request_id, "400", "CURVE credentials required", "");
      ++refused_;
      continue;
    }
    char z85[41];
    zmq_z85_encode(z85, reinterpret_cast<const uint8_t*>(f[6].data()), 32);
    MaybeReload();
    if (Allowed(z85) && over_cap(z85)) {
      Reply(sock_.get(), request_id, "400", "too many connections", "");
      continue;
    }
    if (Allowed(z85)) {
      Reply(sock_.get(), request_id, "200", "OK", z85);
      continue;
    }
    ++refused_;
    if (refused_ <= 10 || refused_ % 1000 == 0) {
      LOG_WARN << "refused a " << who_ << " from " << (f[3].empty() ? "?" : f[3].substr(0, 64))
               << ": its key " << std::string(z85).substr(0, 8)
               << "... is not allowed (refusals so far: " << refused_ << ")";
    }
    Reply(sock_.get(), request_id, "400", "key not allowed", "");
  }
}

Status ZapHandler::SetReload(std::function<Result<std::set<std::string>>()> read) {
  read_ = std::move(read);
  ASSIGN_OR_RETURN(loaded_, read_());
  last_read_ms_ = NowMs();
  return Status::Ok();
}

void ZapHandler::MaybeReload() {
  if (!read_ || NowMs() - last_read_ms_ < 1000) return;
  last_read_ms_ = NowMs();
  auto keys = read_();
  if (!keys.ok()) {
    LOG_WARN << "the " << who_ << " keys could not be read again; the keys read last stay: "
             << keys.status().message();
    return;
  }
  if (*keys != loaded_)
    LOG_INFO << who_ << " keys read again: " << keys->size() << " (were " << loaded_.size() << ")";
  loaded_ = std::move(*keys);
}

}  // namespace sweep
