// Which backends this build has. Without the CUDA toolkit at build time the
// CUDA entry points exist but say so, so `--backend cuda` is a clear error
// and never a silent fall-back to the CPU.
#include "nn/backend.h"

namespace sweep::nn {

#ifndef SWEEP_HAVE_CUDA
Result<std::unique_ptr<Backend>> MakeCudaBackend(int) {
  return Status::Error(
      "this sweep was built without the CUDA backend (no CUDA toolkit, cuDNN or NCCL at build "
      "time; see docs/gpu.md)");
}
int CudaDeviceCount() { return 0; }
bool HaveCudaBackend() { return false; }
#else
bool HaveCudaBackend() { return true; }
#endif

}  // namespace sweep::nn
