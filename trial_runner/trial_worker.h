// A runner's worker thread and the state it shares with the socket thread:
// one trial at a time runs here, so a long training step never silences the
// heartbeat. Its messages queue in the TrialSlot and wake the socket thread
// once per batch (an eventfd).
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>

#include "proto/sweep.pb.h"

namespace sweep {

class CoreShare;

// State shared between the socket thread and one trial's worker thread.
struct TrialSlot {
  pb::Assign assign;
  std::atomic<bool> stop{false};
  std::atomic<int64_t> last_step{0};
  // The tuner wants the runner back (pb::Preempt): stop once a step with a
  // checkpoint is reported (`checkpoint_step`: the last step checkpointed).
  std::atomic<bool> preempt{false};
  std::atomic<int64_t> checkpoint_step{-1};
  uint64_t log_seq = 0;    // the trial's thread only: the last Log batch numbered
  bool abandoned = false;  // socket thread only: drop whatever the worker still sends
  int64_t abandoned_at_ms = 0;
  std::mutex mu;
  std::deque<pb::Envelope> out;  // guarded by mu
  bool finished = false;         // guarded by mu
  bool end_runner = false;       // guarded by mu: TaskResult::end_runner
  int64_t acked_step = 0;        // guarded by mu: the tuner's decision is in up to here
  std::condition_variable decided;
  int wake_fd = -1;  // written once per batch of messages; -1: nobody waits
  // The host's cores, when this runner shares them with other local
  // runners: the worker holds its busy lock while the task runs.
  std::shared_ptr<CoreShare> cores;

  // Called by the socket thread for an Ack, a stop or an abandon.
  void Decided(int64_t step);
  // Called by the socket thread for a Preempt: stop now (`restart`), or
  // after the next step with a checkpoint.
  void Preempt(bool restart);
  // Called by the worker: queues a message (`last`: the trial's Final).
  void Push(pb::Envelope env, bool last);
};

// Runs the slot's trial to its end on the calling thread: its messages,
// the Final last, are in slot->out when it returns.
void RunTrial(const std::shared_ptr<TrialSlot>& slot);

// One long-lived thread runs the trials, one at a time. It is detached: a
// task that hangs forever cannot block the process from exiting. Never
// destroy a Worker: its thread may outlive any owner.
class Worker {
 public:
  Worker();
  // Runs the slot's trial next (the thread is idle when this is called).
  void Start(std::shared_ptr<TrialSlot> slot);

 private:
  void Loop();
  std::mutex mu_;
  std::condition_variable cv_;
  std::shared_ptr<TrialSlot> next_;
};

}  // namespace sweep
