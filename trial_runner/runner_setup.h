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
// A runner's name when --name is not given: slurm-JOB in a Slurm job
// (SlurmJob()), else HOST-PID.
std::string DefaultRunnerName();
// The Slurm job this process runs in: "1234", or "1234_5" for task 5 of
// array job 1234 (the name squeue and scancel take); "" outside Slurm.
std::string SlurmJob();

// SIGTERM (the tuner stopping its local runners, a scheduler ending a job),
// SIGUSR1 (Slurm's warning before a job ends) and SIGINT (Ctrl-C, unless
// ignored, as local runners do): the runner leaves (runner_leaving.cc):
// its trial checkpoints, its work folder is removed and its programs are
// ended on the way out.
void CatchStopSignals();
int StopSignal();       // 0, or the last signal that came
int StopSignalCount();  // how many came

}  // namespace sweep
