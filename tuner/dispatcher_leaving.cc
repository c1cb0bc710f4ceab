// Runners that leave: a runner's Leaving (a scheduler takes its node back:
// its running trial checkpoints, stops and goes on elsewhere as the same
// attempt; or it is gone), and idle runners that leave when idle sent away
// when no study here can use them.
#include <signal.h>

#include <algorithm>

#include "common/log.h"
#include "tuner/dispatcher.h"

namespace sweep {

namespace {

// What a trial's preemption says of a runner that leaves.
std::string LeaveReason(const std::string& name, const std::string& slurm_job,
                        const pb::Leaving& leaving) {
  const std::string runner = "runner " + Printable(name);
  if (leaving.cause() != pb::LEAVING_SIGNAL) return runner + " left";
  const int sig = leaving.signal();
  const std::string signal = sig == SIGTERM   ? "SIGTERM"
                             : sig == SIGUSR1 ? "SIGUSR1"
                             : sig == SIGINT  ? "SIGINT"
                                              : "signal " + std::to_string(sig);
  return runner + (slurm_job.empty() ? " was stopped (" : " was preempted by Slurm (") + signal +
         ")";
}

}  // namespace

void Dispatcher::HandleLeaving(const std::string& id, const pb::Leaving& leaving) {
  auto it = runners_.find(id);
  if (it == runners_.end()) return;
  Runner& r = it->second;
  if (!r.leaving) {
    r.leave_reason = LeaveReason(r.name, r.slurm_job, leaving);
    if (leaving.cause() == pb::LEAVING_SIGNAL) {
      LOG_INFO << r.leave_reason << "; it takes no more trials";
      r.leaving = true;
    }
  }
  r.ready = false;
  // Trials queued behind its running one go back, never begun.
  if (r.trials.size() > 1) {
    Runner queued;
    queued.trials.assign(r.trials.begin() + 1, r.trials.end());
    r.trials.resize(1);
    ReleaseTrials(&queued, r.leave_reason, false);
  }
  if (leaving.gone()) {
    LOG_INFO << r.leave_reason << (r.leaving ? "" : " (idle past --exit-when-idle)");
    Runner gone = std::move(r);
    runners_.erase(it);
    ReleaseTrials(&gone, gone.leave_reason, true);
    return;
  }
  if (r.trials.empty()) return;
  const int64_t trial = r.trials.front();
  auto lease = leases_.find(trial);
  if (lease == leases_.end()) return;
  if (!lease->second.started) {  // sent, not begun: it never will be
    ReleaseTrials(&r, r.leave_reason, false);
    return;
  }
  lease->second.preempted_for = kLeaving;
  if (TrialOwner* owner = OwnerOf(lease->second)) owner->OnRunnerLeaving(trial, r.leave_reason);
}

void Dispatcher::SendAwayUseless() {
  const std::vector<StudyLoad>& studies = assign_in_.studies;
  if (studies.empty()) return;
  std::vector<std::string> useless;
  for (const auto& [id, r] : runners_) {
    if (!r.ready || !r.trials.empty() || r.exit_when_idle_s <= 0) continue;
    if (std::none_of(studies.begin(), studies.end(),
                     [&](const StudyLoad& s) { return CanRun(r.abilities, s.needs); }))
      useless.push_back(id);
  }
  for (const std::string& id : useless) {
    LOG_INFO << "runner '" << Printable(runners_.at(id).name)
             << "' sent away: no study in this service can use it";
    pb::Envelope env;
    env.mutable_shutdown()->set_reason("no study in this service can use this runner");
    Queue(id, std::move(env));
    runners_.erase(id);  // it holds nothing
  }
}

}  // namespace sweep
