// Which backends this build has, and the CUDA backend's loader. The CUDA
// code lives in a separate module (libsweep_nn_cuda.so) opened with dlopen
// the first time something asks for CUDA, so the tuner, the CLI and CPU
// runners never load the CUDA, cuBLAS, cuDNN and NCCL libraries (about
// 0.15 s per process). Without CUDA at build time the entry points exist but
// say so: `--backend cuda` is a clear error, never a fall-back to the CPU.
#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <mutex>

#include "nn/backend.h"
#include "nn/dist/nccl.h"

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

std::string ExeDir() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string path(buf, static_cast<size_t>(n));
  return path.substr(0, path.rfind('/'));
}

// Looks in $SWEEP_CUDA_MODULE, where the build put it, beside the binary,
// in ../lib, then the library path.
const CudaModule& Module() {
  static CudaModule m;
  static std::once_flag once;
  std::call_once(once, [] {
    std::vector<std::string> tries;
    if (const char* env = getenv("SWEEP_CUDA_MODULE")) tries.push_back(env);
    tries.push_back(SWEEP_CUDA_MODULE_PATH);
    tries.push_back(ExeDir() + "/libsweep_nn_cuda.so");
    tries.push_back(ExeDir() + "/../lib/libsweep_nn_cuda.so");
    tries.push_back("libsweep_nn_cuda.so");
    for (const auto& path : tries) {
      if (path.find('/') != std::string::npos && access(path.c_str(), F_OK) != 0) continue;
      m.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (m.handle) break;
      m.error = dlerror();  // e.g. a CUDA library it needs is missing
    }
    if (!m.handle) {
      if (m.error.empty()) m.error = "libsweep_nn_cuda.so not found";
      m.error = "cannot load the CUDA backend: " + m.error;
      return;
    }
    m.device_count = reinterpret_cast<int (*)()>(dlsym(m.handle, "sweep_cuda_device_count"));
    m.make_backend = reinterpret_cast<Backend* (*)(int, char*, size_t)>(
        dlsym(m.handle, "sweep_cuda_make_backend"));
    m.make_allreduce = reinterpret_cast<AllReduce* (*)(Backend* const*, int, char*, size_t)>(
        dlsym(m.handle, "sweep_cuda_make_allreduce"));
    if (!m.device_count || !m.make_backend || !m.make_allreduce) {
      m.error = "cannot load the CUDA backend: libsweep_nn_cuda.so lacks its entry points";
      m.handle = nullptr;
    }
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
