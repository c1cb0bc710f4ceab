// The dispatcher: its socket, lease checks, routing trial messages to their
// owners, the outbox and heartbeats. Assignment is dispatcher_assign.cc;
// runners joining, coming back and being lost are dispatcher_runners.cc.
#include "tuner/dispatcher.h"

#include <sys/random.h>
#include <unistd.h>

#include <algorithm>

#include "common/clock.h"
#include "common/json.h"
#include "common/log.h"
#include "common/rng.h"
#include "common/values.h"
#include "common/wire.h"

namespace sweep {

namespace {

// A connection that has not completed its handshake by then is dropped, so
// peers without keys cannot hold sockets open. The ZAP handler answers on
// this thread, so this also bounds how long a turn (opening a large study
// replays its history) may keep a joining runner waiting.
constexpr int kHandshakeMs = 30000;

}  // namespace

bool IsLoopbackEndpoint(const std::string& endpoint) {
  return endpoint.rfind("ipc://", 0) == 0 || endpoint.rfind("inproc://", 0) == 0 ||
         endpoint.rfind("tcp://127.", 0) == 0 || endpoint.rfind("tcp://localhost:", 0) == 0 ||
         endpoint.rfind("tcp://[::1]:", 0) == 0;
}

std::string Printable(const std::string& id) {
  std::string out;
  for (unsigned char c : id.substr(0, 64))
    out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  return out;
}

Result<std::unique_ptr<Dispatcher>> Dispatcher::Listen(const DispatcherOptions& o) {
  std::unique_ptr<Dispatcher> d(new Dispatcher(o));
  RETURN_IF_ERROR(d->Bind());
  return d;
}

Dispatcher::~Dispatcher() { sock_.Close(); }

Status Dispatcher::Bind() {
  if (o_.curve) {
    ASSIGN_OR_RETURN(zap_, ZapHandler::Start(ctx_));
  }
  ASSIGN_OR_RETURN(sock_, ZmqSocket::Open(ctx_, ZMQ_ROUTER));
  RETURN_IF_ERROR(sock_.SetInt(ZMQ_HANDSHAKE_IVL, kHandshakeMs, "ZMQ_HANDSHAKE_IVL"));
  ASSIGN_OR_RETURN(
      connections_,
      ConnectionCap::Start(ctx_, sock_.get(),
                           o_.max_connections > 0 ? o_.max_connections : DefaultMaxConnections()));
  RETURN_IF_ERROR(sock_.SetInt(ZMQ_ROUTER_MANDATORY, 1, "ZMQ_ROUTER_MANDATORY"));
  RETURN_IF_ERROR(sock_.SetInt(ZMQ_LINGER, 0, "ZMQ_LINGER"));
  RETURN_IF_ERROR(
      sock_.SetInt64(ZMQ_MAXMSGSIZE, static_cast<int64_t>(kMaxMessageBytes), "ZMQ_MAXMSGSIZE"));
  RETURN_IF_ERROR(sock_.SetInt(ZMQ_SNDHWM, 100000, "ZMQ_SNDHWM"));
  RETURN_IF_ERROR(sock_.SetInt(ZMQ_RCVHWM, 100000, "ZMQ_RCVHWM"));
  // A listener takes the socket's options as they are when it binds: the
  // private endpoint (common/private_endpoint.h) is bound before CURVE is
  // switched on, so its connections go without it, and only they do.
  if (!o_.private_bind.empty()) {
    RETURN_IF_ERROR(sock_.Bind(o_.private_bind));
    ASSIGN_OR_RETURN(private_endpoint_, sock_.LastEndpoint());
  }
  if (o_.curve) {
    RETURN_IF_ERROR(sock_.SetInt(ZMQ_CURVE_SERVER, 1, "ZMQ_CURVE_SERVER"));
    RETURN_IF_ERROR(
        sock_.SetBytes(ZMQ_CURVE_SECRETKEY, o_.curve->secret_key, "ZMQ_CURVE_SECRETKEY"));
    RETURN_IF_ERROR(sock_.SetBytes(ZMQ_ZAP_DOMAIN, "sweep", "ZMQ_ZAP_DOMAIN"));
  }
  RETURN_IF_ERROR(sock_.Bind(o_.bind));
  ASSIGN_OR_RETURN(endpoint_, sock_.LastEndpoint());
  if (!IsLoopbackEndpoint(endpoint_) && !o_.curve) {
    LOG_WARN << "listening on " << endpoint_
             << " WITHOUT AUTHENTICATION (--insecure): any host that reaches this port can join "
                "as a runner, receive trials and report results";
  }
  uint64_t seed = HashKey({static_cast<uint64_t>(getpid()), static_cast<uint64_t>(NowMs()),
                           static_cast<uint64_t>(WallSeconds() * 1e6)});
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(seed));
  instance_ = hex;
  // Leases are unguessable: a secret of their own (the instance id goes out
  // in every message), mixed with a counter by a bijection, so each is new.
  if (getrandom(&lease_key_, sizeof lease_key_, 0) != sizeof lease_key_)
    lease_key_ = HashKey({seed, static_cast<uint64_t>(NowUs())});
  return Status::Ok();
}

