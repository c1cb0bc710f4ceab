// The runner process's one socket thread (see runner.h): its connection to
// the tuner (runner.cc: registration, heartbeats and liveness, reconnects
// with back-off, sending), the messages between the tuner and the thread
// that runs the trial (runner_messages.cc), and how it leaves
// (runner_leaving.cc: a scheduler's signal, or idle past --exit-when-idle).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <set>
#include <string>

#include "common/wire.h"
#include "common/zmq_socket.h"
#include "proto/sweep.pb.h"
#include "trial_runner/core_share.h"
#include "trial_runner/runner.h"
#include "trial_runner/trial_worker.h"
#include "trial_runner/unacked.h"

namespace sweep {

class RunnerLoop {
 public:
  RunnerLoop(const RunnerOptions& o, pb::Hello hello, std::shared_ptr<CoreShare> cores)
      : o_(o), hello_(std::move(hello)), cores_(std::move(cores)) {}
  ~RunnerLoop();
  // Runs until the tuner says Shutdown (0), the runner leaves (0 idle, 128
  // + the signal), or a fatal error (non-zero).
  int Run();

 private:
  // runner.cc: the connection.
  bool Connect();
  // Whether this runner has trials the tuner may still hold leases for.
  bool Holding() const { return (slot_ && !slot_->abandoned) || !unacked_.empty(); }
  void SendHello();
  // Forgets every trial this runner held (the tuner no longer knows them).
  void ForgetHeld(const char* why);
  // Messages are never dropped: what the socket cannot take now (its
  // high-water mark is reached when a fast task out-reports the tuner's
  // commits) waits, in order, and goes out as the socket drains.
  void Send(pb::Envelope* env);
  void SendBytes(SharedBytes bytes);
  // A message of the running trial: kept until the tuner acknowledges it,
  // and sent unless the trial waits to be re-attached.
  void SendTrialMessage(pb::Envelope* env);
  void FlushOut();
  // Sleeps up to `ms`, still collecting what the worker produces.
  void SleepDraining(int64_t ms);
  void Heartbeat();

  // runner_messages.cc: the trials.
  // Sends what the running trial produced; when it has finished, starts
  // the next trial queued. A trial this thread runs itself is over when
  // StartTrial returns, so this goes on until a trial runs on the worker or
  // none is left.
  void DrainWorker();
  void ReadSocket();
  void Handle(const pb::Envelope& env);
  void StartTrial(const pb::Assign& a);
  void Abandon(const char* why);

  // runner_leaving.cc: leaving.
  // After each turn of Run's loop: a stop signal begins leaving (the
  // running trial checkpoints, the tuner is told), an idle runner past
  // --exit-when-idle leaves; returns the exit code once the runner should
  // end, else -1.
  int CheckLeaving(int64_t now);
  void BeginLeaving(int sig);
  // Tells the tuner this runner goes (`gone`: now, holding nothing), and
  // lets the message out before the socket closes.
  void SayLeaving(bool gone);
  void NoteIdle(int64_t now);

  RunnerOptions o_;
  ZmqContext ctx_;
  ZmqSocket sock_;
  int wake_fd_ = -1;
  int connections_ = 0;
  int exit_code_ = -1;
  int64_t last_tick_ms_ = 0;
  int64_t ending_since_ms_ = 0;  // a task asked the runner to end (TaskResult::end_runner)
  int64_t ending_first_ms_ = 0;  // ... first at this time
  int missed_ = 0;
  bool reconnect_now_ = false;  // the tuner said to come back later
  bool heard_since_tick_ = false;
  int64_t last_send_ms_ = 0;
  bool heard_since_connect_ = false;
  std::string tuner_instance_;
  std::shared_ptr<TrialSlot> slot_;
  std::deque<pb::Assign> pending_;    // assigned ahead, started when slot_ frees
  std::deque<SharedBytes> outq_;      // encoded messages the socket could not take yet
  UnackedMessages unacked_;           // trial messages the tuner has not acknowledged
  std::set<int64_t> reattaching_;     // held trials named in Hello, not yet answered
  const pb::Hello hello_;             // what every Hello says (runner_setup.h)
  std::shared_ptr<CoreShare> cores_;  // null unless a tuner shares this host's cores
  // Never freed: its detached thread may outlive this object (a hung task).
  Worker* worker_ = new Worker();
  // Leaving (runner_leaving.cc).
  int leaving_signal_ = 0;  // the stop signal that began it (0: not leaving)
  int64_t leaving_since_ms_ = 0;
  int signals_seen_ = 0;       // StopSignalCount() when last looked at
  int64_t idle_since_ms_ = 0;  // no trial since (0: one runs or waits)
};

}  // namespace sweep
