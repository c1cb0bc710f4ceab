// The service's launcher (sweep serve --launcher slurm): started with the
// service, told each turn how many runners the studies lack, its events
// stored; see tuner/slurm_launcher.h and docs/slurm.md.
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "tuner/launch_folder.h"
#include "tuner/service.h"

namespace sweep {

namespace {

// The endpoint runners on other nodes connect to: the bound one, with this
// host's name for a wildcard address.
std::string LaunchConnectEndpoint(const std::string& bound) {
  for (const char* any : {"tcp://0.0.0.0:", "tcp://*:", "tcp://[::]:"}) {
    if (bound.rfind(any, 0) != 0) continue;
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    return "tcp://" + std::string(host) + ":" + bound.substr(std::string(any).size());
  }
  return bound;
}

}  // namespace

Status Service::StartLauncher() {
  const LaunchOptions& l = o_.launch;
  if (l.launcher.empty()) return Status::Ok();
  if (l.launcher != "slurm")
    return Status::InvalidArgument("--launcher " + l.launcher + ": the launcher is slurm");
  if (l.max_runners < 1)
    return Status::InvalidArgument("--launcher slurm needs --launch-max N: runner jobs at most");
  if (server_->public_key().empty())
    return Status::InvalidArgument(
        "--launcher slurm gives its runners a key of their own: it cannot work with --insecure");
  const std::string& endpoint = server_->dispatcher().endpoint();
  if (endpoint.rfind("tcp://", 0) != 0)
    return Status::InvalidArgument(
        "--launcher slurm: runners on the cluster's nodes need a tcp:// "
        "--bind (the service binds " +
        endpoint + ")");
  const std::string dir = l.dir.empty() ? DefaultLaunchFolder(o_.server.db_path) : l.dir;
  ASSIGN_OR_RETURN(LaunchFolder folder, PrepareLaunchFolder(dir, server_->public_key()));
  server_->AllowRunnerKey(folder.runner_public_key);
  LaunchTarget target{LaunchConnectEndpoint(endpoint), o_.server.exe,
                      LaunchJobName(o_.server.db_path), o_.server.heartbeat_ms};
  ASSIGN_OR_RETURN(launcher_, SlurmLauncher::Start(l, target, folder));
  return Status::Ok();
}

void Service::StoreLaunchEvents() {
  Store& store = server_->store();
  for (const LaunchRecord& e : launcher_->TakeEvents()) {
    Status st = store.AddLaunch(e);
    if (!st.ok()) LOG_WARN << "could not record the launcher's " << e.kind << ": " << st.message();
    // sbatch said no, or a job ended before its runner joined.
    if (e.kind != "refused" && e.kind != "failed") {
      if (e.kind == "running") refusals_told_.erase(e.gpus);
      continue;
    }
    // The studies it leaves without runners say why (sweep studies, why).
    std::string& told = refusals_told_[e.gpus];
    if (told == e.detail) continue;
    told = e.detail;
    for (int64_t id : admitted_) {
      StudyRun* s = server_->study(id);
      if (s && !leaving_.count(id) && s->Needs().gpus == e.gpus)
        s->OnWaiting("waiting: no runners: " + e.detail);
    }
  }
}

void Service::FeedLauncher() {
  if (!launcher_) return;
  const int64_t now = NowMs();
  if (now - last_fed_ms_ < 500) return;
  last_fed_ms_ = now;
  StoreLaunchEvents();
  // Runners wanted, by the GPUs a trial needs (commands only if the
  // launched runners run them).
  std::map<int, int64_t> wanted;
  for (int64_t id : admitted_) {
    StudyRun* s = server_->study(id);
    if (!s || leaving_.count(id) || s->pausing()) continue;
    const RunnerNeeds needs = s->Needs();
    if (needs.commands && !o_.launch.allow_commands) continue;
    wanted[needs.gpus] += s->RunnersWanted();
  }
  // Each runner counts once: a busy one for its study's kind, an idle one
  // for the most GPUs a study wants that it has (else for CPU studies).
  LaunchDemand demand;
  std::map<int, int64_t> have;
  for (const Dispatcher::RunnerView& v : server_->dispatcher().Pool()) {
    if (!v.slurm_job.empty()) demand.joined_jobs.insert(v.slurm_job);
    if (v.leaving) continue;
    const StudyRun* busy = v.study_id ? server_->study(v.study_id) : nullptr;
    int kind = 0;
    if (busy) {
      kind = busy->Needs().gpus;
    } else {  // the most GPUs a study wants that it has
      for (const auto& [gpus, n] : wanted)
        if (gpus <= v.abilities.gpus) kind = gpus;
    }
    if (CanRun(v.abilities, RunnerNeeds{kind, false})) ++have[kind];
  }
  for (const auto& [gpus, n] : wanted) demand.short_by_gpus[gpus] = n - have[gpus];
  launcher_->SetDemand(std::move(demand));
}

}  // namespace sweep
