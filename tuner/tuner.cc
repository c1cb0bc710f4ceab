// The tuner event loop: poll the ROUTER, handle a batch of messages, commit
// the batch in one transaction, then acknowledge and dispatch.
#include "tuner/tuner.h"

#include <signal.h>
#include <unistd.h>
#include <zmq.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <deque>
#include <map>
#include <set>
#include <memory>
#include <thread>
#include <unordered_map>

#include "common/clock.h"
#include "common/json.h"
#include "common/log.h"
#include "common/rng.h"
#include "common/values.h"
#include "common/wire.h"
#include "search_spaces/validate.h"
#include "storage/checkpoint_files.h"
#include "storage/sqlite_store.h"
#include "tuner/local_runners.h"
#include "tuner/progress.h"
#include "tuner/scheduler.h"

namespace sweep {

namespace {

std::atomic<int> g_signals{0};

void OnSignal(int) {
  if (g_signals.fetch_add(1) >= 1) {
    const char msg[] = "\nsweep: second interrupt, exiting now (committed results are safe)\n";
    ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
    _exit(130);
  }
}

// Routing ids are bytes chosen by the peer: print them safely.
std::string Printable(const std::string& id) {
  std::string out;
  for (unsigned char c : id.substr(0, 64)) out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  return out;
}

// tcp://0.0.0.0:5555 or tcp://*:5555 -> tcp://127.0.0.1:5555 for local runners.
std::string LocalConnectEndpoint(const std::string& bound) {
  for (const char* any : {"tcp://0.0.0.0:", "tcp://*:"}) {
    if (bound.rfind(any, 0) == 0) return "tcp://127.0.0.1:" + bound.substr(std::strlen(any));
  }
  return bound;
}

bool IsLoopback(const std::string& endpoint) {
  return endpoint.rfind("ipc://", 0) == 0 || endpoint.rfind("inproc://", 0) == 0 ||
         endpoint.rfind("tcp://127.", 0) == 0 || endpoint.rfind("tcp://localhost:", 0) == 0 ||
         endpoint.rfind("tcp://[::1]:", 0) == 0;
}

struct Trial {
  int64_t id = 0;
  int64_t number = 0;
  std::string status;
  int attempts = 0;
  pb::ParamSet params;
  uint64_t lease = 0;
  std::string runner;  // routing id while running
  int64_t progress_ms = 0;  // last report, or when it started on its runner
  bool started = false;      // the runner has begun it (not just queued it)
  int64_t last_step = 0;
  std::optional<double> last_objective;
  int64_t started_us = 0;  // when it became the runner's front trial
  std::string checkpoint_path;  // latest committed checkpoint
  int64_t checkpoint_step = 0;
};

struct Runner {
  std::string name;
  int64_t last_seen_ms = 0;
  int64_t last_sent_ms = 0;
  // Trials assigned to this runner: the front one runs, the rest wait there.
  std::deque<int64_t> trials;
  bool ready = false;  // registered (Hello) and able to take work
  int64_t last_trial_us = -1;  // duration of its last trial, -1 before the first
};

// Runners that finish trials this fast get a second trial queued ahead, so
// they never wait a round trip for work. Slower trials are assigned one at a
// time, so "running" means running.
constexpr int64_t kFastTrialMs = 250;
// At most one commit per this interval: under load one fsync covers many
// messages (group commit); an idle tuner commits at once.
constexpr int64_t kCommitIntervalUs = 1000;
// How much work, in time, a runner with very short trials keeps queued.
constexpr int64_t kQueuedWorkUs = 5000;
constexpr size_t kMaxQueuedTrials = 16;

class Tuner {
 public:
  explicit Tuner(const TunerOptions& o) : o_(o) {}
  ~Tuner() {
    if (sock_) zmq_close(sock_);
    if (ctx_) zmq_ctx_term(ctx_);
  }
  int Run();

