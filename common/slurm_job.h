// A Slurm job's id as squeue and scancel take it: "1234", or "1234_5" for
// task 5 of array job 1234. What a runner says of its job (Hello.slurm_job),
// what it reads from Slurm's variables and what the launcher reads from
// squeue are held to it: it goes into names, logs and the database.
#pragma once

#include <string>

namespace sweep {

inline bool IsSlurmJobId(const std::string& id) {
  if (id.empty() || id.size() > 40) return false;
  const size_t underscore = id.find('_');
  if (underscore == 0 || underscore + 1 == id.size()) return false;
  if (underscore != std::string::npos && id.find('_', underscore + 1) != std::string::npos)
    return false;
  return id.find_first_not_of("0123456789_") == std::string::npos;
}

}  // namespace sweep
