// Read-only access to a results database, for `sweep studies|trials|best|
// query|export|why` and tests. Opens the file read-only, so it can never block or
// corrupt a running sweep (WAL readers do not block the writer).
// REQUIRES: external synchronization (one thread uses a Reader).
#pragma once

#include <sqlite3.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/status.h"
#include "common/trial_status.h"
#include "proto/sweep.pb.h"
#include "storage/launch_record.h"
#include "storage/sqlite_util.h"

namespace sweep {

using Cell = std::variant<std::monostate, int64_t, double, std::string>;

struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
  bool truncated = false;  // the query had more rows than it was allowed to read
};

struct StudyRef {
  int64_t id = 0;
  std::string name;
  std::string metric;
  bool maximize = false;
};

struct TrialView {
  int64_t id = 0;
  int64_t number = 0;
  TrialStatus status = TrialStatus::kQueued;
  pb::ParamSet params;
  std::optional<double> value;
  std::optional<int64_t> step;
  int attempts = 0;
  std::string runner;
  std::string failure;
  std::string metrics_json;              // final metrics as a JSON object, or empty
  std::optional<int64_t> parent;         // PBT: id of the trial it was copied from
  std::optional<int64_t> parent_number;  // and that trial's number
  std::optional<int64_t> parent_step;
  std::vector<std::pair<std::string, std::optional<double>>> metrics;  // the same, parsed
  double created_at = 0;                                               // wall-clock seconds
  std::optional<double> started_at, ended_at;
};

// A completed trial's stored objectives and constraint values
// (storage/trial_values.h), for a study's front.
struct FrontTrial {
  int64_t id = 0, number = 0;
  std::vector<double> objectives;  // the study's order, as reported
  std::vector<std::optional<double>> constraint_values;
  std::vector<double> violations;  // per constraint; +infinity: not reported
  double violation = 0;            // their sum; 0: feasible
};

// A study with several objectives or with constraints, as Reader::Front
// reads it.
struct StudyFront {
  std::vector<pb::Objective> objectives;
  std::vector<pb::OutcomeConstraint> constraints;
  std::vector<FrontTrial> trials;  // completed ones, by id
  // Indices into `trials`, by id: the feasible non-dominated trials (for
  // one objective, the best feasible ones); when no trial is feasible, the
  // least infeasible.
  std::vector<size_t> front;
  int64_t feasible = 0;  // how many of `trials` are feasible
};

// One trial with its study and lineage, for `sweep why`.
struct TrialDetail {
  StudyRef study;
  TrialView trial;
  std::string params_json;  // trials.params, as stored
};

// A decision an algorithm took on a trial (table decisions).
struct DecisionView {
  int64_t id = 0;
  int64_t step = 0;
  std::string decision;  // continue | stop | pause | exploit ...
  std::string reason;
  double at = 0;
};

// Something that happened to a trial (table events): lost attempts,
// rejected messages, resumes.
struct EventView {
  int64_t id = 0;
  std::string kind;
  std::string detail;
  double at = 0;
};

// A trial's latest checkpoint (table checkpoints).
struct CheckpointView {
  std::string path;  // the file beside the database
  int64_t checksum = 0;
  int64_t step = 0;
};

// A command trial's log of one attempt (table trial_logs).
struct LogView {
  int attempt = 0;
  std::string path;     // the file beside the database
  int64_t bytes = 0;    // kept in the file
  int64_t dropped = 0;  // past the cap
  std::string tail;     // the last 4 KiB, kept in the database
};

// A study's row with its counts, for the dashboard's studies view.
struct StudySummary {
  StudyRef ref;
  std::string algorithm;
  StudyStatus status = StudyStatus::kRunning;  // as stored: see ShownStudyStatus
  TrialCounts counts;
  std::optional<double> best;  // over completed trials
  double created_at = 0, updated_at = 0;
  std::optional<double> first_started, last_ended;
  int64_t ended_last_minute = 0;  // trials that ended in the minute before `now`
  // Submitted to a service (`sweep serve`): by whom, its weight and cap.
  std::optional<std::string> owner;
  double priority = 1;
  int64_t max_runners = 0;
  std::string note;               // sweep note's
  std::vector<std::string> tags;  // sweep tag's, sorted
};

