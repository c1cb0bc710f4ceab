// Which backends this build has, and the CUDA backend's loader. The CUDA
// code lives in a separate module (libsweep_nn_cuda.so) opened with dlopen
// the first time something asks for CUDA, so the tuner, the CLI and CPU
// runners never load the CUDA, cuBLAS, cuDNN and NCCL libraries (about
// 0.15 s per process). Without CUDA at build time the entry points exist but
// say so: `--backend cuda` is a clear error, never a fall-back to the CPU.
#include <mutex>

#include "nn/backend.h"
#include "nn/dist/nccl.h"
#include "nn/module_loader.h"

namespace sweep::nn {

#ifndef SWEEP_HAVE_CUDA

Result<std::unique_ptr<Backend>> MakeCudaBackend(int) {
  return Status::Unavailable(
      "this sweep was built without the CUDA backend (no CUDA toolkit, cuDNN or NCCL at build "
      "time; see docs/gpu.md)");
}
int CudaDeviceCount() { return 0; }
bool HaveCudaBackend() { return false; }
Result<std::unique_ptr<AllReduce>> AllReduce::Create(const std::vector<Backend*>&) {
  return Status::Unavailable("this sweep was built without CUDA (no NCCL)");
}

#else

namespace {

struct CudaModule {
  void* handle = nullptr;
  std::string error;
  int (*device_count)() = nullptr;
  Backend* (*make_backend)(int, char*, size_t) = nullptr;
  AllReduce* (*make_allreduce)(Backend* const*, int, char*, size_t) = nullptr;
};

// Looks in $SWEEP_CUDA_MODULE, beside the binary, in ../lib, where the
// build put it, then the library path (module_loader.h).
const CudaModule& Module() {
  static CudaModule m;
  static std::once_flag once;
  std::call_once(once, [] {
    const std::string file = "libsweep_nn_cuda.so";
    Result<void*> handle =
        OpenModule(file, "SWEEP_CUDA_MODULE", SWEEP_CUDA_MODULE_PATH, "the CUDA backend");
    if (!handle.ok()) {
      m.error = handle.status().message();
      return;
    }
    Result<void*> count = ModuleSymbol(*handle, "sweep_cuda_device_count", file);
    Result<void*> backend = ModuleSymbol(*handle, "sweep_cuda_make_backend", file);
    Result<void*> allreduce = ModuleSymbol(*handle, "sweep_cuda_make_allreduce", file);
    for (const Result<void*>* r : {&count, &backend, &allreduce}) {
      if (!r->ok()) {
        m.error = "cannot load the CUDA backend: " + r->status().message();
        return;
      }
    }
    m.device_count = reinterpret_cast<int (*)()>(*count);
    m.make_backend = reinterpret_cast<Backend* (*)(int, char*, size_t)>(*backend);
    m.make_allreduce =
        reinterpret_cast<AllReduce* (*)(Backend* const*, int, char*, size_t)>(*allreduce);
    m.handle = *handle;
  });
  return m;
}

}  // namespace

bool HaveCudaBackend() { return true; }

int CudaDeviceCount() {
  const CudaModule& m = Module();
  return m.handle ? m.device_count() : 0;
}

Result<std::unique_ptr<Backend>> MakeCudaBackend(int device) {
  const CudaModule& m = Module();
  if (!m.handle) return Status::Unavailable(m.error);
  char err[1024] = {0};
  Backend* b = m.make_backend(device, err, sizeof err);
  if (!b) return Status::Unavailable(err);
  return std::unique_ptr<Backend>(b);
}

Result<std::unique_ptr<AllReduce>> AllReduce::Create(const std::vector<Backend*>& ranks) {
  const CudaModule& m = Module();
  if (!m.handle) return Status::Unavailable(m.error);
  char err[1024] = {0};
  AllReduce* a = m.make_allreduce(ranks.data(), static_cast<int>(ranks.size()), err, sizeof err);
  if (!a) return Status::Unavailable(err);
  return std::unique_ptr<AllReduce>(a);
}

#endif

}  // namespace sweep::nn
