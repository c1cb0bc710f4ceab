// Command trials' logs as they arrive (their stdout and stderr that are not
// reports): each trial's cursor (the attempt, the last batch applied, the
// tail the database keeps) and the append to its attempt's file in the
// study's folder (storage/log_files.h). Owned by the StudyRun.
// REQUIRES: external synchronization (the tuner's thread).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "proto/sweep.pb.h"

namespace sweep {

// What the trial's log row says after a batch (Store::RecordLog).
struct LogRow {
  std::string path;     // the attempt's file
  int64_t bytes = 0;    // kept in it
  int64_t dropped = 0;  // past its cap, or lost to a write error
  std::string tail;     // the last bytes, for the database
};

class TrialLogs {
 public:
  // The study's folder, once its id is known.
  void set_dir(std::string dir) { dir_ = std::move(dir); }
  // Appends batch `log` of trial `trial_id`'s attempt `attempt`, run under
  // `lease`, to its file (named by the trial's `number`); nullopt when it
  // was applied already (a batch sent again after a re-attach) or is empty.
  // When the file cannot be written, a warning: a log is not a result, so
  // the trial goes on and the tail is still kept.
  std::optional<LogRow> Append(int64_t trial_id, int64_t number, int attempt, uint64_t lease,
                               const pb::Log& log);
  // The trial ended for good: its cursor goes.
  void Forget(int64_t trial_id) { cursors_.erase(trial_id); }

 private:
  struct Cursor {
    int attempt = 0;
    uint64_t lease = 0, seq = 0;  // the last batch applied, by lease
    std::string tail;
    int64_t dropped = 0;
  };
  std::string dir_;
  std::unordered_map<int64_t, Cursor> cursors_;
};

}  // namespace sweep
