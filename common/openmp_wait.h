// How a training process's OpenMP threads wait between parallel regions,
// set in its environment before it starts (libgomp reads these once, when it
// loads): by `sweep runner` re-executing itself (nn/backend.h's
// EnsureTrainingEnvironment) and by the tuner for the local runners it
// starts. A variable the user set is never changed.
#pragma once

#include <cstdlib>

namespace sweep {

// OMP_WAIT_POLICY=PASSIVE: threads that spin after each region starve
// OpenBLAS's own threads on small machines (2 threads ran 3x slower than 1).
// With it GOMP_SPINCOUNT=3000, about 30 us of spinning before a thread
// sleeps: XGBoost runs thousands of short regions back to back, and a futex
// sleep and wake between each made 2-thread boosting 1.7x slower; OpenBLAS's
// threads do not notice a spin that short (bench/RESULTS.md). Returns
// whether it set anything.
inline bool SetOpenMpWaitDefaults() {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr) return false;
  setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
  if (std::getenv("GOMP_SPINCOUNT") == nullptr) setenv("GOMP_SPINCOUNT", "3000", 1);
  return true;
}

}  // namespace sweep
