// The Slurm launcher's thread (see slurm_launcher.h): each second it reads
// its jobs' states with squeue, then submits runner jobs with sbatch for the
// runners the studies lack, up to --launch-max, or cancels jobs still pending
// once the work is covered.
#include "tuner/slurm_launcher.h"

#include <algorithm>
#include <chrono>

#include "common/clock.h"
#include "common/log.h"
#include "common/slurm_job.h"
#include "common/subprocess.h"

namespace sweep {

namespace {

// Submissions in one round at most (slurmctld is shared with everyone).
constexpr int64_t kMaxSubmitsPerRound = 8;
// After sbatch refused a kind of runner, ask again this much later.
constexpr double kRetryRefusedS = 60;
// Pending jobs are cancelled once more are coming than wanted for this long
// (a study between rungs wants fewer runners for a moment).
constexpr double kCancelAfterS = 5;
constexpr int kCommandTimeoutMs = 30000;
// After SIGTERM or Slurm's warning (--signal=B:USR1@90 in the job script),
// a runner waits this long for its trial's checkpoint.
constexpr const char* kLeaveWithinS = "80";

std::string FirstLine(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  return line.substr(0, 300);
}

// Options of --launch-args that would take the jobs away from the launcher:
// it finds its jobs by name, reads one job id per runner, and hands sbatch
// its own script.
bool Refused(const std::string& arg) {
  for (const char* o : {"--array", "--wrap", "--parsable"})
    if (arg.rfind(o, 0) == 0) return true;
  return arg == "-a" || (arg.rfind("-a", 0) == 0 && arg.size() > 2 && arg[2] != '-');
}

}  // namespace

int GpusOfGres(const std::string& gres) {
  const size_t at = gres.find("gpu");
  if (at == std::string::npos) return 0;
  const size_t colon = gres.rfind(':');
  if (colon == std::string::npos || colon < at) return 1;
  return std::max(1, atoi(gres.c_str() + colon + 1));
}

std::vector<SqueueJob> ParseSqueue(const std::string& text) {
  std::vector<SqueueJob> jobs;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    std::vector<std::string> f;
    for (size_t p = 0, q; p <= line.size(); p = q + 1) {
      q = line.find('|', p);
      if (q == std::string::npos) q = line.size();
      f.push_back(line.substr(p, q - p));
    }
    if (f.size() != 5 || !IsSlurmJobId(f[0])) continue;
    jobs.push_back(SqueueJob{f[0], f[1], f[2] == "None" ? "" : f[2], GpusOfGres(f[3]), f[4]});
  }
  return jobs;
}

Result<std::vector<std::string>> SplitShellWords(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (char c : text) {
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote) return Status::InvalidArgument("an unclosed quote in: " + text);
  if (in_word) words.push_back(std::move(word));
  return words;
}

Result<std::unique_ptr<SlurmLauncher>> SlurmLauncher::Start(const LaunchOptions& o,
                                                            const LaunchTarget& target,
                                                            const LaunchFolder& folder) {
  std::unique_ptr<SlurmLauncher> l(new SlurmLauncher(o, target, folder));
  auto words = SplitShellWords(o.sbatch_args);
  if (!words.ok()) return words.status().Wrap("--launch-args");
  l->extra_args_ = std::move(words).value();
  for (const std::string& a : l->extra_args_) {
    if (Refused(a))
      return Status::InvalidArgument("--launch-args: " + a +
                                     " is the launcher's to set (one runner a job, its own "
                                     "script); leave it out");
  }
  auto version = RunSubprocess({"sbatch", "--version"}, {}, kCommandTimeoutMs);
  if (!version.ok() || version->exit_code != 0)
    return Status::FailedPrecondition(
        "--launcher slurm: cannot run sbatch (" +
        (version.ok() ? FirstLine(version->err) : version.status().message()) +
        "); run the service where Slurm's commands work");
  LOG_INFO << "launching runners with " << FirstLine(version->out) << ": up to " << o.max_runners
           << " jobs named " << target.job_name << ", runners leave after " << o.idle_s
           << " s idle; their key and output in " << folder.dir;
  l->thread_ = std::thread([p = l.get()] { p->Loop(); });
  return l;
}

SlurmLauncher::~SlurmLauncher() { Stop(); }

void SlurmLauncher::SetDemand(LaunchDemand demand) {
  std::lock_guard<std::mutex> lock(mu_);
  if (demand.short_by_gpus == demand_.short_by_gpus && demand.joined_jobs == demand_.joined_jobs)
    return;
  demand_ = std::move(demand);
  demand_changed_ = true;
  wake_.notify_all();
}

