// A command trial's attempt: its folder, environment and parameters file,
// the program's output read line by line (SWEEP_REPORT lines become reports,
// the rest is its log), checkpoint folders packed and sent, and the end of
// the process group on stop, pause, timeout or the program's exit.
#include "trial_runner/command_task.h"

#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <deque>
#include <map>
#include <memory>
#include <set>

#include "common/clock.h"
#include "common/command_template.h"
#include "common/json.h"
#include "common/log.h"
#include "common/posix_error.h"
#include "common/study_defaults.h"
#include "common/values.h"
#include "common/wire.h"
#include "trial_runner/checkpoint_folder.h"
#include "trial_runner/line_reader.h"
#include "trial_runner/program_process.h"
#include "trial_runner/report_line.h"

extern char** environ;

namespace sweep {

namespace {

CommandRunnerConfig& Config() {
  static CommandRunnerConfig config;
  return config;
}

constexpr int kStderrTailLines = 12;
// A program still there this long after SIGKILL is stuck in the kernel.
constexpr int64_t kUnkillableMs = 10000;
// The log goes to the tuner in batches: at this size, or this often.
constexpr size_t kLogBatchBytes = 64 << 10;
constexpr int64_t kLogBatchMs = 200;
// What one attempt sends of its log at most: under the tuner's cap on its
// file (storage/log_files.h), so the note that says what was cut fits.
constexpr int64_t kMaxLogBytes = (16 << 20) - (64 << 10);
// A checkpoint and its envelope must fit in one message.
constexpr size_t kMaxCheckpointBytes = kMaxMessageBytes - (1 << 20);

TaskResult Failed(std::string error, int64_t step = 0) {
  TaskResult r;
  r.outcome = pb::TRIAL_OUTCOME_FAILED;
  r.error = std::move(error);
  r.step = step;
  return r;
}

class Attempt {
 public:
  Attempt(const pb::Assign& a, TaskContext* ctx) : a_(a), cmd_(a.task().command()), ctx_(ctx) {}
  ~Attempt() {
    process_.reset();
    if (!dir_.empty()) RemoveTree(dir_);
  }

  TaskResult Run() {
    Status st = Prepare();
    if (!st.ok()) {
      // The runner's environment (disk, folder), not the program: another
      // runner may do better.
      TaskResult r = Failed("the runner could not prepare the attempt: " + st.message());
      r.outcome = pb::TRIAL_OUTCOME_LOST;
      return r;
    }
    auto spec = Spec();
    if (!spec.ok()) return Failed(spec.status().message());
    auto p = ProgramProcess::Start(*spec);
    if (!p.ok()) {
      TaskResult r = Failed(p.status().message());
      // Out of processes or descriptors here: another runner may do better.
      if (p.status().code() == StatusCode::kUnavailable) r.outcome = pb::TRIAL_OUTCOME_LOST;
      return r;
    }
    process_ = std::move(p).value();
    started_ms_ = NowMs();
    Loop();
    return Outcome();
  }

 private:
  Status Prepare() {
    dir_ = Config().work_root + "/trial-" + std::to_string(a_.trial_id()) + "-attempt-" +
           std::to_string(a_.attempt());
    RemoveTree(dir_);  // a leftover of an earlier runner with this folder
    if (mkdir(dir_.c_str(), 0700) != 0) {
      int e = errno;
      dir_.clear();
      return PosixError("mkdir", Config().work_root + "/trial-...", e);
    }
    ckpt_dir_ = dir_ + "/checkpoints";
    if (mkdir(ckpt_dir_.c_str(), 0700) != 0) return PosixError("mkdir", ckpt_dir_, errno);
    if (!a_.checkpoint().empty()) {
      resume_dir_ = dir_ + "/resume";
      if (mkdir(resume_dir_.c_str(), 0700) != 0) return PosixError("mkdir", resume_dir_, errno);
      Status st = UnpackFolder(a_.checkpoint(), resume_dir_);
      if (!st.ok()) return st;
      last_step_ = a_.checkpoint_step();
    }
    std::string json = ParamsToJson(a_.params()) + "\n";
    params_file_ = dir_ + "/params.json";
    FILE* f = std::fopen(params_file_.c_str(), "wx");
    if (!f) return PosixError("create", params_file_, errno);
    bool ok = std::fwrite(json.data(), 1, json.size(), f) == json.size();
    if (std::fclose(f) != 0 || !ok) return PosixError("write", params_file_, errno);
    return Status::Ok();
  }

