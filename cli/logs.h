// `sweep logs [STUDY] TRIAL [--attempt K] [--follow]`: a command trial's log.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sweep {

// Prints the log of the trial's attempt (`trial_args`: [STUDY] TRIAL, its
// number) (0: its latest) from the file
// beside the database, or its tail from the database when the file is gone.
// `follow`: keeps printing while that attempt runs. Returns the exit code.
int PrintTrialLog(const std::string& db, const std::vector<std::string>& trial_args, int attempt,
                  bool follow);

}  // namespace sweep
