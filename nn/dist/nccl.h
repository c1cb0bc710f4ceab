// Gradient all-reduce across the GPUs of one trial (NCCL), for data-parallel
// training with `resources: {gpus_per_trial: N}`: each device holds a replica
// and its flat gradient buffer; after the backward pass the buffers are
// averaged in place, so every replica takes the same optimizer step.
#pragma once

#include <memory>
#include <vector>

#include "common/status.h"
#include "nn/backend.h"

namespace sweep::nn {

class AllReduce {
 public:
  virtual ~AllReduce() = default;
  // One communicator per backend, in order (each a CUDA backend on its own
  // device). One thread drives all ranks.
  static Result<std::unique_ptr<AllReduce>> Create(const std::vector<Backend*>& ranks);
  // buffers[r] (n floats on rank r's device) become the mean over ranks, on
  // each rank's stream; returns once the result is ready.
  virtual Status Average(const std::vector<float*>& buffers, size_t n) = 0;
  virtual int ranks() const = 0;
};

}  // namespace sweep::nn