 private:
  Status Setup();
  Status Turn();
  // Writes this turn's progress and commits the open transaction.
  void Commit();
  // Sends acks, assignments and replies held back until the commit.
  void SendPending();
  // Heartbeats, local runner supervision, progress display.
  void Housekeeping();
  void HandleMessage(const std::string& identity, const void* data, size_t size);
  void HandleHello(const std::string& identity, const pb::Hello& hello);
  Trial* CheckLease(const std::string& identity, int64_t trial_id, uint64_t lease, const char* what);
  void HandleReport(const std::string& identity, const pb::Report& report);
  void HandleFinal(const std::string& identity, const pb::Final& fin);
  void HandleCheckpoint(const std::string& identity, const pb::Checkpoint& ckpt);
  void Dispatch();
  void CheckLiveness();
  void LoseRunner(const std::string& identity, const std::string& reason);
  void LoseTrial(Trial* t, const std::string& reason);
  // Takes back a trial its runner never started (no attempt is counted).
  void Unassign(Trial* t);
  // Everything assigned to the runner is lost or taken back.
  void ReleaseTrials(Runner* r, const std::string& reason);
  void Finish(Trial* t, const std::string& status, std::optional<double> value, int64_t step,
              const std::string& metrics_json, const std::string& failure);
  void Queue(const std::string& identity, pb::Envelope env);
  bool SendNow(const std::string& identity, pb::Envelope* env);
  void Event(int64_t trial_id, const std::string& kind, const std::string& detail);
  void Write(Status st);
  bool Done() const { return scheduler_->Exhausted() && queue_.empty() && running_ == 0; }
  ProgressCounts Counts() const;
  int Shutdown(const std::string& reason);
  void PrintSummary();

