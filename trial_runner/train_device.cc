// Choosing where a runner's trials train: --backend auto|cpu|cuda and --gpus,
// checked once at start-up so a broken device fails there, not per trial.
#include <unistd.h>

#include "nn/backend.h"
#include "trial_runner/runner.h"
#include "trial_runner/train_task.h"

namespace sweep {

Status ResolveTrainDevice(const RunnerOptions& o, std::string* description) {
  // `auto` on a machine without the NVIDIA driver does not even load the
  // CUDA module (it costs ~0.15 s of start-up).
  bool driver = access("/proc/driver/nvidia/gpus", F_OK) == 0 || access("/dev/nvidia0", F_OK) == 0;
  int visible = o.backend == "cpu" || (o.backend == "auto" && !driver) ? 0 : nn::CudaDeviceCount();
  bool cuda = o.backend == "cuda" || (o.backend == "auto" && visible > 0);
  if (o.backend != "auto" && o.backend != "cpu" && o.backend != "cuda")
    return Status::InvalidArgument("--backend must be auto, cpu or cuda (got '" + o.backend + "')");
  if (!cuda) {
    if (!o.gpus.empty() && o.backend == "cpu")
      return Status::InvalidArgument("--gpus makes no sense with --backend cpu");
    SetTrainDevice({});
    *description = std::string("cpu (OpenBLAS ") + nn::BlasCoreName() + ")";
    return Status::Ok();
  }
  if (!nn::HaveCudaBackend()) {
    return Status::InvalidArgument(
        "--backend cuda: this sweep was built without the CUDA backend (no CUDA "
        "toolkit, cuDNN or NCCL at build time)");
  }
  if (visible == 0) {
    // The backend's own reason: the module could not load, or no device.
    auto probe = nn::MakeCudaBackend(0);
    return Status::Unavailable("--backend cuda: " + (probe.ok()
                                                         ? std::string("no CUDA device is visible")
                                                         : probe.status().message()));
  }
  TrainDevice d;
  d.cuda = true;
  d.gpus = o.gpus;
  if (d.gpus.empty())
    for (int i = 0; i < visible; ++i) d.gpus.push_back(i);
  for (int g : d.gpus) {
    if (g < 0 || g >= visible)
      return Status::InvalidArgument("--gpus: no CUDA device " + std::to_string(g) + " (" +
                                     std::to_string(visible) + " visible)");
  }
  // Open the first device now, so a broken one fails at start-up, not per trial.
  auto probe = nn::MakeCudaBackend(d.gpus[0]);
  if (!probe.ok()) return probe.status();
  *description = (*probe)->Describe();
  for (size_t i = 1; i < d.gpus.size(); ++i) *description += ", cuda:" + std::to_string(d.gpus[i]);
  SetTrainDevice(std::move(d));
  return Status::Ok();
}

}  // namespace sweep
