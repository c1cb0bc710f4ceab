// The worker thread: runs a trial's task and turns what it reports into
// messages for the socket thread (RunTrial also runs an instant trial on the
// socket thread itself).
#include "trial_runner/trial_worker.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "common/json.h"
#include "trial_runner/core_share.h"
#include "trial_runner/task.h"

namespace sweep {

void TrialSlot::Decided(int64_t step) {
  {
    std::lock_guard<std::mutex> lock(mu);
    acked_step = std::max(acked_step, step);
  }
  decided.notify_all();
}

void TrialSlot::Preempt(bool restart) {
  if (restart) {
    stop = true;
  } else {
    preempt = true;
    // A step that is reported already with its checkpoint ends it now.
    if (checkpoint_step.load() >= 0 && checkpoint_step.load() == last_step.load()) stop = true;
  }
  decided.notify_all();  // a worker waiting at a rung looks at `stop` again
}

void TrialSlot::Push(pb::Envelope env, bool last) {
  bool was_empty;
  {
    std::lock_guard<std::mutex> lock(mu);
    was_empty = out.empty();
    out.push_back(std::move(env));
    finished = finished || last;
  }
  // One wake-up per batch: the socket thread takes the whole queue (none
  // when the socket thread runs the trial itself).
  if (was_empty && wake_fd >= 0) {
    uint64_t one = 1;
    ssize_t ignored = write(wake_fd, &one, sizeof one);
    (void)ignored;
  }
}

namespace {

class WorkerContext : public TaskContext {
 public:
  explicit WorkerContext(std::shared_ptr<TrialSlot> slot) : slot_(std::move(slot)) {}
  void Report(int64_t step, const std::vector<pb::Metric>& metrics) override {
    pb::Envelope env;
    pb::Report* r = env.mutable_report();
    r->set_trial_id(slot_->assign.trial_id());
    r->set_lease(slot_->assign.lease());
    r->set_step(step);
    for (const auto& m : metrics) *r->add_metrics() = m;
    slot_->last_step = step;
    slot_->Push(std::move(env), false);
    // Preempted: this step's checkpoint went out before it; the trial goes
    // on from there later.
    if (slot_->preempt.load() && slot_->checkpoint_step.load() == step) slot_->stop = true;
    const auto& waits = slot_->assign.decision_steps();
    if (std::find(waits.begin(), waits.end(), step) != waits.end()) {
      // A rung: go on only once the tuner has decided.
      std::unique_lock<std::mutex> lock(slot_->mu);
      slot_->decided.wait(lock, [&] { return slot_->acked_step >= step || slot_->stop.load(); });
    }
  }
  void Checkpoint(int64_t step, std::string bytes) override {
    int64_t cap = slot_->assign.max_checkpoint_bytes();
    if (cap > 0 && static_cast<int64_t>(bytes.size()) > cap) {
      // Never sent: the trial ends failed at its next stop check.
      if (oversize_.empty())
        oversize_ = "its checkpoint after step " + std::to_string(step) + " is " +
                    FormatMiB(static_cast<int64_t>(bytes.size())) +
                    ", over the study's resources.max_checkpoint_mb (" +
                    FormatDouble(std::round(static_cast<double>(cap) / (1 << 20) * 1000) / 1000) +
                    ")";
      slot_->stop = true;
      return;
    }
    pb::Envelope env;
    pb::Checkpoint* c = env.mutable_checkpoint();
    c->set_trial_id(slot_->assign.trial_id());
    c->set_lease(slot_->assign.lease());
    c->set_step(step);
    c->set_data(std::move(bytes));
    slot_->Push(std::move(env), false);
    slot_->checkpoint_step = step;
    last_sent_ = std::chrono::steady_clock::now();
  }
  bool CheckpointWanted() const override { return slot_->preempt.load(); }
  bool CheckpointDue(int64_t step) const override {
    const int64_t every = slot_->assign.checkpoint_every_ms();
    const auto& waits = slot_->assign.decision_steps();
    return every <= 0 || slot_->preempt.load() ||
           std::find(waits.begin(), waits.end(), step) != waits.end() ||
           std::chrono::steady_clock::now() - last_sent_ >= std::chrono::milliseconds(every);
  }
  void Log(std::string text) override {
    pb::Envelope env;
    pb::Log* g = env.mutable_log();
    g->set_trial_id(slot_->assign.trial_id());
    g->set_lease(slot_->assign.lease());
    g->set_text(std::move(text));
    g->set_seq(++slot_->log_seq);
    slot_->Push(std::move(env), false);
  }
  bool StopRequested() const override { return slot_->stop.load(); }
  // Why the trial must fail though its task ended otherwise ("" if none).
  const std::string& oversize() const { return oversize_; }
  int64_t CommittedStep() const override {
    std::lock_guard<std::mutex> lock(slot_->mu);
    return slot_->acked_step;
  }
  // The runner's own threads, or more while the host's cores are shared.
  int CpuThreads() override {
    return slot_->cores ? std::max(Own(), slot_->cores->Threads()) : Own();
  }
  int MaxCpuThreads() const override {
    return slot_->cores ? std::max(Own(), slot_->cores->cores()) : Own();
  }

 private:
  int Own() const { return std::max(1, slot_->assign.threads_hint()); }
  std::shared_ptr<TrialSlot> slot_;
  std::string oversize_;  // the thread that runs the trial only
  // When the last checkpoint was sent (the trial's start before one is).
  std::chrono::steady_clock::time_point last_sent_ = std::chrono::steady_clock::now();
};

}  // namespace

void RunTrial(const std::shared_ptr<TrialSlot>& slot) {
  WorkerContext ctx(slot);
  if (slot->cores) slot->cores->SetBusy(true);
  TaskResult result = RunTask(slot->assign, &ctx);
  if (slot->cores) slot->cores->SetBusy(false);
  if (!ctx.oversize().empty()) {
    result.outcome = pb::TRIAL_OUTCOME_FAILED;
    result.error = ctx.oversize();
  }
  pb::Envelope env;
  pb::Final* f = env.mutable_final();
  f->set_trial_id(slot->assign.trial_id());
  f->set_lease(slot->assign.lease());
  f->set_outcome(result.outcome);
  f->set_error(ValidUtf8(result.error));  // may quote a program's output
  f->set_step(result.step);
  for (const auto& m : result.metrics) *f->add_metrics() = m;
  if (result.end_runner) {
    std::lock_guard<std::mutex> lock(slot->mu);
    slot->end_runner = true;
  }
  slot->Push(std::move(env), true);
}

Worker::Worker() {
  std::thread([this] { Loop(); }).detach();
}

void Worker::Start(std::shared_ptr<TrialSlot> slot) {
  std::lock_guard<std::mutex> lock(mu_);
  next_ = std::move(slot);
  cv_.notify_one();
}

void Worker::Loop() {
  while (true) {
    std::shared_ptr<TrialSlot> slot;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return next_ != nullptr; });
      slot = std::move(next_);
    }
    RunTrial(slot);
  }
}

}  // namespace sweep