std::vector<LaunchRecord> SlurmLauncher::TakeEvents() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::exchange(events_, {});
}

std::vector<LaunchedJob> SlurmLauncher::Jobs() const {
  std::lock_guard<std::mutex> lock(mu_);
  return view_;
}

void SlurmLauncher::Note(LaunchRecord e) {
  LOG_INFO << "slurm launcher: " << e.kind << (e.job.empty() ? "" : " job " + e.job)
           << (e.detail.empty() ? "" : ": " + e.detail);
  std::lock_guard<std::mutex> lock(mu_);
  events_.push_back(std::move(e));
}

void SlurmLauncher::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::vector<std::string> pending;
  for (const auto& [id, j] : jobs_)
    if (j.state == "PENDING") pending.push_back(id);
  Cancel(pending, "the service stopped", WallSeconds());
}

bool SlurmLauncher::Stopping() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stopping_;
}

void SlurmLauncher::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    LaunchDemand demand = demand_;
    demand_changed_ = false;
    lock.unlock();
    const double now = WallSeconds();
    Refresh(now);
    Act(demand, now);
    std::vector<LaunchedJob> view;
    for (const auto& [id, j] : jobs_)
      view.push_back(LaunchedJob{id, j.gpus, j.state, j.reason, j.submitted_at});
    lock.lock();
    view_ = std::move(view);
    wake_.wait_for(lock, std::chrono::seconds(1), [&] { return stopping_ || demand_changed_; });
  }
}

void SlurmLauncher::Refresh(double now) {
  auto r = RunSubprocess(
      {"squeue", "--noheader", "--me", "--name=" + target_.job_name, "--format=%i|%T|%r|%b|%N"}, {},
      kCommandTimeoutMs);
  if (!r.ok() || r->exit_code != 0) {
    // Not known now (slurmctld busy or restarting): keep what we knew.
    LOG_WARN << "slurm launcher: squeue failed: "
             << (r.ok() ? FirstLine(r->err) : r.status().message());
    return;
  }
  std::set<std::string> seen;
  for (const SqueueJob& q : ParseSqueue(r->out)) {
    seen.insert(q.job);
    auto [it, fresh] = jobs_.try_emplace(q.job);
    Job& j = it->second;
    if (fresh) {  // this service's job from before it restarted
      j.gpus = q.gpus;
      j.submitted_at = now;
      j.joined = true;  // as far as we know: it is not held against anyone
      Note({now, "adopted", q.job, j.gpus, "a runner job from before the service restarted"});
    }
    if (q.state == "RUNNING" && j.state != "RUNNING")
      Note({now, "running", q.job, j.gpus, "on " + q.nodes});
    if (j.state != "CANCELLED" || q.state != "PENDING") j.state = q.state;
    j.reason = q.reason;
  }
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    if (seen.count(it->first)) {
      ++it;
      continue;
    }
    const Job& j = it->second;
    if (!j.joined && j.state != "CANCELLED") {
      // Its runner never came (a binary or key the node cannot read, a
      // host it cannot reach): asking again now would fail the same way.
      Note({now, "failed", it->first, j.gpus,
            "runner job " + it->first + " ended before its runner joined; see " + folder_.logs +
                "/" + it->first + ".out"});
      refused_until_[j.gpus] = now + kRetryRefusedS;
    }
    Note({now, "ended", it->first, j.gpus, "left the queue"});
    it = jobs_.erase(it);
  }
}

void SlurmLauncher::Act(const LaunchDemand& demand, double now) {
  // Jobs whose runner has not joined yet, by GPUs: runners on their way.
  std::map<int, int64_t> coming;
  std::set<int> kinds;
  for (const auto& [gpus, n] : demand.short_by_gpus) kinds.insert(gpus);
  for (auto& [id, j] : jobs_) {
    if (demand.joined_jobs.count(id)) j.joined = true;
    if (j.state == "CANCELLED" || demand.joined_jobs.count(id)) continue;
    ++coming[j.gpus];
    kinds.insert(j.gpus);
  }
  int64_t alive = static_cast<int64_t>(jobs_.size());
  int64_t submits_left = kMaxSubmitsPerRound;
  for (int gpus : kinds) {
    auto s = demand.short_by_gpus.find(gpus);
    const int64_t wanted = s == demand.short_by_gpus.end() ? 0 : std::max<int64_t>(0, s->second);
    const int64_t extra = coming[gpus] - wanted;
    if (extra < 0) {
      excess_since_.erase(gpus);
      if (now < refused_until_[gpus]) continue;
      const int64_t n = std::min({-extra, o_.max_runners - alive, submits_left});
      for (int64_t i = 0; i < n && !Stopping() && Submit(gpus, now); ++i) {
        ++alive;
        --submits_left;
      }
      continue;
    }
    if (extra == 0) {
      excess_since_.erase(gpus);
      continue;
    }
    auto [since, fresh] = excess_since_.try_emplace(gpus, now);
    if (now - since->second < kCancelAfterS) continue;
    // The newest pending jobs go first: the oldest are nearest to starting.
    std::vector<std::pair<double, std::string>> pending;
    for (const auto& [id, j] : jobs_)
      if (j.gpus == gpus && j.state == "PENDING" && !demand.joined_jobs.count(id))
        pending.emplace_back(j.submitted_at, id);
    std::sort(pending.rbegin(), pending.rend());
    std::vector<std::string> cancel;
    for (int64_t i = 0; i < extra && i < static_cast<int64_t>(pending.size()); ++i)
      cancel.push_back(pending[i].second);
    Cancel(cancel, "the work is covered", now);
  }
}

