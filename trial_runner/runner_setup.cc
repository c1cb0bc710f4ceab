// What a runner process sets up before it connects (see runner_setup.h).
#include "trial_runner/runner_setup.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <thread>

#include "common/log.h"
#include "common/private_endpoint.h"
#include "common/slurm_job.h"
#include "trial_runner/command_task.h"
#include "trial_runner/train_task.h"

namespace sweep {

namespace {
std::atomic<int> g_stop_signal{0};
std::atomic<int> g_stop_signals{0};
void OnStopSignal(int sig) {
  g_stop_signal = sig;
  ++g_stop_signals;
}

// An environment variable's value, "" when unset.
std::string Env(const char* name) {
  const char* v = getenv(name);
  return v ? v : "";
}
}  // namespace

int StopSignal() { return g_stop_signal.load(); }
int StopSignalCount() { return g_stop_signals.load(); }

std::string SlurmJob() {
  std::string array = Env("SLURM_ARRAY_JOB_ID"), task = Env("SLURM_ARRAY_TASK_ID");
  std::string id = !array.empty() && !task.empty() ? array + "_" + task : Env("SLURM_JOB_ID");
  return IsSlurmJobId(id) ? id : "";
}

void CatchStopSignals() {
  struct sigaction sa {};
  sa.sa_handler = OnStopSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  // Slurm's warning before a job's end (sbatch --signal=B:USR1@T, scancel
  // --signal=USR1): leave the same way.
  sigaction(SIGUSR1, &sa, nullptr);
  struct sigaction old {};
  // Local runners ignore SIGINT (the tuner handles Ctrl-C for them).
  if (sigaction(SIGINT, nullptr, &old) == 0 && old.sa_handler != SIG_IGN)
    sigaction(SIGINT, &sa, nullptr);
}

Result<RunnerSetup> SetUpRunner(const RunnerOptions& o) {
  RunnerSetup setup;
  RETURN_IF_ERROR(ResolveTrainDevice(o, &setup.device));
  // A local runner's tuner says it in "runner 'local-0' joined (... cpu
  // (OpenBLAS ...))", and a command study trains with none of it.
  if (o.private_tuner)
    LOG_DEBUG << "training on " << setup.device;
  else
    LOG_INFO << "training on " << setup.device;
  CommandRunnerConfig commands;
  commands.allow_commands = o.allow_commands;
  if (o.private_tuner) RETURN_IF_ERROR(CheckPrivateEndpoint(o.endpoint).Wrap("--private-tuner"));
  // Only this user's processes can reach a private tuner's socket.
  commands.tuner_authenticated = (o.keys.has_value() && !o.server_key.empty()) || o.private_tuner;
  for (int g : CurrentTrainDevice().gpus)
    commands.cuda_visible_devices +=
        (commands.cuda_visible_devices.empty() ? "" : ",") + std::to_string(g);
  if (o.allow_commands) {
    // A private folder for this process's command attempts, gone at exit.
    std::string base = o.work_dir;
    if (base.empty()) base = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    auto folder = WorkFolder::Open(base);
    if (!folder.ok())
      return Status(folder.status().code(),
                    folder.status().message() + " (choose another with --work-dir)");
    setup.work.emplace(std::move(folder).value());
    commands.work_root = setup.work->path();
    if (!commands.tuner_authenticated)
      LOG_WARN << "--allow-commands: this runner has no pinned tuner key (--server-key), so it "
                  "refuses command trials";
  }
  SetCommandRunnerConfig(commands);
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  setup.hello.set_runner(o.name);
  setup.hello.set_host(host);
  setup.hello.set_pid(getpid());
  setup.hello.set_device(setup.device);
  setup.hello.set_slurm_job(SlurmJob());
  setup.hello.set_exit_when_idle_s(o.exit_when_idle_s);
  const TrainDevice& device = CurrentTrainDevice();
  setup.hello.mutable_abilities()->set_backend(device.cuda ? "cuda" : "cpu");
  setup.hello.mutable_abilities()->set_gpus(device.cuda ? static_cast<int>(device.gpus.size()) : 0);
  setup.hello.mutable_abilities()->set_commands(o.allow_commands && commands.tuner_authenticated);
  if (o.core_share_fd >= 0) {
    ASSIGN_OR_RETURN(setup.cores,
                     CoreShare::Open(o.core_share_fd, o.core_slot, o.core_slots,
                                     static_cast<int>(std::thread::hardware_concurrency())));
  }
  return setup;
}

std::string DefaultRunnerName() {
  if (std::string job = SlurmJob(); !job.empty()) return "slurm-" + job;
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  return std::string(host) + "-" + std::to_string(getpid());
}

}  // namespace sweep
