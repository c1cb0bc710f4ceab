// NCCL all-reduce over the CUDA backends of one trial.
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdio>
#include <string>

#include "nn/cuda/cuda_stream.h"
#include "nn/dist/nccl.h"

namespace sweep::nn {

namespace {

std::string NcclMessage(ncclResult_t r) { return std::string("NCCL: ") + ncclGetErrorString(r); }

// NCCL's result codes become Status here, once: a misuse is our bug, the
// rest (a system, network or CUDA failure) the device's.
Status NcclError(ncclResult_t r) {
  if (r == ncclInvalidArgument || r == ncclInvalidUsage) return Status::Internal(NcclMessage(r));
  return Status::Unavailable(NcclMessage(r));
}

class NcclAllReduce : public AllReduce {
 public:
  NcclAllReduce(std::vector<ncclComm_t> comms, std::vector<Backend*> ranks)
      : comms_(std::move(comms)), ranks_(std::move(ranks)) {}
  ~NcclAllReduce() override {
    for (auto c : comms_) ncclCommDestroy(c);
  }
  int ranks() const override { return static_cast<int>(ranks_.size()); }

  Status Average(const std::vector<float*>& buffers, size_t n) override {
    if (buffers.size() != ranks_.size()) return Status::Internal("AllReduce: one buffer per rank");
    ncclResult_t r = ncclGroupStart();
    for (size_t i = 0; r == ncclSuccess && i < ranks_.size(); ++i) {
      r = ncclAllReduce(buffers[i], buffers[i], n, ncclFloat, ncclAvg, comms_[i],
                        CudaStreamOf(ranks_[i]));
    }
    ncclResult_t end = ncclGroupEnd();
    if (r != ncclSuccess) return NcclError(r);
    if (end != ncclSuccess) return NcclError(end);
    for (Backend* b : ranks_) {
      b->BindThread();
      cudaError_t e = cudaStreamSynchronize(CudaStreamOf(b));
      if (e != cudaSuccess)
        return Status::Unavailable(std::string("NCCL: ") + cudaGetErrorString(e));
    }
    return Status::Ok();
  }

 private:
  std::vector<ncclComm_t> comms_;
  std::vector<Backend*> ranks_;
};

}  // namespace

}  // namespace sweep::nn

// Entry point of the CUDA module (see nn/cuda_select.cc).
extern "C" sweep::nn::AllReduce* sweep_cuda_make_allreduce(sweep::nn::Backend* const* ranks, int n,
                                                           char* err, size_t len) {
  using namespace sweep::nn;
  std::vector<int> devices;
  std::vector<Backend*> list(ranks, ranks + n);
  for (Backend* b : list) {
    int d = CudaDeviceOf(b);
    if (d < 0) {
      std::snprintf(err, len, "AllReduce needs CUDA backends");
      return nullptr;
    }
    devices.push_back(d);
  }
  std::vector<ncclComm_t> comms(devices.size());
  ncclResult_t r = ncclCommInitAll(comms.data(), static_cast<int>(devices.size()), devices.data());
  if (r != ncclSuccess) {
    std::snprintf(err, len, "%s", NcclMessage(r).c_str());
    return nullptr;
  }
  return new NcclAllReduce(std::move(comms), std::move(list));
}

namespace sweep::nn {}  // namespace sweep::nn
