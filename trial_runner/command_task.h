// The command task: runs the user's program once per attempt under the
// contract of docs/command.md (environment, SWEEP_REPORT lines on stdout,
// checkpoint folders), in a process group that never outlives the attempt.
#pragma once

#include <string>

#include "trial_runner/task.h"

namespace sweep {

// How this runner process runs commands. Set once by the runner at start-up.
struct CommandRunnerConfig {
  bool allow_commands = false;       // sweep runner --allow-commands
  bool tuner_authenticated = false;  // CURVE with a pinned tuner key
  std::string work_root;             // a private (0700) folder for attempts
  std::string cuda_visible_devices;  // the runner's GPUs; empty: none
};
void SetCommandRunnerConfig(CommandRunnerConfig config);

// Why this runner refuses command trials ("" when it runs them).
std::string CommandRefusal();

TaskResult RunCommandTask(const pb::Assign& assign, TaskContext* ctx);

}  // namespace sweep
