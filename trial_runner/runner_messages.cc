// The runner's trials: what the tuner says about them (assign, ack,
// reject, preempt, ...), and what their thread produced on its way to the
// tuner (see runner_loop.h).
#include <zmq.h>

#include <thread>

#include "common/clock.h"
#include "common/log.h"
#include "trial_runner/runner_loop.h"
#include "trial_runner/task.h"

namespace sweep {

void RunnerLoop::DrainWorker() {
  while (slot_) {
    std::deque<pb::Envelope> out;
    bool finished, end_runner;
    {
      std::lock_guard<std::mutex> lock(slot_->mu);
      out.swap(slot_->out);
      finished = slot_->finished;
      end_runner = slot_->end_runner;
    }
    for (auto& env : out) {
      if (slot_->abandoned) break;
      SendTrialMessage(&env);
    }
    if (!finished) return;
    bool abandoned = slot_->abandoned;
    slot_.reset();
    if (end_runner) {
      // The trial's result is out; take no other trial and end once the
      // tuner has it (Run's loop), or after the liveness window.
      LOG_ERROR << "this runner's CUDA context may be broken; it ends once its last result "
                   "is acknowledged";
      ending_since_ms_ = ending_first_ms_ = NowMs();
    } else if (abandoned) {
      // Say we are idle (and hold nothing), so the tuner can reassign.
      if (sock_) SendHello();
    } else if (!pending_.empty()) {
      pb::Assign next = std::move(pending_.front());
      pending_.pop_front();
      StartTrial(next);
    }
  }
}

void RunnerLoop::ReadSocket() {
  while (sock_) {
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    if (zmq_msg_recv(&msg, sock_.get(), ZMQ_DONTWAIT) < 0) {
      zmq_msg_close(&msg);
      return;
    }
    auto env = DecodeEnvelope(zmq_msg_data(&msg), zmq_msg_size(&msg));
    zmq_msg_close(&msg);
    heard_since_tick_ = true;
    missed_ = 0;
    heard_since_connect_ = true;
    if (!env.ok()) {
      LOG_WARN << "dropped a message from the tuner: " << env.status().message();
      continue;
    }
    Handle(*env);
    if (exit_code_ >= 0) return;
  }
}

void RunnerLoop::Handle(const pb::Envelope& env) {
  if (!env.tuner_instance().empty()) {
    if (tuner_instance_.empty()) {
      tuner_instance_ = env.tuner_instance();
    } else if (tuner_instance_ != env.tuner_instance()) {
      LOG_WARN << "the tuner restarted; dropping the current trial and re-registering";
      tuner_instance_ = env.tuner_instance();
      ForgetHeld("the tuner restarted");
      if (!slot_) SendHello();
    }
  }
  switch (env.body_case()) {
    case pb::Envelope::kAssign:
      StartTrial(env.assign());
      break;
    case pb::Envelope::kAck:
      unacked_.Acked(env.ack().trial_id(), env.ack().lease(), env.ack().step(), env.ack().final());
      if (reattaching_.erase(env.ack().trial_id())) {
        // Re-attached: the tuner has everything up to the Ack's step; send
        // the rest again (it may have been lost with the old connection).
        auto rest = unacked_.Pending(env.ack().trial_id(), env.ack().lease());
        LOG_INFO << "trial id " << env.ack().trial_id() << " re-attached at step "
                 << env.ack().step() << "; sending " << rest.size() << " message(s) again";
        for (auto& bytes : rest) SendBytes(std::move(bytes));
      }
      if (slot_ && !slot_->abandoned && env.ack().trial_id() == slot_->assign.trial_id()) {
        if (env.ack().decision() == pb::DECISION_STOP ||
            env.ack().decision() == pb::DECISION_PAUSE) {
          // Either way the segment ends here; the tuner keeps the
          // checkpoint of a paused trial and may assign it again.
          LOG_DEBUG << "tuner "
                    << (env.ack().decision() == pb::DECISION_STOP ? "stopped" : "paused")
                    << " trial " << env.ack().trial_id();
          slot_->stop = true;
        }
        slot_->Decided(env.ack().step());
      }
      break;
    case pb::Envelope::kReject:
      LOG_WARN << "tuner rejected trial id " << env.reject().trial_id() << ": "
               << env.reject().reason();
      unacked_.Drop(env.reject().trial_id(), env.reject().lease());
      reattaching_.erase(env.reject().trial_id());
      if (slot_ && slot_->assign.lease() == env.reject().lease()) {
        Abandon("rejected");
      } else {
        std::erase_if(pending_,
                      [&](const pb::Assign& a) { return a.lease() == env.reject().lease(); });
      }
      break;
    case pb::Envelope::kPreempt:  // the tuner wants this runner back
      if (slot_ && !slot_->abandoned && env.preempt().lease() == slot_->assign.lease())
        slot_->Preempt(env.preempt().restart());
      break;
    case pb::Envelope::kReregister:
      LOG_INFO << "tuner asked this runner to register again: " << env.reregister().reason();
      ForgetHeld("re-registering");
      if (!slot_) SendHello();
      break;
    case pb::Envelope::kShutdown:
      LOG_DEBUG << "tuner says shut down: " << env.shutdown().reason();
      exit_code_ = 0;
      break;
    case pb::Envelope::kError:
      if (env.error().reason() == kTooManyConnections || env.error().reason() == kNameInUse) {
        // The tuner holds as many as it may (--max-connections), or its
        // connection under this name is still alive: try later.
        LOG_WARN << "the tuner refused this runner for now: " << env.error().reason();
        reconnect_now_ = true;
        break;
      }
      LOG_ERROR << "tuner reported a protocol error: " << env.error().reason();
      exit_code_ = 2;
      break;
    default:
      break;
  }
}

void RunnerLoop::StartTrial(const pb::Assign& a) {
  // Ending or leaving: the tuner re-queues it when we go.
  if (ending_since_ms_ > 0 || leaving_signal_ != 0) return;
  if (slot_) {
    // The tuner queues the next trial ahead when trials are short.
    pending_.push_back(a);
    return;
  }
  LOG_DEBUG << "starting trial " << a.number() << " (attempt " << a.attempt() << ")";
  slot_ = std::make_shared<TrialSlot>();
  slot_->assign = a;
  slot_->assign.set_threads_hint(
      o_.threads > 0 ? o_.threads : static_cast<int>(std::thread::hardware_concurrency()));
  // Short and never blocking: run here, with no hand-off to the worker and
  // back and nobody to wake (DrainWorker sends what it produced).
  const bool here = RunsOnSocketThread(a);
  slot_->wake_fd = here ? -1 : wake_fd_;
  slot_->cores = cores_;
  // Said before the task begins, so the message is in ZeroMQ's queue
  // before the task can crash the process.
  pb::Envelope started;
  started.mutable_started()->set_trial_id(a.trial_id());
  started.mutable_started()->set_lease(a.lease());
  Send(&started);
  if (here) return RunTrial(slot_);
  worker_->Start(slot_);
}

void RunnerLoop::Abandon(const char* why) {
  pending_.clear();
  if (!slot_ || slot_->abandoned) return;
  LOG_DEBUG << "abandoning trial " << slot_->assign.number() << ": " << why;
  slot_->stop = true;
  slot_->abandoned = true;
  slot_->abandoned_at_ms = NowMs();
  slot_->Decided(0);
  unacked_.Drop(slot_->assign.trial_id(), slot_->assign.lease());
  reattaching_.erase(slot_->assign.trial_id());
}

}  // namespace sweep
