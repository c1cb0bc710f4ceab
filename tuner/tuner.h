// `sweep run`: the tuner owns a study. It asks the scheduler what to run,
// hands trials to runners over a ZeroMQ ROUTER, commits every event to SQLite
// (group commit, before acknowledging) and resumes where it stopped.
#pragma once

#include <string>
#include <vector>

#include "common/wire.h"

namespace sweep {

struct TunerOptions {
  std::string study_path;
  std::string db_path = "sweep.db";
  std::string bind = "tcp://127.0.0.1:*";
  int local_runners = -1;  // -1: one per core
  std::string exe;         // this binary, to start local runners
  int heartbeat_ms = kHeartbeatMs;
  int liveness = kLivenessBeats;
  int progress = -1;  // -1 auto (live on a terminal), 0 plain, 1 live
  // GPU runners: local runners on these CUDA devices, gpus_per_trial
  // devices each, trials_per_gpu processes per set (instead of one CPU
  // runner per core).
  std::vector<int> gpus;
  int trials_per_gpu = 1;
  // Runner authentication (docs/security.md). By default the tuner makes
  // fresh CURVE keys and admits only its own local runners. keys_dir: its
  // key pair (tuner.key) and the runners it admits (their *.pub files).
  // insecure: no authentication; required to bind beyond loopback without
  // keys_dir.
  std::string keys_dir;
  bool insecure = false;
  // Connections the tuner holds open at most (0: 4096, or fewer where the
  // process may open fewer files); see tuner/connection_cap.h.
  int max_connections = 0;
  // --from DB[:STUDY]: a new tpe study starts from that study's finished
  // trials (tuner/warm_start.h).
  std::string from;
  // --retry-failed: the study's failed trials run again first
  // (tuner/retry_failed.h).
  bool retry_failed = false;
};

// Returns the process exit code: 0 done, 1 error, 130 interrupted.
int RunTuner(const TunerOptions& options);

}  // namespace sweep
