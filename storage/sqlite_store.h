// The results database writer. Only the tuner writes; it batches the writes of
// one event-loop turn into one transaction (group commit) and acknowledges
// runners only once that transaction is durable: after Commit() returns, or
// once the ticket CommitNoWait() returned is (durability(), wal_sync.h).
// Readers use storage/reader.h.
// REQUIRES: external synchronization (one thread uses a Store).
#pragma once

#include <sqlite3.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "common/status.h"
#include "common/trial_status.h"
#include "proto/sweep.pb.h"
#include "storage/db_lock.h"
#include "storage/launch_record.h"
#include "storage/sqlite_util.h"
#include "storage/trial_values.h"
#include "storage/wal_sync.h"

namespace sweep {

// The schema version this build writes; see docs/schema.md.
inline constexpr int kSchemaVersion = 12;

struct TrialRecord {
  int64_t id = 0;
  int64_t number = 0;
  TrialStatus status = TrialStatus::kQueued;
  int attempts = 0;
  pb::ParamSet params;
  std::optional<double> value;
  int64_t step = 0;
  std::string checkpoint_path;  // latest committed checkpoint, if any
  int64_t checkpoint_step = 0;
  uint32_t checkpoint_checksum = 0;
  std::optional<double> last_objective;  // latest objective (progress, or the final value)
  int64_t parent_id = 0;                 // PBT: the trial it was copied from
  int64_t decided_step = -1;             // latest step with a recorded continue/stop decision
  bool attempt_open = false;  // its next run continues attempt `attempts` (paused, interrupted)
  int64_t reported_step = 0;  // the furthest step with an objective report in attempt `attempts`
};

class Store {
 public:
  // Finalizes every statement, then closes the connection (members, in
  // reverse declaration order).
  ~Store() = default;
  // Opens (creating and migrating as needed) the database at `path`, holding
  // its lock (storage/db_lock.h) until the Store is destroyed: a database
  // another Store holds is kUnavailable, naming that process. A file that is
  // not a sweep database is refused before anything is written to it.
  // `held`: the database's lock, when the caller took it already (else
  // it is taken here).
  static Result<std::unique_ptr<Store>> Open(const std::string& path, DbLock held = DbLock());

  // A study as stored: its id and spec, the spec's defaults resolved.
  struct StoredStudy {
    int64_t id = 0;
    pb::Study spec;
    double run_seconds = 0;  // how long tuners have run it, all runs together
  };
  // The study named `name`, or none.
  Result<std::optional<StoredStudy>> FindStudy(const std::string& name);
  // Whether any trial has a result or a run of its own to go on with:
  // anything but failed trials and queued ones that start afresh.
  Result<bool> HasResults(int64_t study_id);

  // The service's rows (`sweep serve`; storage/sqlite_store_service.cc).
  struct ServiceStudyRow {
    int64_t id = 0;
    pb::Study spec;
    StudyStatus status = StudyStatus::kRunning;
    std::string owner;
    double priority = 1;
    int64_t max_runners = 0;  // 0: no cap
  };
  // Study `study_id` is a service's: who submitted it, its weight in the
  // fair share and its cap on runners.
  Status SetStudyService(int64_t study_id, const std::string& owner, double priority,
                         int64_t max_runners);
  // Every study submitted to a service (its owner set), by id; with
  // `name`, only the one so named (if it is a service's).
  Result<std::vector<ServiceStudyRow>> ServiceStudies(const std::string& name = "");
  // Where the service that holds the database takes requests; cleared as
  // it exits (a row left by a killed one names a pid that holds no lock).
  Status SetService(int64_t pid, const std::string& control);
  Status ClearService();
  // A new study (its defaults resolved by ValidateStudy), status running.
  Result<int64_t> CreateStudy(const pb::Study& study);
  // Stores `study` as the definition of study `study_id` (the tuner's
  // accepted changes on resume, tuner/study_change.h), in the open
  // transaction.
  Status ReplaceStudySpec(int64_t study_id, const pb::Study& study);
  // The id of the study named study.name(), creating it if new; one stored
  // with any other definition is an error (the tuner accepts some changes
  // instead, tuner/study_change.h).
  Result<int64_t> OpenStudy(const pb::Study& study);
  Result<std::vector<TrialRecord>> LoadTrials(int64_t study_id);

