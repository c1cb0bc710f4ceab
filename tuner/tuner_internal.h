// Internals of the tuner, shared by tuner.cc (set-up, the event loop,
// shutdown) and dispatcher.cc (runner messages, leases, assignment,
// liveness). Not a public interface: use tuner/tuner.h.
#pragma once

#include <signal.h>
#include <unistd.h>
#include <zmq.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <set>
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
#include "tuner/tuner.h"

namespace sweep::tuner_internal {

// Routing ids are bytes chosen by the peer: print them safely.
std::string Printable(const std::string& id);

struct Trial {
  int64_t id = 0;
  int64_t number = 0;
  std::string status;
  int attempts = 0;
  pb::ParamSet params;
  uint64_t lease = 0;
  std::string runner;       // routing id while running
  int64_t progress_ms = 0;  // last report, or when it started on its runner
  bool started = false;     // the runner has begun it (not just queued it)
  int64_t last_step = 0;
  std::optional<double> last_objective;
  int64_t started_us = 0;       // when it became the runner's front trial
  std::string checkpoint_path;  // latest committed checkpoint
  int64_t checkpoint_step = 0;
  uint32_t checkpoint_checksum = 0;
  int64_t parent_id = 0;      // PBT: the trial whose checkpoint it started from
  int64_t decided_step = -1;  // latest step whose continue/stop decision is recorded
  // The algorithm paused it; its runner is ending the segment. A directive
  // that arrives meanwhile is applied once the runner confirms.
  bool pausing = false;
  std::optional<Decision> pending;
  // A checkpoint on disk whose step's report has not arrived yet: it is
  // recorded in the same transaction as that report, so a restart never
  // sees one without the other.
  struct Unreported {
    std::string path;
    int64_t step = 0, bytes = 0;
    uint32_t checksum = 0;
  };
  std::optional<Unreported> unreported;
};

struct Runner {
  std::string name;
  int64_t last_seen_ms = 0;
  int64_t last_sent_ms = 0;
  // Trials assigned to this runner: the front one runs, the rest wait there.
  std::deque<int64_t> trials;
  bool ready = false;          // registered (Hello) and able to take work
  int64_t pid = 0;             // as it said in Hello (local runners: our child)
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

// The tuner. REQUIRES: external synchronization (one thread runs it).
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
  Trial* CheckLease(const std::string& identity, int64_t trial_id, uint64_t lease,
                    const char* what);
  void HandleReport(const std::string& identity, const pb::Report& report);
  void HandleFinal(const std::string& identity, const pb::Final& fin);
  void HandleCheckpoint(const std::string& identity, const pb::Checkpoint& ckpt);
  void Dispatch();
  // Carries out the algorithm's decisions about trials other than the one
  // reporting: resume or stop paused trials, create exploit children.
  void ApplyDirectives();
  void Spawn(const Directive& d);
  void Pause(Trial* t);
  // Records a continue/stop decision with its reason, once per trial and step
  // (a re-run from a checkpoint may meet the same decision again).
  void RecordDecision(Trial* t, int64_t step, Decision d, const std::string& reason);
  // Drops a checkpoint file whose report never came.
  void DropUnreported(Trial* t);
  // Records t's unreported checkpoint if it belongs to `step`.
  void CommitCheckpoint(Trial* t, int64_t step);
  void Resume(Trial* t);
  void CheckLiveness();
  void LoseRunner(const std::string& identity, const std::string& reason);
  void LoseTrial(Trial* t, const std::string& reason);
  // Takes back a trial its runner never started (no attempt is counted).
  void Unassign(Trial* t);
  // Puts a running trial back at the front of the queue.
  void Requeue(Trial* t, int attempts);
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
  std::unordered_map<int64_t, int64_t> by_number_;  // trial number -> id
  std::deque<int64_t> queue_;
  std::map<std::string, Runner> runners_;
  std::vector<std::pair<std::string, pb::Envelope>> outbox_;
  std::map<int64_t, std::pair<std::string, pb::Ack>> acks_;
  std::set<int64_t> progress_dirty_;
  int64_t running_ = 0, completed_ = 0, failed_ = 0, stopped_ = 0, paused_ = 0;
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

// How many trials a runner holds at once (see kFastTrialMs).
size_t QueueDepth(const Runner& r);

}  // namespace sweep::tuner_internal