  Result<ProgramSpec> Spec() {
    std::map<std::string, std::string> values;
    for (const auto& p : a_.params()) values[p.name()] = ValueToString(p.value());
    ProgramSpec spec;
    for (const auto& arg : cmd_.argv()) {
      auto text = ExpandTemplate(arg, values);
      if (!text.ok())
        return Status::InvalidArgument("task.command.argv: " + text.status().message());
      spec.argv.push_back(std::move(text).value());
    }
    spec.workdir = cmd_.has_workdir() ? cmd_.workdir() : ".";
    // The runner's environment, less any SWEEP_* of its own: the contract's
    // variables below are the only ones.
    std::map<std::string, std::string> env;
    for (char** e = environ; e && *e; ++e) {
      std::string kv = *e;
      size_t eq = kv.find('=');
      if (eq == std::string::npos || kv.rfind("SWEEP_", 0) == 0) continue;
      env[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    for (const auto& [k, v] : cmd_.env()) {
      auto text = ExpandTemplate(v, values);
      if (!text.ok())
        return Status::InvalidArgument("task.command.env." + k + ": " + text.status().message());
      env[k] = std::move(text).value();
    }
    std::string decision_steps;
    for (int64_t s : a_.decision_steps())
      decision_steps += (decision_steps.empty() ? "" : ",") + std::to_string(s);
    env["SWEEP_PARAMS_FILE"] = params_file_;
    env["SWEEP_STUDY"] = a_.study();
    env["SWEEP_TRIAL"] = std::to_string(a_.number());
    env["SWEEP_TRIAL_ID"] = std::to_string(a_.trial_id());
    env["SWEEP_ATTEMPT"] = std::to_string(a_.attempt());
    env["SWEEP_SEED"] = std::to_string(a_.seed());
    env["SWEEP_STEPS"] = std::to_string(TaskResource(a_.task()));
    // Only where the study says the program checkpoints: otherwise Hyperband
    // plans (and `sweep plan` says) re-runs from step 1.
    if (cmd_.checkpoints()) env["SWEEP_CHECKPOINT_DIR"] = ckpt_dir_;
    env["SWEEP_DECISION_STEPS"] = decision_steps;
    if (!resume_dir_.empty()) {
      env["SWEEP_RESUME_DIR"] = resume_dir_;
      env["SWEEP_RESUME_STEP"] = std::to_string(a_.checkpoint_step());
    }
    if (!Config().cuda_visible_devices.empty())
      env["CUDA_VISIBLE_DEVICES"] = Config().cuda_visible_devices;
    for (const auto& [k, v] : env) spec.env.push_back(k + "=" + v);
    return spec;
  }

  void Loop() {
    double timeout_ms = cmd_.timeout_s() * 1000;
    double grace_ms = cmd_.grace_s() * 1000;
    int64_t exit_seen_ms = 0;
    while (true) {
      int64_t now = NowMs();
      if (!terminating_ && ctx_->StopRequested()) BeginTerminate(now, grace_ms);
      // started_ms_ moves on by each wait for the tuner's decision, so the
      // timeout does not count the runner's waits (the program may go on
      // meanwhile, until its output pipe is full); a program that has
      // exited is past it.
      if (!terminating_ && timeout_ms > 0 && !process_->exited() &&
          now - started_ms_ > timeout_ms) {
        timed_out_ = true;
        BeginTerminate(now, grace_ms);
      }
      if (terminating_ && !killed_ && now >= kill_at_ms_) {
        process_->SignalGroup(SIGKILL);
        killed_ = true;
      }
      if (killed_ && !process_->exited() && now >= kill_at_ms_ + kUnkillableMs) {
        unkillable_ = true;  // in the kernel (D state): give the attempt up
        break;
      }
      DeleteCommittedCheckpoints();
      struct pollfd fds[3];
      int n = 0;
      int out = process_->stdout_fd(), err = process_->stderr_fd();
      if (out >= 0) fds[n++] = {out, POLLIN, 0};
      if (err >= 0) fds[n++] = {err, POLLIN, 0};
      if (!process_->exited()) fds[n++] = {process_->exit_fd(), POLLIN, 0};
      if (n == 0) break;
      int r = poll(fds, n, 100);
      if (r < 0 && errno != EINTR) break;
      for (int i = 0; i < n; ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        if (fds[i].fd == process_->exit_fd()) {
          if (process_->ReadExit()) exit_seen_ms = NowMs();
        } else {
          ReadStream(fds[i].fd == out);
        }
      }
      if (NowMs() - last_log_ms_ >= kLogBatchMs) FlushLog();
      // Output held open by a descendant that left the group ends here.
      if (process_->exited() && NowMs() - exit_seen_ms > 2000) break;
    }
    out_lines_.Flush([&](const std::string& l, bool) { OnStdoutLine(l, false); });
    err_lines_.Flush([&](const std::string& l, bool) { OnStderrLine(l, false); });
    if (log_dropped_ > 0)
      log_ += "[sweep] the log is over 16 MiB: the last " + std::to_string(log_dropped_) +
              " bytes were not kept\n";
    // How it ended, in a log that has lines to explain; a quiet program that
    // exits 0 keeps no log at all (no file per trial).
    bool clean = process_->exited() && WIFEXITED(process_->wait_status()) &&
                 WEXITSTATUS(process_->wait_status()) == 0;
    if (process_->exited() && (log_sent_ > 0 || !log_.empty() || !clean))
      log_ +=
          std::string("[sweep] ") +
          (terminating_ && !timed_out_ && oversize_.empty() ? "ended on the tuner's stop or pause: "
                                                            : "") +
          "the program " + DescribeWaitStatus(process_->wait_status()) + "\n";
    FlushLog();
  }

  void BeginTerminate(int64_t now, double grace_ms) {
    terminating_ = true;
    process_->SignalGroup(SIGTERM);
    kill_at_ms_ = now + static_cast<int64_t>(grace_ms);
  }

  void ReadStream(bool is_stdout) {
    int fd = is_stdout ? process_->stdout_fd() : process_->stderr_fd();
    char buf[1 << 16];
    // Bounded per turn, so a flood on one stream cannot starve the other or
    // the stop and timeout checks.
    for (int turn = 0; turn < 16; ++turn) {
      ssize_t n = read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return;  // EAGAIN
      if (n == 0) {
        process_->CloseOutput(is_stdout);
        (is_stdout ? out_lines_ : err_lines_).Flush([&](const std::string& l, bool cut) {
          is_stdout ? OnStdoutLine(l, cut) : OnStderrLine(l, cut);
        });
        return;
      }
      if (is_stdout) {
        out_lines_.Feed(buf, static_cast<size_t>(n),
                        [&](const std::string& l, bool cut) { OnStdoutLine(l, cut); });
      } else {
        err_lines_.Feed(buf, static_cast<size_t>(n),
                        [&](const std::string& l, bool cut) { OnStderrLine(l, cut); });
      }
    }
  }

  // A warning about the program's output goes into its log, where its
  // author will look.
  void Warn(const std::string& what) {
    if (++warnings_ <= 100) AddLog("[sweep] warning: " + what, false);
    if (warnings_ <= 3) LOG_WARN << "trial " << a_.number() << ": " << what;
  }

  void AddLog(const std::string& line, bool cut) {
    if (log_sent_ + static_cast<int64_t>(log_.size() + line.size()) + 64 > kMaxLogBytes) {
      log_dropped_ += static_cast<int64_t>(line.size()) + 1;
      return;
    }
    log_ += line;
    log_ += cut ? "... [sweep: line cut at 64 KiB]\n" : "\n";
    if (log_.size() >= kLogBatchBytes) FlushLog();
  }

  void FlushLog() {
    if (log_.empty()) return;
    log_sent_ += static_cast<int64_t>(log_.size());
    ctx_->Log(std::exchange(log_, std::string()));
    last_log_ms_ = NowMs();
  }

  void OnStderrLine(const std::string& line, bool cut) {
    AddLog(line, cut);
    stderr_tail_.push_back(ValidUtf8(line.substr(0, 500)) +
                           (cut || line.size() > 500 ? "..." : ""));
    if (stderr_tail_.size() > kStderrTailLines) stderr_tail_.pop_front();
  }

  void OnStdoutLine(const std::string& line, bool cut) {
    if (line.rfind(kReportPrefix, 0) != 0) {
      AddLog(line, cut);
      return;
    }
    if (cut) {
      Warn("a SWEEP_REPORT line longer than 64 KiB was ignored");
      return;
    }
    // Once the tuner said stop or pause (at a rung, perhaps mid-chunk), later
    // reports are moot.
    if (terminating_ || ctx_->StopRequested()) return;
    auto report = ParseReportLine(std::string_view(line).substr(kReportPrefix.size()));
    if (!report.ok()) {
      Warn(report.status().message());
      return;
    }
    for (const auto& [key, why] : report->skipped)
      if (warned_keys_.insert(key).second) Warn(why);
    const std::optional<int64_t>& step = report->step;
    const bool checkpoint = report->checkpoint;
    std::vector<pb::Metric>& metrics = report->metrics;
    if (!step) {
      for (auto& m : metrics) final_metrics_[m.name()] = m;
      return;
    }
    if (*step <= last_step_) {
      Warn("ignored step " + std::to_string(*step) + " after step " + std::to_string(last_step_) +
           " (steps must increase)");
      return;
    }
    if (cmd_.has_steps() && *step > cmd_.steps()) {
      Warn("step " + std::to_string(*step) + " is past the study's task.command.steps (" +
           std::to_string(cmd_.steps()) + "): not stored; declare more steps to keep it");
      return;
    }
    if (checkpoint && !cmd_.checkpoints()) {
      Warn("step " + std::to_string(*step) +
           " says checkpoint, but the study does not set task.command.checkpoints: ignored");
    } else if (checkpoint && !SendCheckpoint(*step)) {
      return;  // over the cap: the trial fails, and this step is not reported
    }
    last_step_ = *step;
    ++reports_;
    last_metrics_ = metrics;
    FlushLog();  // the log up to this step arrives before its report
    int64_t asked_ms = NowMs();
    ctx_->Report(*step, metrics);  // at a decision step: until the tuner decides
    started_ms_ += NowMs() - asked_ms;
  }

  // False when the folder is over the study's cap: the trial fails.
  bool SendCheckpoint(int64_t step) {
    std::string folder = ckpt_dir_ + "/" + std::to_string(step);
    // The study's cap (resources.max_checkpoint_mb), checked while packing,
    // so a folder over it is never read into memory.
    int64_t cap = a_.max_checkpoint_bytes();
    size_t max_bytes =
        cap > 0 ? std::min(static_cast<size_t>(cap), kMaxCheckpointBytes) : kMaxCheckpointBytes;
    bool over_cap = false;
    auto bytes = PackFolder(folder, max_bytes, &over_cap);
    if (over_cap) {
      // As for a packed checkpoint over the cap (trial_worker.cc): the trial
      // fails, and its program is ended.
      oversize_ =
          "its checkpoint after step " + std::to_string(step) +
          " is over the study's resources.max_checkpoint_mb (" +
          FormatDouble(std::round(static_cast<double>(max_bytes) / (1 << 20) * 1000) / 1000) + ")";
      BeginTerminate(NowMs(), cmd_.grace_s() * 1000);
      return false;
    }
    if (!bytes.ok()) {
      Warn("step " + std::to_string(step) + " says checkpoint, but " + bytes.status().message());
      return true;
    }
    ctx_->Checkpoint(step, std::move(bytes).value());
    sent_checkpoints_.push_back({step, folder});
    return true;
  }

  // The runner deletes a checkpoint folder once the tuner has committed it.
  void DeleteCommittedCheckpoints() {
    int64_t committed = ctx_->CommittedStep();
    while (!sent_checkpoints_.empty() && sent_checkpoints_.front().first <= committed) {
      RemoveTree(sent_checkpoints_.front().second);
      sent_checkpoints_.pop_front();
    }
  }

  TaskResult Outcome() {
    TaskResult r;
    r.step = last_step_;
    // A checkpoint over the cap fails the trial whatever the tuner decided
    // meanwhile (the tuner keeps a failure after a stop or pause).
    if (!oversize_.empty()) return Failed(oversize_, last_step_);
    // The tuner's stop or pause stands even if the timeout fell in its grace.
    if (ctx_->StopRequested()) {
      r.outcome = pb::TRIAL_OUTCOME_CANCELLED;
      return r;
    }
    if (unkillable_) {
      r.outcome = pb::TRIAL_OUTCOME_LOST;
      r.error = "the program did not end " + std::to_string(kUnkillableMs / 1000) +
                " s after SIGKILL (stuck in the kernel?)";
      return r;
    }
    if (timed_out_) {
      r.outcome = pb::TRIAL_OUTCOME_LOST;
      r.error = "ran past its timeout of " + FormatDouble(cmd_.timeout_s()) +
                " s (task.command.timeout_s)" + StderrTail();
      return r;
    }
    int st = process_->wait_status();
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
      // Resumed from a checkpoint at its last step, it has nothing to run.
      bool resumed_at_end =
          !a_.checkpoint().empty() && a_.checkpoint_step() >= TaskResource(a_.task());
      if (reports_ == 0 && !resumed_at_end) {
        std::string metric =
            a_.objective_metric().empty() ? "a step" : "'" + a_.objective_metric() + "'";
        return Failed("the program exited 0 without reporting " + metric +
                          " (print SWEEP_REPORT {\"step\": N, ...} lines on stdout)" + StderrTail(),
                      last_step_);
      }
      // The last step's metrics win over step-less ones of the same name: the
      // objective is the value the algorithm judged.
      for (const auto& m : last_metrics_) final_metrics_[m.name()] = m;
      for (auto& [name, m] : final_metrics_) r.metrics.push_back(m);
      return r;
    }
    return Failed("the program " + DescribeWaitStatus(st) + StderrTail(), last_step_);
  }

  std::string StderrTail() const {
    if (stderr_tail_.empty()) return "";
    std::string s = "; last lines of stderr:";
    for (const auto& l : stderr_tail_) s += "\n  " + l;
    return s;
  }

  const pb::Assign& a_;
  const pb::CommandTask& cmd_;
  TaskContext* ctx_;
  std::string dir_, ckpt_dir_, resume_dir_, params_file_;
  std::unique_ptr<ProgramProcess> process_;
  int64_t started_ms_ = 0;
  bool terminating_ = false, killed_ = false, timed_out_ = false, unkillable_ = false;
  std::string oversize_;  // why a checkpoint was over the study's cap
  int64_t kill_at_ms_ = 0;
  LineReader out_lines_, err_lines_;
  std::deque<std::string> stderr_tail_;
  int64_t last_step_ = 0;
  int reports_ = 0;
  int warnings_ = 0;
  std::string log_;  // not sent yet
  int64_t log_sent_ = 0, log_dropped_ = 0, last_log_ms_ = 0;
  std::set<std::string> warned_keys_;
  std::vector<pb::Metric> last_metrics_;
  std::map<std::string, pb::Metric> final_metrics_;
  std::deque<std::pair<int64_t, std::string>> sent_checkpoints_;
};

}  // namespace

void SetCommandRunnerConfig(CommandRunnerConfig config) { Config() = std::move(config); }

std::string CommandRefusal() {
  const CommandRunnerConfig& c = Config();
  if (!c.allow_commands)
    return "this runner does not run commands: start it with sweep runner --allow-commands";
  if (!c.tuner_authenticated)
    return "this runner runs commands only for a tuner it has authenticated: start it with "
           "--server-key (the tuner's public key) and --key";
  if (c.work_root.empty()) return "this runner has no folder for command trials";
  return "";
}

TaskResult RunCommandTask(const pb::Assign& assign, TaskContext* ctx) {
  std::string refusal = CommandRefusal();
  if (!refusal.empty()) return Failed(refusal);
  return Attempt(assign, ctx).Run();
}

}  // namespace sweep
