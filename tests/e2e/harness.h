// End-to-end test harness: real `sweep` processes, temporary directories,
// and read-only queries of the real results database.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "storage/reader.h"

namespace sweep::e2e {

// A temporary directory removed (with everything in it) on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }
  std::string Write(const std::string& name, const std::string& content) const;

 private:
  std::string path_;
};

// A child process running the sweep binary; killed on destruction.
class Process {
 public:
  Process(const std::vector<std::string>& args, const std::string& log_path);
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  pid_t pid() const { return pid_; }
  // Exit code, 128+signal when killed, or -1 on timeout.
  int Wait(int timeout_ms);
  void Signal(int sig);
  bool Running();
  std::string Log() const;

 private:
  pid_t pid_ = -1;
  int status_ = -1;
  std::string log_path_;
};

// Runs `sweep args...` to completion; returns exit code, fills output.
int RunSweep(const std::vector<std::string>& args, std::string* output, int timeout_ms = 120000);

// Keys for a tuner and its remote runners, made with `sweep keys new` in
// dir/keys: tuner.key plus one key per runner name (a tuner reads the
// allow-list when it starts, so name every runner up front).
class Keys {
 public:
  Keys(const TempDir& dir, const std::vector<std::string>& runner_names);
  // {"--keys", dir}: for `sweep run`.
  std::vector<std::string> TunerArgs() const { return {"--keys", dir_}; }
  // {"--server-key", ..., "--key", ...}: for `sweep runner` as `name`.
  std::vector<std::string> RunnerArgs(const std::string& name) const {
    return {"--server-key", dir_ + "/tuner.pub", "--key", dir_ + "/" + name + ".key"};
  }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

// `a` followed by `b`.
std::vector<std::string> Concat(std::vector<std::string> a, const std::vector<std::string>& b);

// A file's bytes ("" if it cannot be read), to check a file is unchanged.
std::string FileBytes(const std::string& path);

// Where a database `NAME.db` keeps study `study_id`'s logs and checkpoints:
// NAME.sweep/study-ID (the layout docs/schema.md gives, spelt out here).
inline std::string StudyFolder(const std::string& db, int64_t study_id) {
  std::string name =
      db.size() > 3 && db.compare(db.size() - 3, 3, ".db") == 0 ? db.substr(0, db.size() - 3) : db;
  return name + ".sweep/study-" + std::to_string(study_id);
}
// Runs `sql` on `db` through SQLite directly (to make foreign or old
// databases); a failure is a test failure.
void ExecSql(const std::string& db, const std::string& sql);

// Polls `pred` every 20 ms; true if it held within the timeout.
bool WaitFor(const std::function<bool()>& pred, int timeout_ms);

// Where the tuner or service `p` says runners join ("runners join at
// ENDPOINT"), once it has said so; "" after `timeout_ms` without it.
std::string RunnersJoinAt(const Process& p, int timeout_ms = 30000);
// A study of `trials` random trials of the synthetic learning curve, each
// `steps` steps of `step_ms`, none retried (max_retries: 0: an attempt
// counted where none should be fails the trial).
std::string CurveStudyYaml(const std::string& name, int trials, int steps, int step_ms,
                           int seed = 1);

// Starts `sweep args` (a tuner), kills it with SIGKILL once `ready` holds
// and waits for it to die of that. False, with a test failure that shows
// the tuner's log, when `ready` did not hold within `timeout_ms`.
bool KillTunerWhen(const std::vector<std::string>& args, const std::string& log_path,
                   const std::function<bool()>& ready, int timeout_ms = 60000);
// After KillTunerWhen: runs `sweep args` again (the study resumes) and then
// the same command with its `--db` set to `ref_db` (the study uninterrupted),
// each to a clean exit (fatal test failures otherwise, with the output).
void ResumeThenRunUninterrupted(const std::vector<std::string>& args, const std::string& ref_db,
                                int timeout_ms = 120000);

// One-shot read-only query; returns rows. Empty while the database does not
// exist or has no schema yet (it is created in one transaction); any other
// error is a test failure.
std::vector<std::vector<Cell>> Query(const std::string& db, const std::string& sql);
int64_t QueryInt(const std::string& db, const std::string& sql);

// A cell as text ("null" when empty), for comparing rows.
std::string CellText(const Cell& c);
// Everything about a study's run that must not depend on arrival order or
// interruptions, by trial number: each trial's parameters, lineage, final
// status and step, and the algorithm's decisions with their reasons (pauses
// excepted: who waited depends on who arrived first). Two runs of a study,
// one killed and resumed, compare equal.
std::map<int64_t, std::string> ResumeInvariantOutcome(const std::string& db);

}  // namespace sweep::e2e
