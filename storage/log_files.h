// Command trials' logs in their study's folder (storage/db_files.h), one
// file per attempt: <dir>/trial-<number>.attempt-<k>.log, appended as batches arrive, capped in
// size. The folder passes CheckCheckpointDir (ours, not open to others), and
// files are opened O_NOFOLLOW, mode 0600.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace sweep {

// What one attempt's log may take on disk; what comes after is counted, not kept.
inline constexpr int64_t kMaxLogFileBytes = 16 << 20;
// How much of a log's end the database keeps (trial_logs.tail).
inline constexpr size_t kLogTailBytes = 4096;

std::string LogFilePath(const std::string& dir, int64_t trial_number, int attempt);

struct LogAppend {
  std::string path;
  int64_t bytes = 0;    // the file's size after the append
  int64_t dropped = 0;  // of `text`, what did not fit under the cap
};

// Appends `text` to the attempt's file (made with the folder, and the
// database's folder above it, if missing), up to kMaxLogFileBytes in all.
Result<LogAppend> AppendLogFile(const std::string& dir, int64_t trial_number, int attempt,
                                std::string_view text);

}  // namespace sweep
