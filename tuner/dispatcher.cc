// The tuner's side of the wire protocol: runner registration, lease checks,
// reports, checkpoints and final results, assignment of trials, and the
// liveness of runners and trials.
#include <zmq.h>

#include <cmath>

#include "tuner/tuner_internal.h"

namespace sweep::tuner_internal {

void Tuner::Write(Status st) {
  if (st.ok() || !write_error_.ok()) return;
  write_error_ = st;
}

void Tuner::Event(int64_t trial_id, const std::string& kind, const std::string& detail) {
  Write(store_->Begin());
  Write(store_->AddEvent(study_id_, trial_id, kind, detail, WallSeconds()));
}

void Tuner::Queue(const std::string& identity, pb::Envelope env) {
  outbox_.emplace_back(identity, std::move(env));
}

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
    if (++bad_messages_ <= 20)
      LOG_WARN << "dropped a message from '" << Printable(identity)
               << "': " << env.status().message();
    pb::Envelope err;
    err.mutable_error()->set_reason(env.status().message());
    SendNow(identity, &err);
    return;
  }
  auto it = runners_.find(identity);
  if (it != runners_.end()) it->second.last_seen_ms = NowMs();
  switch (env->body_case()) {
    case pb::Envelope::kHello:
      HandleHello(identity, env->hello());
      return;
    case pb::Envelope::kReport:
      HandleReport(identity, env->report());
      break;
    case pb::Envelope::kFinal:
      HandleFinal(identity, env->final());
      break;
    case pb::Envelope::kCheckpoint:
      HandleCheckpoint(identity, env->checkpoint());
      break;
    case pb::Envelope::kHeartbeat:
      // A runner that still works on a trial whose lease expired (it was
      // frozen, or partitioned away) is told to drop it.
      if (env->heartbeat().busy_trial() != 0) {
        CheckLease(identity, env->heartbeat().busy_trial(), env->heartbeat().lease(), "heartbeat");
      }
      break;
    default:
      break;
  }
  if (runners_.find(identity) == runners_.end()) {
    // A runner we presumed dead (or never met): ask it to introduce itself.
    pb::Envelope re;
    re.mutable_reregister()->set_reason("this tuner does not know runner '" + Printable(identity) +
                                        "'");
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
  if (fresh)
    LOG_INFO << "runner '" << Printable(name) << "' joined (pid " << hello.pid() << " on "
             << Printable(hello.host())
             << (hello.device().empty() ? "" : ", " + Printable(hello.device())) << ")";
  // Hello means "idle, nothing pending": whatever it held is void.
  ReleaseTrials(&r, "runner re-registered mid-trial");
  r.name = name;
  r.pid = static_cast<int64_t>(hello.pid());
  r.ready = true;
  r.last_seen_ms = NowMs();
}

Trial* Tuner::CheckLease(const std::string& identity, int64_t trial_id, uint64_t lease,
                         const char* what) {
  auto it = trials_.find(trial_id);
  Trial* t = it == trials_.end() ? nullptr : &it->second;
  if (t && t->status == "running" && t->lease == lease && t->runner == identity) return t;
  std::string reason = t == nullptr        ? "unknown trial"
                       : t->lease != lease ? "lease expired: the trial was re-assigned or ended"
                                           : "the trial is not running on this runner";
  Event(t ? t->id : 0, std::string(what) + "_rejected",
        "from runner '" + Printable(identity) + "': " + reason);
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
  CommitCheckpoint(t, report.step());
  t->progress_ms = NowMs();
  t->started = true;
  t->last_step = report.step();
  if (objective) t->last_objective = objective;
  progress_dirty_.insert(t->id);
  Action action = objective ? scheduler_->OnReport(t->number, report.step(), *objective) : Action{};
  RecordDecision(t, report.step(), action.decision, action.reason);
  if (action.decision != Decision::kContinue)
    LOG_DEBUG << "trial " << t->id << ": " << action.reason;
  if (action.decision == Decision::kPause) t->pausing = true;
  pb::Ack ack;
  ack.set_trial_id(t->id);
  ack.set_lease(t->lease);
  ack.set_step(report.step());
  ack.set_decision(action.decision == Decision::kStop    ? pb::DECISION_STOP
                   : action.decision == Decision::kPause ? pb::DECISION_PAUSE
                                                         : pb::DECISION_CONTINUE);
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
  DropUnreported(t);
  t->unreported = Trial::Unreported{*path, ckpt.step(), static_cast<int64_t>(ckpt.data().size()),
                                    Checksum(ckpt.data())};
}