Status Dispatcher::Poll(int timeout_ms, int wake_fd) {
  // If this process was frozen (SIGSTOP, swapping), nobody could reach it:
  // do not blame the runners or trials for the gap, whether it fell between
  // two polls or inside one.
  int64_t before = NowMs();
  if (last_poll_ms_ > 0) Forgive(before - last_poll_ms_);
  zmq_pollitem_t items[7] = {{sock_.get(), 0, ZMQ_POLLIN, 0},
                             {connections_->socket(), 0, ZMQ_POLLIN, 0}};
  int count = 2;
  const int zap_at = zap_ ? count++ : -1;  // ZAP requests, with CURVE only
  if (zap_) items[zap_at] = {zap_->socket(), 0, ZMQ_POLLIN, 0};
  if (wake_fd >= 0) items[count++] = {nullptr, wake_fd, ZMQ_POLLIN, 0};
  for (size_t i = 0; i < wake_sockets_.size() && i < 3; ++i)
    items[count++] = {wake_sockets_[i], 0, ZMQ_POLLIN, 0};
  if (zmq_poll(items, count, timeout_ms) < 0 && zmq_errno() != EINTR) return ZmqError("zmq_poll");
  int64_t after = NowMs();
  Forgive(after - before - std::max(0, timeout_ms));
  last_poll_ms_ = after;
  // Connections first, so the handler judges a handshake with the count.
  if (items[1].revents & ZMQ_POLLIN) connections_->Serve();
  if (zap_ && (items[zap_at].revents & ZMQ_POLLIN)) {
    connections_->Serve();
    // Past the cap a new key waits; a key with a runner in (one coming back
    // to re-attach its trials) is still let in.
    zap_->Serve([this](const std::string& key) {
      if (!connections_->full()) return false;
      for (const auto& [id, r] : runners_)
        if (r.key == key) return false;
      connections_->Refused();
      return true;
    });
  }
  zmq_pollitem_t& item = items[0];
  for (int n = 0; n < 10000 && (item.revents & ZMQ_POLLIN); ++n) {
    zmq_msg_t id, body;
    zmq_msg_init(&id);
    if (zmq_msg_recv(&id, sock_.get(), ZMQ_DONTWAIT) < 0) {
      zmq_msg_close(&id);
      break;
    }
    std::string identity(static_cast<char*>(zmq_msg_data(&id)), zmq_msg_size(&id));
    zmq_msg_close(&id);
    zmq_msg_init(&body);
    zmq_msg_recv(&body, sock_.get(), ZMQ_DONTWAIT);
    bool extra = zmq_msg_more(&body);
    // The key the ZAP handler authenticated this connection with.
    const char* key = zap_ ? zmq_msg_gets(&body, "User-Id") : nullptr;
    Handle(identity, key ? key : "", zmq_msg_data(&body), zmq_msg_size(&body));
    zmq_msg_close(&body);
    while (extra) {  // a well-behaved runner sends one frame; drop the rest
      zmq_msg_t junk;
      zmq_msg_init(&junk);
      zmq_msg_recv(&junk, sock_.get(), ZMQ_DONTWAIT);
      extra = zmq_msg_more(&junk);
      zmq_msg_close(&junk);
    }
  }
  CheckLiveness();
  return Status::Ok();
}

