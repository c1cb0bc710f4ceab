// Runs another program to its end and collects what it printed: the Slurm
// launcher's sbatch, squeue and scancel (tuner/slurm_launcher.h). Not for
// trials (trial_runner/program_process.h keeps those in process groups
// under a watchdog).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/status.h"

namespace sweep {

struct SubprocessResult {
  int exit_code = -1;  // 128 + the signal when one ended it
  std::string out, err;
};

// Runs argv[0] (found on PATH) with argv, its environment this process's
// with `env` added or replaced, and stdin from /dev/null. Each output is kept
// up to 64 KiB. A program still running after `timeout_ms` is killed
// (SIGKILL) and the result is kUnavailable. An error only when it could
// not run at all (not found, not executable) or timed out.
Result<SubprocessResult> RunSubprocess(const std::vector<std::string>& argv,
                                       const std::map<std::string, std::string>& env,
                                       int timeout_ms);

}  // namespace sweep
