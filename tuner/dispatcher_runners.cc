// The dispatcher's runners: registration (Hello), re-attaching the trials a
// runner went on running after it lost its connection, liveness, and what a
// lost runner's trials become.
#include <algorithm>

#include "common/clock.h"
#include "common/json.h"
#include "common/log.h"
#include "common/slurm_job.h"
#include "common/wire.h"
#include "tuner/dispatcher.h"

namespace sweep {

void Dispatcher::Forgive(int64_t gap_ms) {
  if (gap_ms <= o_.heartbeat_ms) return;
  for (auto& [id, r] : runners_) r.last_seen_ms += gap_ms;
  for (auto& [id, l] : leases_) l.progress_ms += gap_ms;
}

bool Dispatcher::ProvesAny(const pb::Hello& hello, const std::vector<std::string>& holders) const {
  for (const auto& h : hello.held()) {
    auto l = leases_.find(h.trial_id());
    if (l != leases_.end() && l->second.lease == h.lease() &&
        std::count(holders.begin(), holders.end(), l->second.runner))
      return true;
  }
  return false;
}

void Dispatcher::HandleHello(const std::string& id, const std::string& key,
                             const pb::Hello& hello) {
  std::string name = hello.runner().substr(0, 128);
  // The same runner on a new connection: its old connection is gone. With
  // CURVE a runner is its key and its name, so a peer that takes another
  // runner's name without its key disturbs nothing.
  std::vector<std::string> stale;
  for (auto& [rid, r] : runners_) {
    if (rid != id && r.name == name && r.key == key) stale.push_back(rid);
  }
  // Without a key (--insecure, or the private socket) a name proves
  // nothing: a connection takes over a name only from one that went quiet,
  // or with a lease that connection holds (only the runner knows them).
  // Otherwise any peer saying Hello{runner: "local-0"} would keep kicking
  // the real local-0 off its trials.
  if (key.empty() && !stale.empty() && !runners_.count(id) && !ProvesAny(hello, stale) &&
      std::any_of(stale.begin(), stale.end(), [&](const std::string& rid) {
        return NowMs() - runners_.at(rid).last_seen_ms <= 2 * o_.heartbeat_ms;
      })) {
    LOG_WARN << "refused a connection saying it is runner '" << Printable(name)
             << "': a live connection has that name, and without keys a name proves nothing";
    pb::Envelope err;
    err.mutable_error()->set_reason(kNameInUse);
    SendNow(id, &err);
    return;
  }
  if (!runners_.count(id) && !key.empty() &&
      std::count_if(runners_.begin(), runners_.end(),
                    [&](const auto& kv) { return kv.second.key == key; }) -
              static_cast<std::ptrdiff_t>(stale.size()) >=
          kMaxRunnersPerKey) {
    LOG_WARN << "refused runner '" << Printable(name) << "': its key already holds "
             << kMaxRunnersPerKey << " runners";
    pb::Envelope err;
    err.mutable_error()->set_reason("too many runners with this key");
    SendNow(id, &err);
    return;
  }
  if (!zap_ && !runners_.count(id) && stale.empty() && connections_->full()) {
    // Without CURVE nobody vets a handshake: the cap applies at Hello.
    connections_->Refused();
    pb::Envelope err;
    err.mutable_error()->set_reason(kTooManyConnections);
    SendNow(id, &err);
    return;
  }
  auto [it, fresh] = runners_.try_emplace(id);
  if (fresh && stale.empty())
    LOG_INFO << "runner '" << Printable(name) << "' joined (pid " << hello.pid() << " on "
             << Printable(hello.host())
             << (hello.device().empty() ? "" : ", " + Printable(hello.device())) << ")";
  // Trials the runner went on running while it had lost this tuner (it was
  // frozen, or the network was): each comes back to this connection if its
  // lease is still valid and held by this runner (same name and key).
  std::vector<int64_t> kept;
  bool running_refused = false;
  // A runner holds its running trial and those queued ahead, at most.
  int held_budget = static_cast<int>(kMaxQueuedTrials) + 2;
  for (const auto& h : hello.held()) {
    if (held_budget-- <= 0) break;
    if (h.trial_id() <= 0 || std::count(kept.begin(), kept.end(), h.trial_id())) continue;
    auto l = leases_.find(h.trial_id());
    bool valid =
        l != leases_.end() && l->second.lease == h.lease() && OwnerOf(l->second) &&
        (l->second.runner == id || std::count(stale.begin(), stale.end(), l->second.runner));
    if (!valid) {
      running_refused = running_refused || !h.finished();
      if (h.finished() && l == leases_.end()) {
        // Most likely its Final was committed and only the Ack was lost.
        QueueReject(id, h.trial_id(), h.lease(), "the trial has ended");
      } else {
        CheckLease(id, h.trial_id(), h.lease(), "reattach");
      }
      continue;
    }
    Lease& lease = l->second;
    if (lease.runner != id) {
      auto& q = runners_[lease.runner].trials;
      q.erase(std::remove(q.begin(), q.end(), h.trial_id()), q.end());
      lease.runner = id;
    }
    lease.progress_ms = NowMs();
    TrialOwner* owner = OwnerOf(lease);
    if (!h.finished() && !lease.started) {
      lease.started = true;
      owner->OnStarted(h.trial_id());
    }
    owner->OnReattached(h.trial_id(), id);
    kept.push_back(h.trial_id());
  }
  Runner& r = runners_[id];
  // Hello means "nothing pending but the held trials": whatever else it
  // held is void.
  std::deque<int64_t> rest;
  for (int64_t t : r.trials)
    if (!std::count(kept.begin(), kept.end(), t)) rest.push_back(t);
  r.trials = std::move(rest);
  ReleaseTrials(&r, "it registered again while running it", true);
  r.trials.assign(kept.begin(), kept.end());
  for (const auto& rid : stale) {
    retired_.insert(rid);
    retired_order_.push_back(rid);
    if (retired_order_.size() > kMaxRetiredIds) {
      retired_.erase(retired_order_.front());
      retired_order_.pop_front();
    }
    LoseRunner(
        rid, kept.empty() ? "runner reconnected" : "runner reconnected and took its trials along");
  }
  if (!kept.empty())
    LOG_INFO << "runner '" << Printable(name) << "' reconnected; " << kept.size()
             << " trial(s) re-attached";
  r.name = name;
  r.key = key;
  r.host = hello.host().substr(0, 256);
  r.device = hello.device().substr(0, 256);
  r.abilities.name = name;
  r.abilities.known = hello.has_abilities();
  r.abilities.gpus = std::clamp(hello.abilities().gpus(), 0, 1024);
  r.abilities.commands = hello.abilities().commands();
  // Said by the runner: kept only if it is a job id (it goes into names).
  r.slurm_job = IsSlurmJobId(hello.slurm_job()) ? hello.slurm_job() : "";
  r.exit_when_idle_s = std::max(0, hello.exit_when_idle_s());
  if (r.joined == 0) r.joined = WallSeconds();
  r.pid = static_cast<int64_t>(hello.pid());
  // A runner whose running trial was refused drops it, and says Hello
  // again once its worker has stopped.
  r.ready = !running_refused;
  r.taken_back = 0;
  r.last_seen_ms = NowMs();
}

void Dispatcher::LoseRunnerByPid(pid_t pid, const std::string& how) {
  std::string id;
  for (const auto& [rid, r] : runners_)
    if (r.pid == pid && r.name.rfind("local-", 0) == 0) id = rid;
  if (!id.empty()) LoseRunner(id, how);
}

void Dispatcher::LoseRunner(const std::string& id, const std::string& cause) {
  auto it = runners_.find(id);
  if (it == runners_.end()) return;
  LOG_WARN << "runner '" << Printable(it->second.name) << "' lost: " << cause;
  Runner r = std::move(it->second);
  runners_.erase(it);
  ReleaseTrials(&r, cause, true);
}

void Dispatcher::ReleaseTrials(Runner* r, const std::string& cause, bool runner_died) {
  std::deque<int64_t> held;
  held.swap(r->trials);
  // Back to front, so the owners' queues keep their order.
  for (auto it = held.rbegin(); it != held.rend(); ++it) {
    auto l = leases_.find(*it);
    if (l == leases_.end()) continue;
    Lease lease = l->second;
    leases_.erase(l);
    TrialOwner* owner = OwnerOf(lease);
    if (!owner) continue;
    // A leaving runner gone before its trial stopped: not an attempt. (A
    // trial it still runs but that stopped reporting is presumed hung, as
    // on any runner.)
    if (r->leaving && lease.started && runner_died) {
      owner->OnRunnerLeft(*it, r->leave_reason);
    } else {
      owner->OnReleased(*it, lease.started, cause, runner_died);
    }
  }
}

void Dispatcher::CheckLiveness() {
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
  for (auto& [id, r] : runners_) {
    if (r.trials.empty()) continue;
    auto it = leases_.find(r.trials.front());
    if (it == leases_.end()) continue;
    Lease& l = it->second;
    TrialOwner* owner = OwnerOf(l);
    int64_t stall_ms = owner ? owner->StallMs() : 0;
    if (stall_ms <= 0 || now - l.progress_ms <= stall_ms) continue;
    TakeBack(id, &r, r.trials.front(), l.lease,
             "no report for " + std::to_string(stall_ms / 1000) + " s: presumed hung");
    l.started = true;
    ReleaseTrials(&r,
                  "no report for " + FormatDouble(static_cast<double>(stall_ms) / 1000) +
                      " s (task.stall_timeout_s)",
                  false);
  }
}

std::vector<Dispatcher::RunnerView> Dispatcher::Pool() const {
  std::vector<RunnerView> out;
  const double now = WallSeconds();
  const int64_t now_us = NowUs();
  for (const auto& [id, r] : runners_) {
    RunnerView& v = out.emplace_back();
    v.name = r.name;
    v.host = r.host;
    v.device = r.device;
    v.abilities = r.abilities;
    v.since = r.joined;
    v.slurm_job = r.slurm_job;
    v.leaving = r.leaving;
    double busy_s = 1e-6 * static_cast<double>(r.busy_us);
    auto l = r.trials.empty() ? leases_.end() : leases_.find(r.trials.front());
    if (l != leases_.end()) {
      v.study_id = l->second.study_id;
      v.trial_id = l->first;
      if (l->second.started_us > 0) {
        v.since = now - static_cast<double>(now_us - l->second.started_us) / 1e6;
        busy_s += now - v.since;
      }
    }
    v.idle_s = std::max(0.0, now - r.joined - busy_s);
  }
  return out;
}

int64_t Dispatcher::Busy(int64_t study_id) const {
  int64_t n = 0;
  for (const auto& [id, r] : runners_) {
    if (r.trials.empty()) continue;
    auto l = leases_.find(r.trials.front());
    n += l != leases_.end() && l->second.study_id == study_id;
  }
  return n;
}

}  // namespace sweep