void Dispatcher::Queue(const std::string& runner_id, pb::Envelope env) {
  outbox_.emplace_back(runner_id, std::move(env));
}

void Dispatcher::Seal(uint64_t ticket) {
  if (outbox_.empty()) return;
  sealed_.emplace_back(ticket, std::move(outbox_));
  outbox_.clear();
}

void Dispatcher::SendSealed(uint64_t durable) {
  while (!sealed_.empty() && sealed_.front().first <= durable) {
    auto out = std::move(sealed_.front().second);
    sealed_.pop_front();
    for (auto& [identity, env] : out) SendNow(identity, &env);
  }
}

bool Dispatcher::SendNow(const std::string& id, pb::Envelope* env) {
  env->set_tuner_instance(instance_);
  std::string bytes = EncodeEnvelope(env);
  if (zmq_send(sock_.get(), id.data(), id.size(), ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0 ||
      zmq_send(sock_.get(), bytes.data(), bytes.size(), ZMQ_DONTWAIT) < 0) {
    // A connection that is gone (EHOSTUNREACH) is not a runner that is gone:
    // it may come back on a new one and re-attach its trials, so only
    // liveness presumes it dead. A runner that does not read (EAGAIN: its
    // queue is full) would miss what it must hear, so it is lost now.
    int err = zmq_errno();
    Status st = ZmqError("send");
    if (err != EHOSTUNREACH && runners_.count(id)) LoseRunner(id, st.message());
    return false;
  }
  auto it = runners_.find(id);
  if (it != runners_.end()) it->second.last_sent_ms = NowMs();
  return true;
}

void Dispatcher::Handle(const std::string& id, const std::string& key, const void* data,
                        size_t size) {
  auto env = DecodeEnvelope(data, size);
  if (!env.ok()) {
    if (++bad_messages_ <= 20)
      LOG_WARN << "dropped a message from '" << Printable(id) << "': " << env.status().message();
    pb::Envelope err;
    err.mutable_error()->set_reason(env.status().message());
    SendNow(id, &err);
    return;
  }
  if (retired_.count(id)) {
    // A connection its runner replaced: what it still carried is sent again
    // on the new one, after the Ack that re-attached the trial.
    LOG_DEBUG << "dropped a late message from replaced connection '" << Printable(id) << "'";
    return;
  }
  auto it = runners_.find(id);
  // A connection speaks for the key it registered with, nothing else.
  if (it != runners_.end() && it->second.key != key && !env->has_hello()) return;
  if (it != runners_.end()) it->second.last_seen_ms = NowMs();
  TrialOwner* o = nullptr;  // the owner of a message's trial, once its lease checked out
  switch (env->body_case()) {
    case pb::Envelope::kHello:
      HandleHello(id, key, env->hello());
      return;
    case pb::Envelope::kStarted: {
      const pb::Started& s = env->started();
      if (Lease* l = CheckLease(id, s.trial_id(), s.lease(), "started", &o)) {
        l->started = true;
        l->progress_ms = NowMs();
        l->started_us = NowUs();
        o->OnStarted(s.trial_id());
      }
      break;
    }
    case pb::Envelope::kReport: {
      const pb::Report& r = env->report();
      if (Lease* l = CheckLease(id, r.trial_id(), r.lease(), "report", &o)) {
        l->started = true;
        l->progress_ms = NowMs();
        o->OnReport(id, r);
      }
      break;
    }
    case pb::Envelope::kCheckpoint: {
      const pb::Checkpoint& c = env->checkpoint();
      if (CheckLease(id, c.trial_id(), c.lease(), "checkpoint", &o)) o->OnCheckpoint(c);
      break;
    }
    case pb::Envelope::kLog: {
      const pb::Log& g = env->log();
      if (CheckLease(id, g.trial_id(), g.lease(), "log", &o)) o->OnLog(g);
      break;
    }
    case pb::Envelope::kFinal: {
      const pb::Final& f = env->final();
      if (CheckLease(id, f.trial_id(), f.lease(), "final", &o)) {
        o->OnFinal(f);
        pb::Envelope ack;
        ack.mutable_ack()->set_trial_id(f.trial_id());
        ack.mutable_ack()->set_lease(f.lease());
        ack.mutable_ack()->set_step(f.step());
        ack.mutable_ack()->set_final(true);
        Queue(id, std::move(ack));
        auto r = runners_.find(id);
        EndLease(f.trial_id(), r == runners_.end() ? nullptr : &r->second);
      } else if (auto r = runners_.find(id);
                 r != runners_.end() && !r->second.ready && r->second.taken_back == f.lease()) {
        // Told to drop a trial (presumed hung, or its study removed) that
        // it ended before it heard: it has nothing left to stop, so it
        // would never say Hello, and it would take no work again. Ask it
        // to, once.
        r->second.taken_back = 0;
        pb::Envelope re;
        re.mutable_reregister()->set_reason("its trial was taken back as it ended");
        Queue(id, std::move(re));
      }
      break;
    }
    case pb::Envelope::kLeaving:
      HandleLeaving(id, env->leaving());
      return;
    case pb::Envelope::kHeartbeat: {
      // A runner that still works on a trial whose lease expired (it was
      // frozen, or partitioned away) is told to drop it.
      const pb::Heartbeat& hb = env->heartbeat();
      if (hb.busy_trial() != 0) {
        if (Lease* l = CheckLease(id, hb.busy_trial(), hb.lease(), "heartbeat", &o)) {
          if (!l->started) {  // busy with it, even if its Started was lost
            l->started = true;
            o->OnStarted(hb.busy_trial());
          }
        }
      }
      break;
    }
    default:
      break;
  }
  if (runners_.find(id) == runners_.end()) {
    // A runner we presumed dead (or never met): ask it to introduce itself.
    pb::Envelope re;
    re.mutable_reregister()->set_reason("this tuner does not know runner '" + Printable(id) + "'");
    Queue(id, std::move(re));
  }
}

Dispatcher::Lease* Dispatcher::CheckLease(const std::string& id, int64_t trial_id, uint64_t lease,
                                          const char* what, TrialOwner** owner_out) {
  auto it = leases_.find(trial_id);
  Lease* l = it == leases_.end() ? nullptr : &it->second;
  TrialOwner* found = l ? OwnerOf(*l) : nullptr;
  if (l && l->lease == lease && l->runner == id && found) {
    if (owner_out) *owner_out = found;
    return l;
  }
  std::string reason = l == nullptr && dropped_.count(trial_id)
                           ? "its study was removed from this tuner"
                       : l == nullptr      ? "unknown trial or lease expired"
                       : l->lease != lease ? "lease expired: the trial was re-assigned or ended"
                                           : "the trial is not running on this runner";
  if (TrialOwner* owner = found ? found : RecordKeeper(trial_id))
    owner->OnRejected(trial_id, what, "from runner '" + Printable(id) + "': " + reason);
  QueueReject(id, trial_id, lease, reason);
  return nullptr;
}

void Dispatcher::QueueReject(const std::string& id, int64_t trial_id, uint64_t lease,
                             const std::string& reason) {
  pb::Envelope env;
  env.mutable_reject()->set_trial_id(trial_id);
  env.mutable_reject()->set_lease(lease);
  env.mutable_reject()->set_reason(reason);
  // Queued, not sent now: after whatever the runner was promised about the
  // trial by commits still to become durable.
  Queue(id, std::move(env));
}

TrialOwner* Dispatcher::RecordKeeper(int64_t trial_id) const {
  if (!owners_ || owners_->OwnerOrder().empty() || dropped_.count(trial_id)) return nullptr;
  for (int64_t study : owners_->OwnerOrder()) {
    TrialOwner* o = owners_->FindOwner(study);
    if (o && o->Owns(trial_id)) return o;
  }
  return owners_->FindOwner(owners_->OwnerOrder().front());  // nobody's: the first keeps the record
}

void Dispatcher::DropStudy(int64_t study_id, const std::string& reason) {
  used_us_.erase(study_id);
  told_waiting_.erase(study_id);
  std::vector<int64_t> dropped;
  for (const auto& [trial_id, l] : leases_)
    if (l.study_id == study_id) dropped.push_back(trial_id);
  for (int64_t trial_id : dropped) {
    const Lease l = leases_.at(trial_id);
    dropped_.insert(trial_id);
    dropped_order_.push_back(trial_id);
    if (dropped_order_.size() > kMaxDroppedTrials) {
      dropped_.erase(dropped_order_.front());
      dropped_order_.pop_front();
    }
    auto r = runners_.find(l.runner);
    if (r != runners_.end() && !r->second.trials.empty() && r->second.trials.front() == trial_id) {
      TakeBack(l.runner, &r->second, trial_id, l.lease, reason);
    } else {
      // Queued behind another (the runner drops it from its queue), or at
      // a runner already lost.
      QueueReject(l.runner, trial_id, l.lease, reason);
    }
    leases_.erase(trial_id);
    if (r == runners_.end()) continue;
    auto& q = r->second.trials;
    q.erase(std::remove(q.begin(), q.end(), trial_id), q.end());
  }
  if (last_served_ == study_id) last_served_.reset();
}

void Dispatcher::TakeBack(const std::string& id, Runner* r, int64_t trial_id, uint64_t lease,
                          const std::string& reason) {
  QueueReject(id, trial_id, lease, reason);
  r->ready = false;  // it says Hello once its worker has stopped
  r->taken_back = lease;
}

void Dispatcher::EndLease(int64_t trial_id, Runner* r) {
  auto it = leases_.find(trial_id);
  if (it == leases_.end()) return;
  int64_t started_us = it->second.started_us;
  if (started_us > 0) used_us_[it->second.study_id] += NowUs() - started_us;
  leases_.erase(it);
  if (!r) return;
  auto& q = r->trials;
  q.erase(std::remove(q.begin(), q.end(), trial_id), q.end());
  if (started_us > 0) {
    r->last_trial_us = std::max<int64_t>(1, NowUs() - started_us);
    r->busy_us += r->last_trial_us;
  }
  if (!q.empty()) {  // the next one starts now
    auto next = leases_.find(q.front());
    if (next != leases_.end()) {
      next->second.progress_ms = NowMs();
      next->second.started_us = NowUs();
    }
  }
}

void Dispatcher::Heartbeat() {
  int64_t now = NowMs();
  std::vector<std::string> idle;
  for (auto& [id, r] : runners_) {
    if (now - r.last_sent_ms >= o_.heartbeat_ms) idle.push_back(id);
  }
  for (const auto& id : idle) {
    pb::Envelope hb;
    hb.mutable_heartbeat();
    SendNow(id, &hb);
  }
}

void Dispatcher::Shutdown(const std::string& reason) {
  for (auto& [id, r] : runners_) {
    pb::Envelope env;
    env.mutable_shutdown()->set_reason(reason);
    env.set_tuner_instance(instance_);
    std::string bytes = EncodeEnvelope(&env);
    zmq_send(sock_.get(), id.data(), id.size(), ZMQ_SNDMORE | ZMQ_DONTWAIT);
    zmq_send(sock_.get(), bytes.data(), bytes.size(), ZMQ_DONTWAIT);
  }
}

}  // namespace sweep
