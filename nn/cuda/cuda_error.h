// The error the CUDA backend throws from inside an operation (out of memory,
// a lost device, a cuDNN or cuBLAS failure). Backend operations return
// nothing, so this unwinds to the task, which fails the trial with the
// message. Out of memory, or an error the call's own arguments caused,
// leaves the process's CUDA context usable, so the runner goes on to its
// next trial. A sticky error (an illegal address, a failed launch: every
// later call fails too) breaks the context for good, so context_lost() is
// true (nn/cuda/launch.cuh asks the device): the attempt is lost (retried),
// and the runner ends once the tuner has acknowledged that, for a fresh
// process to take its place.
#pragma once

#include <stdexcept>
#include <string>

namespace sweep::nn {

class CudaError : public std::runtime_error {
 public:
  explicit CudaError(const std::string& what, bool context_lost = false)
      : std::runtime_error(what), context_lost_(context_lost) {}
  bool context_lost() const { return context_lost_; }

 private:
  bool context_lost_;
};

}  // namespace sweep::nn
