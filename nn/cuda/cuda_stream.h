// The stream and device of a CUDA backend, for code that launches work
// beside it (NCCL). -1 / nullptr for other backends.
#pragma once

#include <cuda_runtime.h>

#include "nn/backend.h"

namespace sweep::nn {

cudaStream_t CudaStreamOf(Backend* b);
int CudaDeviceOf(Backend* b);

}  // namespace sweep::nn
