// The runner process: a DEALER that pulls trials from a tuner, runs each on a
// worker thread (an instant one on its socket thread), streams its reports,
// and keeps heart-beating meanwhile (Paranoid Pirate: liveness in missed
// beats, reconnect with back-off).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/curve_keys.h"
#include "common/status.h"
#include "common/wire.h"

namespace sweep {

struct RunnerOptions {
  std::string endpoint;  // tcp://host:port or ipc://path
  std::string name;      // defaults to host-pid
  int heartbeat_ms = kHeartbeatMs;
  int liveness = kLivenessBeats;  // missed beats before the tuner is presumed gone
  int max_backoff_ms = 32000;
  int threads = 0;  // CPU threads per trial (0: all cores)
  // Local runners: a file shared by the `core_slots` runners of this host
  // (an inherited descriptor), through which idle runners lend their cores
  // to running trials (trial_runner/core_share.h). -1: none.
  int core_share_fd = -1;
  int core_slot = 0, core_slots = 0;
  // Give up after this long without reaching a tuner (0: never).
  int give_up_after_s = 0;
  // Where training runs: "auto" (CUDA when a device is visible, else the
  // CPU), "cpu" or "cuda" (an error when there is no usable device).
  std::string backend = "auto";
  std::vector<int> gpus;  // CUDA devices this runner may use (default: all)
  // CURVE: the tuner's public key (pinned) and this runner's key pair. Unset:
  // no authentication, which only a tuner started with --insecure accepts.
  std::string server_key;
  std::optional<CurveKeyPair> keys;
  // The endpoint is the private socket the tuner made for its local runners
  // (common/private_endpoint.h): checked, it stands for the tuner's key.
  bool private_tuner = false;
  // Command trials run only with this, and only for an authenticated tuner.
  bool allow_commands = false;
  std::string work_dir;  // where command attempts get folders (default: $TMPDIR or /tmp)
  // Leave after this many seconds without a trial (0: never), so that a
  // scheduler's allocation is not held idle.
  int exit_when_idle_s = 0;
  // After SIGTERM or SIGUSR1 the running trial checkpoints at its next step;
  // the runner leaves once the tuner has it, or after this many seconds
  // (after SIGTERM 25 at most: Slurm's KillWait, 30 s by default, then
  // SIGKILL; SIGUSR1 comes --signal=B:USR1@T's T seconds ahead).
  int leave_within_s = 25;
};

// Resolves --backend/--gpus into what the train task uses, or says why not.
// `description` gets e.g. "cuda:0 (NVIDIA H200)" or "cpu".
Status ResolveTrainDevice(const RunnerOptions& o, std::string* description);

// Runs until the tuner says Shutdown (returns 0), the runner leaves (0 when
// idle, 128 + the signal), or a fatal error (non-zero).
int RunRunner(const RunnerOptions& options);

}  // namespace sweep