  TunerOptions o_;
  pb::Study study_;
  std::unique_ptr<SearchSpace> space_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<LocalRunners> local_;
  std::unique_ptr<Progress> progress_;
  int64_t study_id_ = 0;
  void* ctx_ = nullptr;
  void* sock_ = nullptr;
  std::string endpoint_;
  std::string instance_;
  uint64_t lease_base_ = 0;
  uint64_t lease_counter_ = 0;
  std::unordered_map<int64_t, Trial> trials_;
  std::deque<int64_t> queue_;
  std::map<std::string, Runner> runners_;
  std::vector<std::pair<std::string, pb::Envelope>> outbox_;
  std::map<int64_t, std::pair<std::string, pb::Ack>> acks_;
  std::set<int64_t> progress_dirty_;
  int64_t running_ = 0, completed_ = 0, failed_ = 0, stopped_ = 0;
  std::optional<double> best_;
  int64_t best_id_ = 0;
  Status write_error_;
  int64_t bad_messages_ = 0;
  int64_t last_turn_ms_ = 0;
  int64_t last_commit_us_ = 0;
  std::string checkpoint_dir_;
  std::vector<std::string> obsolete_files_;
  int64_t start_ms_ = 0;
  int64_t trials_at_start_ = 0;
  int max_retries_ = 2;
  int64_t stall_ms_ = 0;
};

Status Tuner::Setup() {
  ASSIGN_OR_RETURN(ParsedStudy parsed, LoadStudyFile(o_.study_path));
  RETURN_IF_ERROR(ValidateStudy(&parsed));
  study_ = parsed.study;
  ASSIGN_OR_RETURN(SearchSpace space, SearchSpace::Create(study_));
  space_ = std::make_unique<SearchSpace>(std::move(space));
  max_retries_ = study_.algorithm().has_max_retries() ? study_.algorithm().max_retries() : 2;
  double stall = study_.task().has_stall_timeout_s() ? study_.task().stall_timeout_s() : 1800;
  stall_ms_ = static_cast<int64_t>(stall * 1000);

  ASSIGN_OR_RETURN(store_, Store::Open(o_.db_path));
  checkpoint_dir_ = o_.db_path + ".checkpoints";
  ASSIGN_OR_RETURN(study_id_, store_->OpenStudy(study_));
  RETURN_IF_ERROR(store_->Begin());
  ASSIGN_OR_RETURN(int requeued, store_->RequeueRunning(study_id_, WallSeconds()));
  if (requeued > 0) {
    RETURN_IF_ERROR(store_->AddEvent(study_id_, 0, "resumed",
                                     std::to_string(requeued) + " interrupted trials re-queued", WallSeconds()));
  }
  RETURN_IF_ERROR(store_->SetStudyStatus(study_id_, "running", WallSeconds()));
  RETURN_IF_ERROR(store_->Commit());
  ASSIGN_OR_RETURN(std::vector<TrialRecord> existing, store_->LoadTrials(study_id_));
  for (auto& r : existing) {
    Trial t;
    t.id = r.id;
    t.number = r.number;
    t.status = r.status;
    t.attempts = r.attempts;
    t.params = std::move(r.params);
    t.checkpoint_path = r.checkpoint_path;
    t.checkpoint_step = r.checkpoint_step;
    if (t.status == "queued") queue_.push_back(t.id);
    if (t.status == "completed") {
      ++completed_;
      if (r.value && (!best_ || (study_.objective().goal() == pb::GOAL_MAXIMIZE ? *r.value > *best_ : *r.value < *best_))) {
        best_ = r.value;
        best_id_ = t.id;
      }
    }
    if (t.status == "failed") ++failed_;
    if (t.status == "stopped") ++stopped_;
    trials_.emplace(t.id, std::move(t));
  }
  trials_at_start_ = static_cast<int64_t>(existing.size());
  scheduler_ = MakeScheduler(study_, *space_, static_cast<int64_t>(existing.size()), 0);
  // The algorithm's state is rebuilt by replaying what the database holds.
  ASSIGN_OR_RETURN(auto history, store_->LoadReports(study_id_, study_.objective().metric()));
  for (const auto& r : history) scheduler_->OnReport(r.number, r.step, r.value);
  if (!existing.empty()) {
    LOG_INFO << "resuming study '" << study_.name() << "' from " << o_.db_path << ": " << completed_
             << " completed, " << failed_ << " failed, " << queue_.size() << " to run again";
  }

  ctx_ = zmq_ctx_new();
  sock_ = zmq_socket(ctx_, ZMQ_ROUTER);
  int one = 1, linger = 0, hwm = 100000;
  int64_t max_size = static_cast<int64_t>(kMaxMessageBytes);
  zmq_setsockopt(sock_, ZMQ_ROUTER_MANDATORY, &one, sizeof one);
  zmq_setsockopt(sock_, ZMQ_LINGER, &linger, sizeof linger);
  zmq_setsockopt(sock_, ZMQ_MAXMSGSIZE, &max_size, sizeof max_size);
  zmq_setsockopt(sock_, ZMQ_SNDHWM, &hwm, sizeof hwm);
  zmq_setsockopt(sock_, ZMQ_RCVHWM, &hwm, sizeof hwm);
  if (zmq_bind(sock_, o_.bind.c_str()) != 0) {
    return Status::Error("cannot listen on " + o_.bind + ": " + zmq_strerror(zmq_errno()));
  }
  char buf[512];
  size_t len = sizeof buf;
  zmq_getsockopt(sock_, ZMQ_LAST_ENDPOINT, buf, &len);
  endpoint_ = buf;
  if (!IsLoopback(endpoint_)) {
    LOG_WARN << "listening on " << endpoint_
             << ", beyond loopback: any host that reaches this port can join as a runner";
  }
  LOG_INFO << "study '" << study_.name() << "': tuner listening on " << endpoint_
           << " (join with: sweep runner --connect " << LocalConnectEndpoint(endpoint_) << ")";
  uint64_t seed = HashKey({static_cast<uint64_t>(getpid()), static_cast<uint64_t>(NowMs()),
                           static_cast<uint64_t>(WallSeconds() * 1e6)});
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(seed));
  instance_ = hex;
  lease_base_ = seed & 0xffffffff00000000ULL;
  return Status::Ok();
}

void Tuner::Write(Status st) {
  if (st.ok() || !write_error_.ok()) return;
  write_error_ = st;
}

void Tuner::Event(int64_t trial_id, const std::string& kind, const std::string& detail) {
  Write(store_->Begin());
  Write(store_->AddEvent(study_id_, trial_id, kind, detail, WallSeconds()));
}

void Tuner::Queue(const std::string& identity, pb::Envelope env) { outbox_.emplace_back(identity, std::move(env)); }

bool Tuner::SendNow(const std::string& identity, pb::Envelope* env) {
  env->set_tuner_instance(instance_);
  std::string bytes = EncodeEnvelope(env);
  if (zmq_send(sock_, identity.data(), identity.size(), ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0 ||
      zmq_send(sock_, bytes.data(), bytes.size(), ZMQ_DONTWAIT) < 0) {
    int err = zmq_errno();
    auto it = runners_.find(identity);
    if (it != runners_.end()) {
      LoseRunner(identity, std::string("send failed: ") + zmq_strerror(err));
    }
    return false;
  }
  auto it = runners_.find(identity);
  if (it != runners_.end()) it->second.last_sent_ms = NowMs();
  return true;
}

void Tuner::HandleMessage(const std::string& identity, const void* data, size_t size) {
  auto env = DecodeEnvelope(data, size);
  if (!env.ok()) {
    if (++bad_messages_ <= 20) LOG_WARN << "dropped a message from '" << Printable(identity) << "': " << env.status().message();
    pb::Envelope err;
    err.mutable_error()->set_reason(env.status().message());
    SendNow(identity, &err);
    return;
  }
  auto it = runners_.find(identity);
  if (it != runners_.end()) it->second.last_seen_ms = NowMs();
  switch (env->body_case()) {
    case pb::Envelope::kHello: HandleHello(identity, env->hello()); return;
    case pb::Envelope::kReport: HandleReport(identity, env->report()); break;
    case pb::Envelope::kFinal: HandleFinal(identity, env->final()); break;
    case pb::Envelope::kCheckpoint: HandleCheckpoint(identity, env->checkpoint()); break;
    case pb::Envelope::kHeartbeat:
      // A runner that still works on a trial whose lease expired (it was
      // frozen, or partitioned away) is told to drop it.
      if (env->heartbeat().busy_trial() != 0) {
        CheckLease(identity, env->heartbeat().busy_trial(), env->heartbeat().lease(), "heartbeat");
      }
      break;
    default: break;
  }
  if (runners_.find(identity) == runners_.end()) {
    // A runner we presumed dead (or never met): ask it to introduce itself.
    pb::Envelope re;
    re.mutable_reregister()->set_reason("this tuner does not know runner '" + Printable(identity) + "'");
    Queue(identity, std::move(re));
  }
}

void Tuner::HandleHello(const std::string& identity, const pb::Hello& hello) {
  std::string name = hello.runner().substr(0, 128);
  // The same process on a new connection: its old connection is gone.
  std::vector<std::string> stale;
  for (auto& [id, r] : runners_) {
    if (id != identity && r.name == name) stale.push_back(id);
  }
  for (const auto& id : stale) LoseRunner(id, "runner reconnected");
  auto [it, fresh] = runners_.try_emplace(identity);
  Runner& r = it->second;
  if (fresh) LOG_INFO << "runner '" << Printable(name) << "' joined (pid " << hello.pid() << " on " << Printable(hello.host()) << ")";
  // Hello means "idle, nothing pending": whatever it held is void.
  ReleaseTrials(&r, "runner re-registered mid-trial");
  r.name = name;
  r.ready = true;
  r.last_seen_ms = NowMs();
}

Trial* Tuner::CheckLease(const std::string& identity, int64_t trial_id, uint64_t lease, const char* what) {
  auto it = trials_.find(trial_id);
  Trial* t = it == trials_.end() ? nullptr : &it->second;
  if (t && t->status == "running" && t->lease == lease && t->runner == identity) return t;
  std::string reason = t == nullptr ? "unknown trial"
                       : t->lease != lease ? "lease expired: the trial was re-assigned or ended"
                                           : "the trial is not running on this runner";
  Event(t ? t->id : 0, std::string(what) + "_rejected", "from runner '" + Printable(identity) + "': " + reason);
  pb::Envelope env;
  env.mutable_reject()->set_trial_id(trial_id);
  env.mutable_reject()->set_lease(lease);
  env.mutable_reject()->set_reason(reason);
  Queue(identity, std::move(env));
  return nullptr;
}

void Tuner::HandleReport(const std::string& identity, const pb::Report& report) {
  Trial* t = CheckLease(identity, report.trial_id(), report.lease(), "report");
  if (!t) return;
  Write(store_->Begin());
  double now = WallSeconds();
  std::optional<double> objective;
  for (const auto& m : report.metrics()) {
    if (m.name().empty() || m.name().size() > 256) continue;
    Write(store_->InsertReport(t->id, t->attempts, report.step(), m.name(), m.value(), now));
    if (m.name() == study_.objective().metric()) objective = m.value();
  }
  t->progress_ms = NowMs();
  t->started = true;
  t->last_step = report.step();
  if (objective) t->last_objective = objective;
  progress_dirty_.insert(t->id);
  Action action = objective ? scheduler_->OnReport(t->number, report.step(), *objective) : Action{};
  if (!action.reason.empty()) {
    Write(store_->AddDecision(t->id, report.step(), action.decision == Decision::kStop ? "stop" : "continue",
                              action.reason, WallSeconds()));
  }
  if (action.decision == Decision::kStop) LOG_DEBUG << "trial " << t->id << ": " << action.reason;
  pb::Ack ack;
  ack.set_trial_id(t->id);
  ack.set_lease(t->lease);
  ack.set_step(report.step());
  ack.set_decision(action.decision == Decision::kStop ? pb::DECISION_STOP : pb::DECISION_CONTINUE);
  acks_[t->id] = {identity, ack};
}

void Tuner::HandleCheckpoint(const std::string& identity, const pb::Checkpoint& ckpt) {
  Trial* t = CheckLease(identity, ckpt.trial_id(), ckpt.lease(), "checkpoint");
  if (!t) return;
  auto path = WriteCheckpointFile(checkpoint_dir_, t->id, ckpt.step(), ckpt.data());
  if (!path.ok()) {
    // The trial goes on; a re-run would start from the previous checkpoint.
    LOG_WARN << "trial " << t->id << ": " << path.status().message();
    Event(t->id, "checkpoint_failed", path.status().message());
    return;
  }
  Write(store_->Begin());
  Write(store_->RecordCheckpoint(t->id, ckpt.step(), *path, static_cast<int64_t>(ckpt.data().size()),
                                 Checksum(ckpt.data()), WallSeconds()));
  // The previous file goes once the new row is committed.
  if (!t->checkpoint_path.empty() && t->checkpoint_path != *path) obsolete_files_.push_back(t->checkpoint_path);
  t->checkpoint_path = *path;
  t->checkpoint_step = ckpt.step();
}

void Tuner::HandleFinal(const std::string& identity, const pb::Final& fin) {
  Trial* t = CheckLease(identity, fin.trial_id(), fin.lease(), "final");
  if (!t) return;
  std::optional<double> value = t->last_objective;
  std::string metrics = "{";
  for (const auto& m : fin.metrics()) {
    if (m.name() == study_.objective().metric()) value = m.value();
    metrics += (metrics.size() > 1 ? ", " : "") + JsonString(m.name()) + ": " + JsonNumber(m.value());
  }
  metrics += "}";
  int64_t step = std::max(fin.step(), t->last_step);
  uint64_t lease = t->lease;
  int64_t started_us = t->started_us;
  if (fin.outcome() == pb::TRIAL_OUTCOME_FAILED) {
    Finish(t, "failed", std::nullopt, step, metrics, fin.error().empty() ? "the task failed" : fin.error().substr(0, 4096));
  } else if (fin.outcome() == pb::TRIAL_OUTCOME_CANCELLED) {
    Finish(t, "stopped", value, step, metrics, "");
  } else if (!value) {
    Finish(t, "failed", std::nullopt, step, metrics, "the trial reported no '" + study_.objective().metric() + "' metric");
  } else if (!std::isfinite(*value)) {
    Finish(t, "failed", std::nullopt, step, metrics,
           "objective '" + study_.objective().metric() + "' is " + FormatDouble(*value));
  } else {
    Finish(t, "completed", value, step, metrics, "");
  }
  acks_.erase(t->id);
  pb::Envelope env;
  env.mutable_ack()->set_trial_id(fin.trial_id());
  env.mutable_ack()->set_lease(lease);
  env.mutable_ack()->set_step(step);
  env.mutable_ack()->set_final(true);
  Queue(identity, std::move(env));
  auto r = runners_.find(identity);
  if (r != runners_.end()) {
    auto& q = r->second.trials;
    q.erase(std::remove(q.begin(), q.end(), fin.trial_id()), q.end());
    int64_t now = NowMs();
    r->second.last_trial_us = std::max<int64_t>(1, (NowUs() - started_us));
    if (!q.empty()) {  // the next one starts now
      Trial& next = trials_[q.front()];
      next.progress_ms = now;
      next.started_us = NowUs();
    }
  }
}

void Tuner::Finish(Trial* t, const std::string& status, std::optional<double> value, int64_t step,
                   const std::string& metrics_json, const std::string& failure) {
  Write(store_->Begin());
  Write(store_->FinishTrial(t->id, status, value, step, metrics_json, failure, WallSeconds()));
  progress_dirty_.erase(t->id);
  if (t->status == "running") --running_;
  t->status = status;
  t->lease = 0;
  t->runner.clear();
  if (status == "completed") {
    ++completed_;
    bool better = !best_ || (study_.objective().goal() == pb::GOAL_MAXIMIZE ? *value > *best_ : *value < *best_);
    if (better) {
      best_ = value;
      best_id_ = t->id;
    }
  } else if (status == "failed") {
    ++failed_;
    LOG_DEBUG << "trial " << t->id << " failed: " << failure;
  } else {
    ++stopped_;
  }
}

void Tuner::LoseTrial(Trial* t, const std::string& reason) {
  Event(t->id, "attempt_lost", "attempt " + std::to_string(t->attempts) + ": " + reason);
  if (t->attempts > max_retries_) {
    Finish(t, "failed", std::nullopt, t->last_step, "{}",
           "gave up after " + std::to_string(t->attempts) + " attempts; last: " + reason);
    return;
  }
  LOG_WARN << "trial " << t->id << " (attempt " << t->attempts << ") lost: " << reason << "; re-queued";
  Write(store_->Requeue(t->id, t->attempts));
  --running_;
  t->status = "queued";
  t->lease = 0;
  t->runner.clear();
  acks_.erase(t->id);
  queue_.push_front(t->id);
}

void Tuner::LoseRunner(const std::string& identity, const std::string& reason) {
  auto it = runners_.find(identity);
  if (it == runners_.end()) return;
  LOG_WARN << "runner '" << Printable(it->second.name) << "' lost: " << reason;
  Runner r = std::move(it->second);
  runners_.erase(it);
  ReleaseTrials(&r, "runner lost (" + reason + ")");
}

void Tuner::ReleaseTrials(Runner* r, const std::string& reason) {
  std::deque<int64_t> held;
  held.swap(r->trials);
  // Back to front, so the queue keeps their order.
  for (auto it = held.rbegin(); it != held.rend(); ++it) {
    auto t = trials_.find(*it);
    if (t == trials_.end() || t->second.status != "running") continue;
    if (t->second.started) LoseTrial(&t->second, reason);
    else Unassign(&t->second);
  }
}

void Tuner::Unassign(Trial* t) {
  Write(store_->Begin());
  Write(store_->Requeue(t->id, std::max(0, t->attempts - 1)));
  t->attempts = std::max(0, t->attempts - 1);
  --running_;
  t->status = "queued";
  t->lease = 0;
  t->runner.clear();
  acks_.erase(t->id);
  queue_.push_front(t->id);
}

// One trial at a time for slow trials ("running" then means running); for
// short ones, enough queued at the runner to cover a few commit intervals.
size_t QueueDepth(const Runner& r) {
  if (r.last_trial_us < 0 || r.last_trial_us >= kFastTrialMs * 1000) return 1;
  return std::min<size_t>(kMaxQueuedTrials, 2 + static_cast<size_t>(kQueuedWorkUs / r.last_trial_us));
}

void Tuner::Dispatch() {
  int64_t limit = study_.algorithm().has_max_concurrent() ? study_.algorithm().max_concurrent() : INT64_MAX;
  for (auto& [identity, r] : runners_) {
    size_t depth = QueueDepth(r);
    while (r.ready && r.trials.size() < depth) {
    if (running_ >= limit) return;
    int64_t tid;
    if (!queue_.empty()) {
      tid = queue_.front();
      queue_.pop_front();
    } else {
      auto spec = scheduler_->NextTrial();
      if (!spec) return;
      Write(store_->Begin());
      auto id = store_->InsertTrial(study_id_, spec->number, spec->params, ParamsToJson(spec->params.params()),
                                    WallSeconds());
      if (!id.ok()) {
        Write(id.status());
        return;
      }
      Trial t;
      t.id = *id;
      t.number = spec->number;
      t.params = std::move(spec->params);
      tid = t.id;
      trials_.emplace(tid, std::move(t));
    }
    Trial& t = trials_[tid];
    t.status = "running";
    t.attempts += 1;
    t.lease = lease_base_ | (++lease_counter_ & 0xffffffffULL);
    t.runner = identity;
    t.progress_ms = NowMs();
    t.started_us = NowUs();
    t.started = false;
    t.last_step = 0;
    t.last_objective.reset();
    ++running_;
    Write(store_->Begin());
    Write(store_->MarkRunning(t.id, r.name, t.lease, t.attempts, WallSeconds()));
    if (!r.trials.empty()) t.started_us = 0;  // queued behind another; set when it starts
    r.trials.push_back(tid);
    pb::Envelope env;
    pb::Assign* a = env.mutable_assign();
    a->set_trial_id(t.id);
    a->set_lease(t.lease);
    a->set_attempt(t.attempts);
    a->set_seed(study_.seed());
    a->set_number(t.number);
    *a->mutable_task() = study_.task();
    *a->mutable_params() = t.params.params();
    for (int64_t s : scheduler_->DecisionSteps()) a->add_decision_steps(s);
    if (!t.checkpoint_path.empty()) {
      auto data = ReadCheckpointFile(t.checkpoint_path);
      if (data.ok()) {
        a->set_checkpoint(std::move(data).value());
        a->set_checkpoint_step(t.checkpoint_step);
      } else {
        LOG_WARN << "trial " << t.id << " restarts from scratch: " << data.status().message();
        Event(t.id, "checkpoint_unreadable", data.status().message());
      }
    }
    Queue(identity, std::move(env));
    }
  }
}

void Tuner::CheckLiveness() {
  int64_t now = NowMs();
  int64_t dead_after = int64_t{o_.heartbeat_ms} * o_.liveness;
  std::vector<std::string> dead;
  for (auto& [id, r] : runners_) {
    if (now - r.last_seen_ms > dead_after) dead.push_back(id);
  }
  for (const auto& id : dead) {
    LoseRunner(id, "no message for " + std::to_string((now - runners_[id].last_seen_ms) / 1000) + " s (" +
                       std::to_string(o_.liveness) + " missed heartbeats)");
  }
  if (stall_ms_ <= 0) return;
  for (auto& [id, r] : runners_) {
    if (r.trials.empty()) continue;
    Trial& t = trials_[r.trials.front()];
    if (now - t.progress_ms <= stall_ms_) continue;
    pb::Envelope env;
    env.mutable_reject()->set_trial_id(t.id);
    env.mutable_reject()->set_lease(t.lease);
    env.mutable_reject()->set_reason("no report for " + std::to_string(stall_ms_ / 1000) + " s: presumed hung");
    Queue(id, std::move(env));
    r.ready = false;  // it says Hello once its worker has stopped
    t.started = true;
    ReleaseTrials(&r, "no report for " + FormatDouble(static_cast<double>(stall_ms_) / 1000) +
                          " s (task.stall_timeout_s)");
  }
}

Status Tuner::Turn() {
  int64_t now = NowMs();
  // If this process was frozen (SIGSTOP, swapping), nobody could reach it:
  // do not blame the runners or trials for the gap.
  if (last_turn_ms_ > 0 && now - last_turn_ms_ > o_.heartbeat_ms) {
    int64_t gap = now - last_turn_ms_;
    for (auto& [id, r] : runners_) r.last_seen_ms += gap;
    for (auto& [id, t] : trials_) t.progress_ms += gap;
  }
  last_turn_ms_ = now;
  zmq_pollitem_t item = {sock_, 0, ZMQ_POLLIN, 0};
  int timeout = std::max(10, o_.heartbeat_ms / 10);
  if (store_->in_transaction()) timeout = 1;  // a commit is due soon
  if (zmq_poll(&item, 1, timeout) < 0 && zmq_errno() != EINTR) {
    return Status::Error(std::string("zmq_poll: ") + zmq_strerror(zmq_errno()));
  }
  for (int n = 0; n < 10000 && (item.revents & ZMQ_POLLIN); ++n) {
    zmq_msg_t id, body;
    zmq_msg_init(&id);
    if (zmq_msg_recv(&id, sock_, ZMQ_DONTWAIT) < 0) {
      zmq_msg_close(&id);
      break;
    }
    std::string identity(static_cast<char*>(zmq_msg_data(&id)), zmq_msg_size(&id));
    zmq_msg_close(&id);
    zmq_msg_init(&body);
    zmq_msg_recv(&body, sock_, ZMQ_DONTWAIT);
    bool extra = zmq_msg_more(&body);
    HandleMessage(identity, zmq_msg_data(&body), zmq_msg_size(&body));
    zmq_msg_close(&body);
    while (extra) {  // a well-behaved runner sends one frame; drop the rest
      zmq_msg_t junk;
      zmq_msg_init(&junk);
      zmq_msg_recv(&junk, sock_, ZMQ_DONTWAIT);
      extra = zmq_msg_more(&junk);
      zmq_msg_close(&junk);
    }
  }
  CheckLiveness();
  if (g_signals == 0) Dispatch();
  Housekeeping();
  if (store_->in_transaction() && NowUs() - last_commit_us_ < kCommitIntervalUs) return Status::Ok();
  Commit();
  if (!write_error_.ok()) return write_error_;
  SendPending();
  return Status::Ok();
}

void Tuner::Commit() {
  // Progress (last step and objective) is written once per trial per commit.
  for (int64_t id : progress_dirty_) {
    const Trial& t = trials_[id];
    Write(store_->SetProgress(id, t.last_step, t.last_objective));
  }
  progress_dirty_.clear();
  // Group commit: everything this turn did becomes durable before any
  // runner hears about it.
  Write(store_->Commit());
  last_commit_us_ = NowUs();
  if (write_error_.ok()) {
    for (const auto& f : obsolete_files_) std::remove(f.c_str());
  }
  obsolete_files_.clear();
}

void Tuner::SendPending() {
  if (!write_error_.ok()) return;
  for (auto& [tid, a] : acks_) {
    pb::Envelope env;
    *env.mutable_ack() = a.second;
    Queue(a.first, std::move(env));
  }
  acks_.clear();
  auto out = std::move(outbox_);
  outbox_.clear();
  for (auto& [identity, env] : out) SendNow(identity, &env);
}

void Tuner::Housekeeping() {
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
  if (local_) local_->Supervise(!Done() && g_signals == 0);
  if (progress_) progress_->Update(Counts());
}

ProgressCounts Tuner::Counts() const {
  ProgressCounts c;
  c.completed = completed_;
  c.failed = failed_;
  c.stopped = stopped_;
  c.running = running_;
  c.queued = static_cast<int64_t>(queue_.size());
  c.planned = scheduler_->Planned();
  c.best = best_;
  c.runners = static_cast<int>(runners_.size());
  return c;
}

int Tuner::Shutdown(const std::string& reason) {
  for (auto& [id, r] : runners_) {
    pb::Envelope env;
    env.mutable_shutdown()->set_reason(reason);
    env.set_tuner_instance(instance_);
    std::string bytes = EncodeEnvelope(&env);
    zmq_send(sock_, id.data(), id.size(), ZMQ_SNDMORE | ZMQ_DONTWAIT);
    zmq_send(sock_, bytes.data(), bytes.size(), ZMQ_DONTWAIT);
  }
  if (local_) local_->StopAll(2000);
  if (progress_) progress_->Clear();
  return 0;
}

void Tuner::PrintSummary() {
  double secs = static_cast<double>(NowMs() - start_ms_) / 1000.0;
  int64_t ran = completed_ + failed_ + stopped_;
  char line[512];
  std::snprintf(line, sizeof line, "study '%s': %lld trials (%lld completed, %lld failed, %lld stopped) in %.1f s\n",
                study_.name().c_str(), static_cast<long long>(ran), static_cast<long long>(completed_),
                static_cast<long long>(failed_), static_cast<long long>(stopped_), secs);
  std::string out = line;
  if (best_) {
    const Trial& t = trials_[best_id_];
    out += "best trial " + std::to_string(t.id) + ": " + study_.objective().metric() + " = " + FormatDouble(*best_) +
           "  params " + ParamsToJson(t.params.params()) + "\n";
  } else {
    out += "no trial completed; see: sweep trials --status failed --db " + o_.db_path + "\n";
  }
  out += "results: " + o_.db_path + "\n";
  fputs(out.c_str(), stdout);
  fflush(stdout);
}

int Tuner::Run() {
  start_ms_ = NowMs();
  Status st = Setup();
  if (!st.ok()) {
    fprintf(stderr, "sweep: %s\n", st.message().c_str());
    return 1;
  }
  bool live = o_.progress == 1 || (o_.progress < 0 && isatty(STDERR_FILENO));
  progress_ = std::make_unique<Progress>(study_.name(), live);
  if (!Done()) {
    int n = o_.local_runners < 0 ? static_cast<int>(std::thread::hardware_concurrency()) : o_.local_runners;
    if (n > 0) {
      local_ = std::make_unique<LocalRunners>(o_.exe, LocalConnectEndpoint(endpoint_), n, o_.heartbeat_ms);
      local_->StartAll();
    } else {
      LOG_INFO << "no local runners; waiting for runners to connect";
    }
  }
  struct sigaction sa = {};
  sa.sa_handler = OnSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);

  while (!Done() && g_signals == 0) {
    st = Turn();
    if (!st.ok()) {
      Shutdown("the tuner hit an error");
      fprintf(stderr, "\nsweep: stopping: %s\nCommitted results are safe in %s; run the same command to resume.\n",
              st.message().c_str(), o_.db_path.c_str());
      return 1;
    }
  }
  if (g_signals > 0) {
    // Interrupted: running trials go back to the queue, uncounted, so the
    // same command resumes them.
    int64_t requeued = 0;
    Status w = store_->Begin();
    for (auto& [id, t] : trials_) {
      if (t.status != "running") continue;
      if (w.ok()) w = store_->Requeue(t.id, std::max(0, t.attempts - 1));
      ++requeued;
    }
    if (w.ok()) w = store_->AddEvent(study_id_, 0, "interrupted", std::to_string(requeued) + " running trials re-queued", WallSeconds());
    if (w.ok()) w = store_->SetStudyStatus(study_id_, "interrupted", WallSeconds());
    if (w.ok()) w = store_->Commit();
    Shutdown("the tuner was interrupted");
    fprintf(stderr, "\nsweep: interrupted; %lld running trials will resume when you run the same command again\n",
            static_cast<long long>(requeued));
    if (!w.ok()) fprintf(stderr, "sweep: could not record the interruption: %s\n", w.message().c_str());
    PrintSummary();
    return 130;
  }
  Status w = store_->Begin();
  if (w.ok()) w = store_->SetStudyStatus(study_id_, "completed", WallSeconds());
  if (w.ok()) w = store_->Commit();
  if (progress_) progress_->Update(Counts(), true);
  Shutdown("the study is complete");
  PrintSummary();
  if (!w.ok()) {
    fprintf(stderr, "sweep: %s\n", w.message().c_str());
    return 1;
  }
  return best_ ? 0 : 1;
}

}  // namespace

int RunTuner(const TunerOptions& options) {
  SetLogTag("tuner");
  Tuner tuner(options);
  return tuner.Run();
}

}  // namespace sweep
