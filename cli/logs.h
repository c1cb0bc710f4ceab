// `sweep logs TRIAL [--attempt K] [--follow]`: a command trial's log.
#pragma once

#include <cstdint>
#include <string>

namespace sweep {

// Prints the log of `trial_id`'s attempt (0: its latest) from the file
// beside the database, or its tail from the database when the file is gone.
// `follow`: keeps printing while that attempt runs. Returns the exit code.
int PrintTrialLog(const std::string& db, int64_t trial_id, int attempt, bool follow);

}  // namespace sweep