// The service that holds (or held) the database, as it wrote itself down.
struct ServiceRow {
  int64_t pid = 0;
  std::string control;  // its control socket's endpoint
  double started_at = 0;
};

// One report of one metric (table reports), in (trial, attempt, step) order.
struct ReportPoint {
  int64_t trial_id = 0;
  int attempt = 0;
  int64_t step = 0;
  std::string metric;  // empty when a query asked for one metric
  std::optional<double> value;
};

struct TrialStatusRow {
  int64_t id = 0;
  int64_t number = 0;
  TrialStatus status = TrialStatus::kQueued;
};

// A trial's run on a runner, for the dashboard's pool view: its latest
// (its row in trials), or one a preemption or a pause cut short.
struct RunnerRun {
  std::string runner;
  int64_t study_id = 0, trial_id = 0, number = 0;
  TrialStatus status = TrialStatus::kRunning;  // the trial's, for its latest run
  bool preempted = false;                      // a run cut short
  double started_at = 0;
  std::optional<double> ended_at;
};

// A preemption (decision `preempt`), on the runner its trial ran on last.
struct PreemptionView {
  int64_t study_id = 0, trial_id = 0, number = 0;
  std::string runner;
  double at = 0;
  std::string reason;
};

// A decision with the trial it is about, for views over a whole study.
struct StudyDecision {
  int64_t trial_id = 0;
  int64_t number = 0;
  DecisionView decision;
};

class Reader {
 public:
  static Result<std::unique_ptr<Reader>> Open(const std::string& path);

  // Runs one read-only SQL statement; a statement that would write is refused.
  // At most `limit` rows (0: all); `truncated` says when there were more.
  Result<Table> Query(const std::string& sql, size_t limit = 0);
  // The same, a row at a time as SQLite steps (nothing is held): `header`
  // gets the column names, then `row` each row; an error either returns
  // stops the query. Returns whether rows were left past `limit`.
  Result<bool> QueryRows(const std::string& sql, size_t limit,
                         const std::function<Status(const std::vector<std::string>&)>& header,
                         const std::function<Status(std::vector<Cell>)>& row);
  // Finds a study by name; an empty name means "the only study".
  Result<StudyRef> ResolveStudy(const std::string& name);
  // Trials of a study by id (only those with `status`, when given), or the
  // `top` best completed ones by objective.
  Result<std::vector<TrialView>> Trials(const StudyRef& study, std::optional<TrialStatus> status,
                                        int top);
  // The study's completed trials' objectives and constraints, and its
  // front (reader_front.cc). FailedPrecondition for a study with one
  // objective and no constraints (its best trial is Trials' first).
  Result<StudyFront> Front(const StudyRef& study);
  // One trial by id, whatever its study (ids are unique in a database).
  // NotFound when there is no such trial; Corruption when its stored
  // parameters do not parse.
  Result<TrialDetail> Trial(int64_t trial_id);
  // The id of the study's trial `number`: the number users name a trial by
  // (`sweep why`, `sweep logs`, every table). NotFound says which numbers
  // the study has.
  Result<int64_t> TrialId(const StudyRef& study, int64_t number);
  // The names of the studies stored as running, by id.
  Result<std::vector<std::string>> RunningStudyNames();
  // The study file the study was last run from (absolute), if known: the
  // command that resumes it names it.
  std::optional<std::string> StudyFile(const std::string& study_name);
  // The study's trials that were copied in finished by `sweep run --from`
  // (no attempt of their own): `done N/M` counts them apart.
  Result<int64_t> CopiedTrialCount(int64_t study_id);
  // The trial's latest committed checkpoint, or nullopt when it has none.
  Result<std::optional<CheckpointView>> Checkpoint(int64_t trial_id);
  // PBT: the trials copied from `trial_id`, by id.
  Result<std::vector<TrialView>> Children(int64_t trial_id);
  // The trial's decisions and events in the order they were written; empty
  // for a trial without any (or with no such trial: call Trial first).
  Result<std::vector<DecisionView>> Decisions(int64_t trial_id);
  Result<std::vector<EventView>> Events(int64_t trial_id);
  // The study's own events (of no one trial): paused, resumed, cancelled,
  // share changed, interrupted, completed, in order.
  Result<std::vector<EventView>> StudyEvents(int64_t study_id);
  // The trial's logs by attempt; empty for a trial without any.
  Result<std::vector<LogView>> Logs(int64_t trial_id);