void Tuner::DropUnreported(Trial* t) {
  if (t->unreported && t->unreported->path != t->checkpoint_path)
    std::remove(t->unreported->path.c_str());
  t->unreported.reset();
}

void Tuner::CommitCheckpoint(Trial* t, int64_t step) {
  if (!t->unreported || t->unreported->step != step) return;
  Trial::Unreported c = *std::exchange(t->unreported, std::nullopt);
  Write(store_->Begin());
  Write(store_->RecordCheckpoint(t->id, step, c.path, c.bytes, c.checksum, WallSeconds()));
  // The previous file goes once the new row is committed.
  if (!t->checkpoint_path.empty() && t->checkpoint_path != c.path)
    obsolete_files_.push_back(t->checkpoint_path);
  t->checkpoint_path = c.path;
  t->checkpoint_step = step;
  t->checkpoint_checksum = c.checksum;
  scheduler_->OnCheckpoint(t->number, step);
}

void Tuner::HandleFinal(const std::string& identity, const pb::Final& fin) {
  Trial* t = CheckLease(identity, fin.trial_id(), fin.lease(), "final");
  if (!t) return;
  std::optional<double> value = t->last_objective;
  std::string metrics = "{";
  for (const auto& m : fin.metrics()) {
    if (m.name() == study_.objective().metric()) value = m.value();
    metrics +=
        (metrics.size() > 1 ? ", " : "") + JsonString(m.name()) + ": " + JsonNumber(m.value());
  }
  metrics += "}";
  int64_t step = std::max(fin.step(), t->last_step);
  uint64_t lease = t->lease;
  int64_t started_us = t->started_us;
  if (fin.outcome() == pb::TRIAL_OUTCOME_FAILED) {
    Finish(t, "failed", std::nullopt, step, metrics,
           fin.error().empty() ? "the task failed" : fin.error().substr(0, 4096));
  } else if (fin.outcome() == pb::TRIAL_OUTCOME_CANCELLED && t->pausing) {
    t->last_step = step;
    Pause(t);
  } else if (fin.outcome() == pb::TRIAL_OUTCOME_CANCELLED) {
    Finish(t, "stopped", value, step, metrics, "");
  } else if (!value) {
    Finish(t, "failed", std::nullopt, step, metrics,
           "the trial reported no '" + study_.objective().metric() + "' metric");
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
  if (t->status == "paused") --paused_;
  t->status = status;
  t->lease = 0;
  t->runner.clear();
  t->pausing = false;
  t->pending.reset();
  DropUnreported(t);
  scheduler_->OnEnd(t->number, step);
  if (status == "completed") {
    ++completed_;
    bool better = !best_ || (study_.objective().goal() == pb::GOAL_MAXIMIZE ? *value > *best_
                                                                            : *value < *best_);
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
  LOG_WARN << "trial " << t->id << " (attempt " << t->attempts << ") lost: " << reason
           << "; re-queued";
  Requeue(t, t->attempts);
}

void Tuner::Requeue(Trial* t, int attempts) {
  Write(store_->Begin());
  Write(store_->Requeue(t->id, attempts));
  t->attempts = attempts;
  if (t->status == "running") --running_;
  if (t->status == "paused") --paused_;
  t->status = "queued";
  t->lease = 0;
  t->runner.clear();
  t->pausing = false;
  t->pending.reset();
  DropUnreported(t);
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
    if (t->second.started)
      LoseTrial(&t->second, reason);
    else
      Unassign(&t->second);
  }
}

void Tuner::Unassign(Trial* t) { Requeue(t, std::max(0, t->attempts - 1)); }

// One trial at a time for slow trials ("running" then means running); for
// short ones, enough queued at the runner to cover a few commit intervals.
size_t QueueDepth(const Runner& r) {
  if (r.last_trial_us < 0 || r.last_trial_us >= kFastTrialMs * 1000) return 1;
  return std::min<size_t>(kMaxQueuedTrials,
                          2 + static_cast<size_t>(kQueuedWorkUs / r.last_trial_us));
}

void Tuner::Dispatch() {
  int64_t limit =
      study_.algorithm().has_max_concurrent() ? study_.algorithm().max_concurrent() : INT64_MAX;
  for (auto& [identity, r] : runners_) {
    // With a budget, nothing is queued ahead: a trial starts only when the
    // budget still has room, so at most one trial per runner runs past it.
    size_t depth = study_.algorithm().has_budget() ? 1 : QueueDepth(r);
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
        auto id = store_->InsertTrial(study_id_, spec->number, spec->params,
                                      ParamsToJson(spec->params.params()), WallSeconds());
        if (!id.ok()) {
          Write(id.status());
          return;
        }
        Trial t;
        t.id = *id;
        t.number = spec->number;
        t.params = std::move(spec->params);
        tid = t.id;
        by_number_[t.number] = t.id;
        trials_.emplace(tid, std::move(t));
      }
      Trial& t = trials_[tid];
      // Re-run from a checkpoint at a decision step: it will not report that
      // step again, so the decision taken there applies now.
      auto d = t.checkpoint_path.empty() ? std::nullopt
                                         : scheduler_->DecisionAt(t.number, t.checkpoint_step);
      // (Its pause was recorded when it reported; a promotion or stop that
      // found it queued, after its runner was lost, is recorded now.)
      if (d && d->decision != Decision::kPause)
        RecordDecision(&t, t.checkpoint_step, d->decision, d->reason);
      if (d && d->decision != Decision::kContinue) {
        t.last_step = t.checkpoint_step;
        if (d->decision == Decision::kStop) {
          Finish(&t, "stopped", t.last_objective, t.last_step, "{}", "");
        } else {
          Write(store_->Begin());
          Write(store_->Pause(t.id, t.attempts, t.last_step, t.last_objective));
          t.status = "paused";
          ++paused_;
        }
        continue;
      }
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
      for (int64_t s : scheduler_->DecisionSteps(t.number)) a->add_decision_steps(s);
      a->set_gpus_per_trial(study_.resources().gpus_per_trial());
      if (!t.checkpoint_path.empty()) {
        auto data = ReadCheckpointFile(t.checkpoint_path);
        if (data.ok() && Checksum(*data) != t.checkpoint_checksum) {
          data = Status::Error("checkpoint " + t.checkpoint_path +
                               " does not match the checksum committed for it");
        }
        if (data.ok()) {
          a->set_checkpoint(std::move(data).value());
          a->set_checkpoint_step(t.checkpoint_step);
          Event(t.id, "resumed",
                "from its checkpoint at step " + std::to_string(t.checkpoint_step));
        } else if (t.parent_id > 0) {
          // An exploit child from scratch would be a different trial.
          r.trials.pop_back();
          Finish(&t, "failed", std::nullopt, t.last_step, "{}",
                 "cannot resume: " + data.status().message());
          continue;
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
    LoseRunner(id, "no message for " + std::to_string((now - runners_[id].last_seen_ms) / 1000) +
                       " s (" + std::to_string(o_.liveness) + " missed heartbeats)");
  }
  if (stall_ms_ <= 0) return;
  for (auto& [id, r] : runners_) {
    if (r.trials.empty()) continue;
    Trial& t = trials_[r.trials.front()];
    if (now - t.progress_ms <= stall_ms_) continue;
    pb::Envelope env;
    env.mutable_reject()->set_trial_id(t.id);
    env.mutable_reject()->set_lease(t.lease);
    env.mutable_reject()->set_reason("no report for " + std::to_string(stall_ms_ / 1000) +
                                     " s: presumed hung");
    Queue(id, std::move(env));
    r.ready = false;  // it says Hello once its worker has stopped
    t.started = true;
    ReleaseTrials(&r, "no report for " + FormatDouble(static_cast<double>(stall_ms_) / 1000) +
                          " s (task.stall_timeout_s)");
  }
}

}  // namespace sweep::tuner_internal