  Status Begin();
  // Commits the open transaction and waits until it (and every earlier
  // one) is on disk.
  Status Commit();
  // Commits the open transaction without waiting for the disk: its writes
  // are durable once durability()->durable() reaches the returned ticket.
  // Without an open transaction, the ticket of the latest commit.
  Result<uint64_t> CommitNoWait();
  WalSync* durability() { return wal_sync_.get(); }
  // Turns a failed transaction back, keeping the connection usable.
  void Rollback();
  // A savepoint inside the open transaction (Begin first): what is written
  // after it is kept by ReleaseSavepoint, or undone by UndoToSavepoint (for
  // one step that must happen whole, e.g. admitting a study to a running
  // server). Reports buffered for the commit are not affected.
  Status Savepoint(const std::string& name);
  Status ReleaseSavepoint(const std::string& name);
  Status UndoToSavepoint(const std::string& name);

  // `parent_id` > 0: the trial starts from that trial's checkpoint at
  // `parent_step` (PBT's exploit).
  Result<int64_t> InsertTrial(int64_t study_id, int64_t number, const pb::ParamSet& params,
                              const std::string& params_json, double now, int64_t parent_id = 0,
                              int64_t parent_step = 0);
  // A new trial that starts at once on `runner` (attempt 1): one statement
  // instead of InsertTrial + MarkRunning.
  Result<int64_t> InsertRunningTrial(int64_t study_id, int64_t number, const pb::ParamSet& params,
                                     const std::string& params_json, const std::string& runner,
                                     uint64_t lease, double now);
  Status MarkRunning(int64_t trial_id, const std::string& runner, uint64_t lease, int attempts,
                     double now);
  // `attempt_open`: its next run continues attempt `attempts` (see
  // TrialRecord::attempt_open) rather than beginning another.
  Status Requeue(int64_t trial_id, int attempts, bool attempt_open);
  // The trial's segment ended at `step` by the algorithm's decision; it keeps
  // its checkpoint and may be resumed (Requeue) later.
  Status Pause(int64_t trial_id, int attempts, int64_t step, std::optional<double> value,
               bool attempt_open);
  // Buffered: written with others in one statement, before the next Commit
  // at the latest (an error may surface there).
  Status InsertReport(int64_t trial_id, int attempt, int64_t step, const std::string& metric,
                      double value, double now);
  // The stored (first) report of `metric` at `step` of an attempt: NaN for a
  // stored NaN or infinity, nullopt when there is none.
  Result<std::optional<double>> ReportedValue(int64_t trial_id, int attempt, int64_t step,
                                              const std::string& metric);
  // The latest value of `metric` the trial reported at or before `step`,
  // its latest attempt first (sqlite_store_values.cc); nullopt when none.
  Result<std::optional<double>> LatestReported(int64_t trial_id, int64_t step,
                                               const std::string& metric);
  // A finished trial's objectives and constraint values, replacing those it
  // had (sqlite_store_values.cc).
  Status RecordTrialValues(int64_t trial_id, const std::vector<TrialValue>& values);
  // Several objectives: every report of `metrics` in study `study_id`, by
  // (trial number, attempt, step), one value per metric in their order
  // (NaN where that step did not report it) (sqlite_store_values.cc).
  Result<std::map<std::tuple<int64_t, int, int64_t>, std::vector<double>>> LoadObjectiveReports(
      int64_t study_id, const std::vector<std::string>& metrics);
  // Every trial's values in study `study_id`, by trial id
  // (sqlite_store_values.cc), `objectives` entries each.
  Result<std::map<int64_t, TrialValueSummary>> LoadTrialValues(int64_t study_id, int objectives);
  Status SetProgress(int64_t trial_id, int64_t step, std::optional<double> value);
  Status FinishTrial(int64_t trial_id, TrialStatus status, std::optional<double> value,
                     int64_t step, const std::string& metrics_json, const std::string& failure,
                     double now);
  Status AddEvent(int64_t study_id, int64_t trial_id, const std::string& kind,
                  const std::string& detail, double now);
  // Records `path` as the trial's latest checkpoint (replacing the previous).
  // A command trial's log of one attempt: where it is kept and its tail.
  Status RecordLog(int64_t trial_id, int attempt, const std::string& path, int64_t bytes,
                   int64_t dropped, const std::string& tail, double now);
  Status RecordCheckpoint(int64_t trial_id, int64_t step, const std::string& path, int64_t bytes,
                          uint32_t checksum, double now);
  // Forgets a trial's latest checkpoint (its file is being removed); its
  // history stays.
  Status DropCheckpoint(int64_t trial_id);
  // The run of `trial_id` now in its row (runner, started_at), cut short at
  // `ended_at` by a preemption (`cause` "preempted") or a pause ("paused"):
  // kept in preempted_runs before the trial leaves its runner
  // (sqlite_store_service.cc).
  Status AddPreemptedRun(int64_t trial_id, double ended_at, const std::string& cause = "preempted");
  // Something a service's launcher did (table launches).
  Status AddLaunch(const LaunchRecord& r);
  Status AddDecision(int64_t trial_id, int64_t step, const std::string& decision,
                     const std::string& reason, double now);
  // What an algorithm saw, in commit order: reports of `metric`, committed
  // checkpoints and trial ends, for rebuilding its state after a restart.
  struct HistoryEvent {
    enum Kind { kCheckpoint = 0, kReport = 1, kEnd = 2 } kind;
    int64_t number, step;
    double value;
    double at;        // when it was committed (NaN: no time recorded)
    int attempt = 0;  // reports: the attempt that sent it
  };
  Result<std::vector<HistoryEvent>> LoadHistory(int64_t study_id, const std::string& metric);
  // The final metrics of a trial as a JSON object ("" if none yet).
  Result<std::string> TrialMetrics(int64_t trial_id);
  Status SetStudyStatus(int64_t study_id, StudyStatus status, double now);
  // How long tuners have run the study, summed over its runs
  // (algorithm.time_limit).
  Status SetStudyRunSeconds(int64_t study_id, double seconds);
  // The study file it was last run from, as an absolute path.
  Status SetStudyFile(int64_t study_id, const std::string& path);
  // Studies a killed tuner left marked running become interrupted (the
  // tuner that holds the lock calls it before opening its own study).
  Status InterruptRunningStudies(double now);
  // Every running trial goes back to queued (after a tuner restart), its
  // attempt count kept and an `interrupted` event written for it: its
  // attempt goes on when it runs again.
  Result<int> RequeueRunning(int64_t study_id, double now);

  bool in_transaction() const { return in_tx_; }
  const std::string& path() const { return path_; }
  sqlite3* db() { return db_.get(); }

 private:
  Store() = default;
  // Applies the missing migrations; true when it wrote any.
  Result<bool> Migrate();
  Status PrepareAll();

  // Destroyed last: the lock outlives the connection.
  DbLock lock_;
  // Declared before the statements, so that it is destroyed after them.
  Connection db_;
  // Destroyed before the connection, which checkpoints as it closes.
  std::unique_ptr<WalSync> wal_sync_;
  std::string path_;
  bool in_tx_ = false;
  // Reports wait here and go to SQLite kReportBatch rows per INSERT (one
  // statement step instead of one per row), at the latest before COMMIT.
  struct PendingReport {
    int64_t trial_id;
    int attempt;
    int64_t step;
    std::string metric;
    double value, at;
  };
  static constexpr int kReportBatch = 32;
  Status FlushReports();
  std::vector<PendingReport> reports_;
  Stmt begin_, commit_, insert_trial_, insert_running_trial_, mark_running_, requeue_,
      insert_report_, insert_reports_, progress_, finish_, event_, study_status_, checkpoint_,
      checkpoint_history_, decision_, pause_, log_;
};

}  // namespace sweep
