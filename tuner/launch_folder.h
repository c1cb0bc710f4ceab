// The folder a service's launcher hands its runner jobs (docs/slurm.md):
// the runners' CURVE key pair (runner.key, 0600, made once and kept), the
// service's public key (tuner.pub, written at each start: without --keys
// the service's key is new every time), the job script (the one in
// scripts/slurm/, built into sweep) and the jobs' output (logs/). The
// folder is the user's alone (0700), and must be on a file system the
// compute nodes see (a shared home), since the runners read their key
// there.
#pragma once

#include <string>

#include "common/status.h"

namespace sweep {

struct LaunchFolder {
  std::string dir;
  std::string runner_key;         // its path
  std::string runner_public_key;  // Z85: what the service admits
  std::string server_key;         // tuner.pub's path
  std::string script;             // the job script's path
  std::string logs;               // the jobs' output folder
};

// Makes `dir` (0700), or reuses it if it is a folder this user owns that
// nobody else may enter; anything else is refused, never changed.
Result<LaunchFolder> PrepareLaunchFolder(const std::string& dir,
                                         const std::string& server_public_key);

// The default folder for the service on `db_path`: ~/.sweep/slurm/STEM-HASH,
// and the job name its runner jobs share, sweep-USER-STEM-HASH (what squeue
// shows and the launcher looks its jobs up by).
std::string DefaultLaunchFolder(const std::string& db_path);
std::string LaunchJobName(const std::string& db_path);

}  // namespace sweep
