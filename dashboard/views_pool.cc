// /api/pool: a service's pool (docs/dashboard.md): every study with its
// owner, priority, cap, the runners its trials hold now and its fair share
// of those runners, who held each runner lately, the preemptions, and the
// runner jobs a launcher got from Slurm (each job's runner, how long it ran
// and how long of that it had no trial).
#include <map>
#include <set>

#include "dashboard/views.h"
#include "tuner/assign_policy.h"

namespace sweep {

Result<std::string> PoolJson(Reader& reader, double now) {
  ASSIGN_OR_RETURN(auto studies, reader.StudySummaries(now));
  ASSIGN_OR_RETURN(auto runs, reader.RecentRuns(kPoolRuns));
  ASSIGN_OR_RETURN(auto preemptions, reader.RecentPreemptions(kPoolPreemptions));
  ASSIGN_OR_RETURN(auto launches, reader.RecentLaunches(kPoolLaunches));
  std::map<int64_t, std::string> names;
  for (const StudySummary& s : studies) names[s.ref.id] = s.ref.name;
  // The runners busy now, and each study's: what the shares divide (the
  // database does not know the idle runners).
  std::map<int64_t, int64_t> holding;
  std::set<std::string> busy;
  for (const RunnerRun& r : runs) {
    if (r.preempted || r.status != TrialStatus::kRunning) continue;
    ++holding[r.study_id];
    busy.insert(r.runner);
  }
  std::vector<StudyLoad> loads;
  for (const StudySummary& s : studies) {
    if (s.status != StudyStatus::kRunning) continue;
    StudyLoad l;
    l.study_id = s.ref.id;
    l.running = holding[s.ref.id];
    l.max_running = s.max_runners;
    l.weight = s.priority > 0 ? s.priority : 1;
    loads.push_back(l);
  }
  const std::vector<double> shares = FairShares(loads, static_cast<int64_t>(busy.size()));
  std::map<int64_t, double> share;
  for (size_t i = 0; i < loads.size(); ++i) share[loads[i].study_id] = shares[i];
  auto study = [&](JsonWriter& w, int64_t id) {
    auto it = names.find(id);
    w.Key("study_id").Int(id).Key("study").String(it == names.end() ? "?" : it->second);
  };
  JsonWriter w;
  w.BeginObject().Key("now").Number(now).Key("busy_runners").Int(static_cast<int64_t>(busy.size()));
  w.Key("studies").BeginArray();
  for (const StudySummary& s : studies) {
    w.BeginObject().Key("id").Int(s.ref.id).Key("name").String(s.ref.name);
    w.Key("owner").StringOrNull(s.owner);
    w.Key("priority").Number(s.priority).Key("max_runners").Int(s.max_runners);
    w.Key("status").String(StudyStatusName(s.status));
    w.Key("runners").Int(holding[s.ref.id]);
    auto sh = share.find(s.ref.id);
    w.Key("share").Number(sh == share.end() ? std::nullopt : std::optional<double>(sh->second));
    w.Key("queued").Int(s.counts[TrialStatus::kQueued]);
    w.Key("running").Int(s.counts[TrialStatus::kRunning]);
    w.Key("finished").Int(s.counts.Finished());
    w.EndObject();
  }
  w.EndArray().Key("runs").BeginArray();
  for (const RunnerRun& r : runs) {
    w.BeginObject().Key("runner").String(r.runner);
    study(w, r.study_id);
    w.Key("trial").Int(r.trial_id).Key("number").Int(r.number);
    w.Key("status").String(r.preempted ? "preempted" : TrialStatusName(r.status));
    w.Key("started_at").Number(r.started_at).Key("ended_at").Number(r.ended_at);
    w.EndObject();
  }
  w.EndArray().Key("preemptions").BeginArray();
  for (const PreemptionView& p : preemptions) {
    w.BeginObject().Key("runner").String(p.runner);
    study(w, p.study_id);
    w.Key("trial").Int(p.trial_id).Key("number").Int(p.number);
    w.Key("at").Number(p.at).Key("reason").String(p.reason);
    w.EndObject();
  }
  w.EndArray().Key("jobs").BeginArray();
  WriteLaunchedJobs(w, launches, runs, now);
  w.EndArray().EndObject();
  return w.Take();
}

void WriteLaunchedJobs(JsonWriter& w, const std::vector<LaunchRecord>& launches,
                       const std::vector<RunnerRun>& runs, double now) {
  struct Job {
    int64_t gpus = 0;
    double submitted_at = 0;
    std::optional<double> running_at, ended_at;
    bool cancelled = false;
  };
  std::map<std::string, Job> jobs;
  for (auto it = launches.rbegin(); it != launches.rend(); ++it) {  // oldest first
    if (it->job.empty()) continue;
    Job& j = jobs[it->job];
    j.gpus = it->gpus;
    if (it->kind == "submitted" || it->kind == "adopted") j.submitted_at = it->at;
    if (it->kind == "running") j.running_at = it->at;
    if (it->kind == "ended") j.ended_at = it->at;
    if (it->kind == "cancelled") j.cancelled = true;
  }
  // A job's runner is slurm-JOB: its busy time is its runs' (while it ran).
  std::map<std::string, double> busy;
  for (const RunnerRun& r : runs) busy[r.runner] += r.ended_at.value_or(now) - r.started_at;
  for (const auto& [id, j] : jobs) {
    const std::string runner = "slurm-" + id;
    const std::string state = j.ended_at ? (j.cancelled && !j.running_at ? "cancelled" : "ended")
                              : j.running_at ? "running"
                                             : "pending";
    w.BeginObject().Key("job").String(id).Key("runner").String(runner).Key("gpus").Int(j.gpus);
    w.Key("state").String(state).Key("submitted_at").Number(j.submitted_at);
    w.Key("running_at").Number(j.running_at).Key("ended_at").Number(j.ended_at);
    std::optional<double> ran, idle;
    if (j.running_at) {
      ran = j.ended_at.value_or(now) - *j.running_at;
      idle = std::max(0.0, *ran - busy[runner]);
    }
    w.Key("ran_s").Number(ran).Key("idle_s").Number(idle);
    w.EndObject();
  }
}

}  // namespace sweep