bool SlurmLauncher::Submit(int gpus, double now) {
  // The user's options first: sbatch takes the last of each, so the name
  // the launcher finds its jobs by and their output stay its own.
  std::vector<std::string> argv = {"sbatch"};
  argv.insert(argv.end(), extra_args_.begin(), extra_args_.end());
  argv.insert(argv.end(), {"--parsable", "--job-name=" + target_.job_name,
                           "--output=" + folder_.logs + "/%j.out"});
  const bool gpus_given = std::any_of(extra_args_.begin(), extra_args_.end(), [](const auto& a) {
    return a.rfind("--gres", 0) == 0 || a.rfind("--gpus", 0) == 0 || a.rfind("-G", 0) == 0;
  });
  if (gpus > 0 && !gpus_given) argv.push_back("--gres=gpu:" + std::to_string(gpus));
  argv.push_back(folder_.script);
  argv.push_back(target_.connect);
  argv.insert(argv.end(), {"--heartbeat-ms", std::to_string(target_.heartbeat_ms)});
  // A GPU study's runner trains on its GPUs, never quietly on the CPU; a
  // CPU runner never on GPUs it may see but was not given.
  argv.insert(argv.end(), {"--backend", gpus > 0 ? "cuda" : "cpu"});
  if (o_.allow_commands) argv.push_back("--allow-commands");
  const std::map<std::string, std::string> env = {
      {"SWEEP", target_.exe},
      {"SWEEP_KEY", folder_.runner_key},
      {"SWEEP_SERVER_KEY", folder_.server_key},
      {"SWEEP_EXIT_WHEN_IDLE", std::to_string(o_.idle_s)},
      {"SWEEP_LEAVE_WITHIN", kLeaveWithinS}};
  auto r = RunSubprocess(argv, env, kCommandTimeoutMs);
  const std::string what =
      gpus > 0 ? "a runner with " + std::to_string(gpus) + " GPU(s)" : std::string("a CPU runner");
  if (!r.ok() || r->exit_code != 0) {
    Note({now, "refused", "", gpus,
          "sbatch refused " + what + ": " +
              (r.ok() ? FirstLine(r->err.empty() ? r->out : r->err) : r.status().message())});
    refused_until_[gpus] = now + kRetryRefusedS;
    return false;
  }
  std::string id = r->out.substr(0, r->out.find_first_of(";\n"));
  if (!IsSlurmJobId(id)) {
    Note({now, "refused", "", gpus, "sbatch answered '" + FirstLine(r->out) + "', not a job id"});
    refused_until_[gpus] = now + kRetryRefusedS;
    return false;
  }
  Job& j = jobs_[id];
  j.gpus = gpus;
  j.submitted_at = now;
  Note({now, "submitted", id, gpus, what});
  return true;
}

void SlurmLauncher::Cancel(const std::vector<std::string>& jobs, const std::string& why,
                           double now) {
  if (jobs.empty()) return;
  // Only while pending: one that started meanwhile has a runner to leave
  // by itself.
  std::vector<std::string> argv = {"scancel", "--state=PENDING"};
  argv.insert(argv.end(), jobs.begin(), jobs.end());
  auto r = RunSubprocess(argv, {}, kCommandTimeoutMs);
  if (!r.ok() || r->exit_code != 0) {
    LOG_WARN << "slurm launcher: scancel failed: "
             << (r.ok() ? FirstLine(r->err) : r.status().message());
    return;
  }
  for (const std::string& job : jobs) {
    jobs_[job].state = "CANCELLED";
    Note({now, "cancelled", job, jobs_[job].gpus, why});
  }
}

}  // namespace sweep
