// The error the CUDA backend throws from inside an operation (out of memory,
// a lost device, a cuDNN or cuBLAS failure). Backend operations return
// nothing, so this unwinds to the task, which fails the trial with the
// message. Out of memory leaves the process's CUDA context usable, so the
// runner goes on to its next trial; any other error may have broken the
// context for good (an illegal address or a failed launch is sticky: every
// later call fails too), so context_lost() is true: the attempt is lost
// (retried), and the runner ends once the tuner has acknowledged that, for
// a fresh process to take its place.
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
