// The error the CUDA backend throws from inside an operation (out of memory,
// a lost device, a cuDNN or cuBLAS failure). Backend operations return
// nothing, so this unwinds to the task, which fails the trial with the
// message; the runner process and its next trial are unaffected.
#pragma once

#include <stdexcept>
#include <string>

namespace sweep::nn {

class CudaError : public std::runtime_error {
 public:
  explicit CudaError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace sweep::nn
