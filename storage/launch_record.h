// Something a service's launcher did or saw (sweep serve --launcher slurm):
// the launcher reports it (tuner/slurm_launcher.h), the Store writes it
// (table launches) and the Reader reads it back, all as this one type.
#pragma once

#include <cstdint>
#include <string>

namespace sweep {

struct LaunchRecord {
  double at = 0;
  // submitted, running, cancelled, ended, refused (sbatch said no), failed
  // (it ended before its runner joined) or adopted (from before a restart).
  std::string kind;
  std::string job;     // Slurm's job id ("" when refused)
  int64_t gpus = 0;    // each of the job's runners'
  std::string detail;  // e.g. the node, or sbatch's error
};

}  // namespace sweep
