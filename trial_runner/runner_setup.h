// What a runner process sets up before it connects: the device its trials
// train on, who it runs command trials for (--allow-commands, and a tuner
// authenticated by its pinned key or its private socket), the folder for
// their attempts, and the host's core share for local runners.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "common/status.h"
#include "proto/sweep.pb.h"
#include "trial_runner/core_share.h"
#include "trial_runner/runner.h"
#include "trial_runner/work_folder.h"

namespace sweep {

struct RunnerSetup {
  std::string device;  // e.g. "cpu" or "cuda:0 (NVIDIA H200)"
  // What every Hello says: name, host, pid, device and abilities.
  pb::Hello hello;
  std::optional<WorkFolder> work;    // with --allow-commands; removed with it
  std::shared_ptr<CoreShare> cores;  // null unless a tuner shares the host's cores
};

// Or the first thing that stops the runner from starting (exit code 2).
Result<RunnerSetup> SetUpRunner(const RunnerOptions& o);
// A runner's name when --name is not given: HOST-PID.
std::string DefaultRunnerName();

// SIGTERM (the tuner stopping its local runners, a scheduler ending a job)
// and SIGINT (Ctrl-C, unless ignored, as local runners do): the runner
// leaves its loop when StopSignal() says one came, so its work folder is
// removed and its programs are ended on the way out.
void CatchStopSignals();
int StopSignal();  // 0, or the signal that came

}  // namespace sweep
