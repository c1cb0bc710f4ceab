// How a runner leaves: on SIGTERM or SIGUSR1 (a scheduler taking its node
// back: Slurm's scancel or --signal, Kubernetes' pod deletion) it tells the
// tuner, which gives it nothing more; its running trial checkpoints at its
// next step and stops (the trial goes on elsewhere from there, as the same
// attempt); the runner ends once the tuner has acknowledged that, or
// --leave-within seconds after the signal (25 at most after SIGTERM). A second signal (2 s or more
// after the first) ends it at once.
// With --exit-when-idle S a runner with no trial for S seconds leaves too,
// so an allocation is not held idle.
#include <signal.h>
#include <string.h>
#include <zmq.h>

#include <algorithm>

#include "common/log.h"
#include "trial_runner/runner_loop.h"
#include "trial_runner/runner_setup.h"

namespace sweep {

namespace {
// Signals this soon after the first are the same request.
constexpr int64_t kSameSignalMs = 2000;
// After SIGTERM the runner leaves within this at most, whatever
// --leave-within says: SIGKILL follows in Slurm's KillWait (30 s by
// default). SIGUSR1 is a warning, --signal=B:USR1@T's T ahead.
constexpr int kTermLeaveS = 25;

// How long the runner waits for its trial's checkpoint after `sig`.
int LeaveWithinS(int sig, int leave_within_s) {
  return sig == SIGTERM ? std::min(leave_within_s, kTermLeaveS) : leave_within_s;
}
}  // namespace

int RunnerLoop::CheckLeaving(int64_t now) {
  if (int signals = StopSignalCount(); signals != signals_seen_) {
    signals_seen_ = signals;
    const int sig = StopSignal();
    // A local runner's tuner takes its trials back itself; a second signal
    // means "now", unless it came with the first (`scancel JOB` signals
    // every process of the job, and the job script passes it on again).
    if (leaving_signal_ != 0 && now - leaving_since_ms_ < kSameSignalMs) return -1;
    if (leaving_signal_ != 0 || o_.private_tuner) {
      // A local runner is stopped by its tuner, which has already said
      // how the study ended: nothing to add after that summary.
      if (o_.private_tuner)
        LOG_DEBUG << "stopping on " << strsignal(sig);
      else
        LOG_INFO << "stopping on " << strsignal(sig);
      if (leaving_signal_ == 0) leaving_signal_ = sig;
      SayLeaving(true);
      return 128 + sig;
    }
    leaving_signal_ = sig;
    leaving_since_ms_ = now;
    BeginLeaving(sig);
  }
  if (leaving_signal_ != 0) {
    if (!Holding()) {
      SayLeaving(true);
      return 128 + leaving_signal_;
    }
    const int within_s = LeaveWithinS(leaving_signal_, o_.leave_within_s);
    if (now - leaving_since_ms_ > int64_t{within_s} * 1000) {
      LOG_WARN << "the running trial did not checkpoint within " << within_s
               << " s; leaving without it (it goes on from its last checkpoint)";
      SayLeaving(true);
      return 128 + leaving_signal_;
    }
    return -1;
  }
  NoteIdle(now);
  if (o_.exit_when_idle_s > 0 && idle_since_ms_ > 0 &&
      now - idle_since_ms_ >= int64_t{o_.exit_when_idle_s} * 1000) {
    LOG_INFO << "no trial for " << o_.exit_when_idle_s << " s (--exit-when-idle); leaving";
    SayLeaving(true);
    return 0;
  }
  return -1;
}

void RunnerLoop::BeginLeaving(int sig) {
  pending_.clear();  // the tuner takes back the trials queued here
  if (slot_ && !slot_->abandoned) {
    // A program that writes no checkpoint folders cannot checkpoint: it
    // stops now and runs again from its start elsewhere.
    const bool restart =
        slot_->assign.task().has_command() && !slot_->assign.task().command().checkpoints();
    slot_->Preempt(restart);
    LOG_INFO << strsignal(sig) << ": trial " << slot_->assign.number()
             << (restart ? " stops now" : " checkpoints at its next step")
             << "; this runner leaves once the tuner has it (at most "
             << LeaveWithinS(sig, o_.leave_within_s) << " s)";
  } else {
    LOG_INFO << "stopping on " << strsignal(sig);
  }
  SayLeaving(false);
}

void RunnerLoop::SayLeaving(bool gone) {
  if (!sock_) return;
  pb::Envelope env;
  pb::Leaving* l = env.mutable_leaving();
  l->set_cause(leaving_signal_ != 0 ? pb::LEAVING_SIGNAL : pb::LEAVING_IDLE);
  l->set_signal(leaving_signal_);
  l->set_gone(gone);
  Send(&env);
  // The runner closes its socket next: give the message a moment to go.
  if (gone) (void)sock_.SetInt(ZMQ_LINGER, 1000, "ZMQ_LINGER");
}

void RunnerLoop::NoteIdle(int64_t now) {
  const bool idle = !slot_ && pending_.empty() && unacked_.empty();
  if (!idle) {
    idle_since_ms_ = 0;
  } else if (idle_since_ms_ == 0) {
    idle_since_ms_ = now;
  }
}

}  // namespace sweep