  // Reads over a whole study, for the dashboard (reader_study.cc).
  // `now` is wall-clock seconds, for ended_last_minute.
  Result<std::vector<StudySummary>> StudySummaries(double now);
  // Why study `study_id` waits: its tuner's latest "waiting" event when no
  // trial started after it, else "". Asked only of a running study with no
  // trial running (`sweep studies`, `sweep watch`): events have no index by
  // study, so this reads the table.
  Result<std::string> Waiting(int64_t study_id);
  // The service row (none: no service has run, or its last one exited).
  Result<std::optional<ServiceRow>> Service();
  // The study as it runs (studies.spec), every default filled in.
  Result<pb::Study> StudySpec(int64_t study_id);
  // The study's reports of `metric`, one trial at a time (by trial id,
  // then attempt and step): `each` gets one trial's reports, so a study of
  // 500,000 is never held at once. An error from `each` stops the read.
  Status ForEachTrialReports(int64_t study_id, const std::string& metric,
                             const std::function<Status(const std::vector<ReportPoint>&)>& each);
  // The study's completed and stopped trials with an objective, by id, with
  // only their id, number, status, step, parameters and value read: what
  // parameter importance needs, at a third of the cost of Trials().
  Result<std::vector<TrialView>> FinishedPoints(int64_t study_id);
  // The study's trials' (id, number, status), by id: what a view of reports
  // needs of them, without their parameters and metrics.
  Result<std::vector<TrialStatusRow>> TrialStatuses(int64_t study_id);
  // Every report of one trial, by metric, attempt and step.
  Result<std::vector<ReportPoint>> TrialReports(int64_t trial_id);
  // Every decision on the study's trials, in the order they were taken.
  Result<std::vector<StudyDecision>> StudyDecisions(int64_t study_id);
  // reader_pool.cc: the `limit` latest trial runs on any runner (every
  // study), and the `limit` latest preemptions, newest first.
  Result<std::vector<RunnerRun>> RecentRuns(size_t limit);
  // The earlier runs of study `study_id`'s trials: those cut short by a
  // preemption or ended by a pause (preempted_runs), oldest first. A
  // trial's latest run is its own row's.
  Result<std::vector<RunnerRun>> EarlierRuns(int64_t study_id);
  Result<std::vector<PreemptionView>> RecentPreemptions(size_t limit);
  // The `limit` latest launcher events (sweep serve --launcher), newest
  // first.
  Result<std::vector<LaunchRecord>> RecentLaunches(size_t limit);
  // Changes whenever another connection (the tuner) commits; a cheap way to
  // tell that a view is out of date (SQLite's PRAGMA data_version).
  Result<int64_t> DataVersion();
  const std::string& path() const { return path_; }

 private:
  Reader() = default;
  // Runs `sql` (trial columns first, see reader.cc) with ?1 bound to `arg`.
  Result<std::vector<TrialView>> TrialsWhere(const std::string& sql, int64_t arg,
                                             std::optional<TrialStatus> status = std::nullopt);
  Connection db_;  // the queries' statements are locals: gone before it closes
  std::string path_;
};

}  // namespace sweep
