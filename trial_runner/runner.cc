// Runner loop: one socket thread (heartbeats, messages) and one worker thread
// per trial, so a long training step never silences the heartbeat.
#include "trial_runner/runner.h"

#include <sys/eventfd.h>
#include <unistd.h>
#include <zmq.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "common/clock.h"
#include "common/log.h"
#include "common/rng.h"
#include "common/wire.h"
#include "common/zmq_socket.h"
#include "nn/backend.h"
#include "trial_runner/task.h"
#include "trial_runner/train_task.h"

namespace sweep {

namespace {

// State shared between the socket thread and one trial's worker thread.
struct TrialSlot {
  pb::Assign assign;
  std::atomic<bool> stop{false};
  std::atomic<int64_t> last_step{0};
  bool abandoned = false;  // socket thread only: drop whatever the worker still sends
  int64_t abandoned_at_ms = 0;
  std::mutex mu;
  std::deque<pb::Envelope> out;  // guarded by mu
  bool finished = false;         // guarded by mu
  int64_t acked_step = 0;        // guarded by mu: the tuner's decision is in up to here
  std::condition_variable decided;
  int wake_fd = -1;

  // Called by the socket thread for an Ack, a stop or an abandon.
  void Decided(int64_t step) {
    {
      std::lock_guard<std::mutex> lock(mu);
      acked_step = std::max(acked_step, step);
    }
    decided.notify_all();
  }

  void Push(pb::Envelope env, bool last) {
    bool was_empty;
    {
      std::lock_guard<std::mutex> lock(mu);
      was_empty = out.empty();
      out.push_back(std::move(env));
      finished = finished || last;
    }
    // One wake-up per batch: the socket thread takes the whole queue.
    if (was_empty) {
      uint64_t one = 1;
      ssize_t ignored = write(wake_fd, &one, sizeof one);
      (void)ignored;
    }
  }
};

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
    const auto& waits = slot_->assign.decision_steps();
    if (std::find(waits.begin(), waits.end(), step) != waits.end()) {
      // A rung: go on only once the tuner has decided.
      std::unique_lock<std::mutex> lock(slot_->mu);
      slot_->decided.wait(lock, [&] { return slot_->acked_step >= step || slot_->stop.load(); });
    }
  }
  void Checkpoint(int64_t step, std::string bytes) override {
    pb::Envelope env;
    pb::Checkpoint* c = env.mutable_checkpoint();
    c->set_trial_id(slot_->assign.trial_id());
    c->set_lease(slot_->assign.lease());
    c->set_step(step);
    c->set_data(std::move(bytes));
    slot_->Push(std::move(env), false);
  }
  bool StopRequested() const override { return slot_->stop.load(); }

 private:
  std::shared_ptr<TrialSlot> slot_;
};

void RunTrial(const std::shared_ptr<TrialSlot>& slot) {
  WorkerContext ctx(slot);
  TaskResult result = RunTask(slot->assign, &ctx);
  pb::Envelope env;
  pb::Final* f = env.mutable_final();
  f->set_trial_id(slot->assign.trial_id());
  f->set_lease(slot->assign.lease());
  f->set_outcome(result.outcome);
  f->set_error(result.error);
  f->set_step(result.step);
  for (const auto& m : result.metrics) *f->add_metrics() = m;
  slot->Push(std::move(env), true);
}

// One long-lived thread runs the trials, one at a time. It is detached: a task
// that hangs forever cannot block the process from exiting.
class Worker {
 public:
  Worker() {
    std::thread([this] { Loop(); }).detach();
  }
  void Start(std::shared_ptr<TrialSlot> slot) {
    std::lock_guard<std::mutex> lock(mu_);
    next_ = std::move(slot);
    cv_.notify_one();
  }

 private:
  void Loop() {
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
  std::mutex mu_;
  std::condition_variable cv_;
  std::shared_ptr<TrialSlot> next_;
};

class Runner {
 public:
  Runner(const RunnerOptions& o, std::string device) : o_(o), device_(std::move(device)) {}
  ~Runner() {
    sock_.Close();  // before the context (ZmqContext's destructor) ends
    if (wake_fd_ >= 0) close(wake_fd_);
  }

  int Run() {
    wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (!ctx_.get() || wake_fd_ < 0) {
      LOG_ERROR << "cannot create the ZeroMQ context or event fd";
      return 1;
    }
    if (!Connect()) return 1;
    int64_t backoff = o_.heartbeat_ms;
    int64_t unreachable_since = NowMs();
    while (exit_code_ < 0) {
      short events = ZMQ_POLLIN | (outq_.empty() ? 0 : ZMQ_POLLOUT);
      zmq_pollitem_t items[2] = {{sock_.get(), 0, events, 0}, {nullptr, wake_fd_, ZMQ_POLLIN, 0}};
      if (zmq_poll(items, 2, o_.heartbeat_ms / 4) < 0 && zmq_errno() != EINTR) {
        LOG_ERROR << "zmq_poll failed: " << zmq_strerror(zmq_errno());
        return 1;
      }
      if (items[1].revents & ZMQ_POLLIN) {
        uint64_t n;
        ssize_t ignored = read(wake_fd_, &n, sizeof n);
        (void)ignored;
      }
      FlushOut();
      DrainWorker();
      if (items[0].revents & ZMQ_POLLIN) ReadSocket();
      if (exit_code_ >= 0) break;
      int64_t now = NowMs();
      if (slot_ && slot_->abandoned &&
          now - slot_->abandoned_at_ms > int64_t{o_.heartbeat_ms} * o_.liveness) {
        LOG_ERROR << "trial " << slot_->assign.trial_id() << " did not stop within "
                  << o_.heartbeat_ms * o_.liveness / 1000
                  << " s after it was cancelled; exiting so a fresh runner can take over";
        std::_Exit(3);  // the hung task still holds the worker thread
      }
      // Liveness counts missed beats, not wall time (Paranoid Pirate), so a
      // runner that was itself frozen (SIGSTOP, swap) first reads what the
      // tuner sent meanwhile instead of presuming the tuner dead.
      if (now - last_tick_ms_ >= o_.heartbeat_ms) {
        last_tick_ms_ = now;
        missed_ = heard_since_tick_ ? 0 : missed_ + 1;
        heard_since_tick_ = false;
      }
      if (missed_ >= o_.liveness) {
        if (o_.give_up_after_s > 0 &&
            now - unreachable_since > int64_t{o_.give_up_after_s} * 1000) {
          LOG_ERROR << "no tuner reachable at " << o_.endpoint << " for " << o_.give_up_after_s
                    << " s; giving up";
          return 1;
        }
        LOG_WARN << "tuner at " << o_.endpoint << " silent for " << missed_
                 << " heartbeats; reconnecting in " << backoff << " ms";
        Abandon("lost the tuner");
        sock_.Close();
        outq_.clear();  // for a tuner that is gone; the new connection starts afresh
        SleepDraining(backoff);
        backoff = std::min<int64_t>(backoff * 2, o_.max_backoff_ms);
        if (!Connect()) return 1;
        continue;
      }
      if (heard_since_connect_) {
        backoff = o_.heartbeat_ms;
        unreachable_since = now;
      }
      if (now - last_send_ms_ >= o_.heartbeat_ms) {
        pb::Envelope hb;
        if (slot_ && !slot_->abandoned) {
          hb.mutable_heartbeat()->set_busy_trial(slot_->assign.trial_id());
          hb.mutable_heartbeat()->set_lease(slot_->assign.lease());
        }
        hb.mutable_heartbeat()->set_last_step(slot_ ? slot_->last_step.load() : 0);
        Send(&hb);
      }
    }
    Abandon("shutting down");
    return exit_code_;
  }

 private:
  bool Connect() {
    auto sock = ZmqSocket::Open(ctx_, ZMQ_DEALER);
    if (!sock.ok()) {
      LOG_ERROR << sock.status().message();
      return false;
    }
    sock_ = std::move(sock).value();
    std::string id =
        o_.name + "#" + std::to_string(++connections_) + "-" +
        std::to_string(
            SplitMix64(static_cast<uint64_t>(NowMs()) ^ static_cast<uint64_t>(getpid())) % 100000);
    Status st = sock_.SetBytes(ZMQ_ROUTING_ID, id, "ZMQ_ROUTING_ID");
    if (st.ok()) st = sock_.SetInt(ZMQ_LINGER, 0, "ZMQ_LINGER");
    if (st.ok())
      st = sock_.SetInt64(ZMQ_MAXMSGSIZE, static_cast<int64_t>(kMaxMessageBytes), "ZMQ_MAXMSGSIZE");
    if (st.ok()) st = sock_.Connect(o_.endpoint);
    if (!st.ok()) {
      LOG_ERROR << st.message();
      return false;
    }
    last_tick_ms_ = NowMs();
    missed_ = 0;
    heard_since_tick_ = false;
    heard_since_connect_ = false;
    tuner_instance_.clear();
    if (!slot_) SendHello();
    return true;
  }

  void SendHello() {
    pb::Envelope env;
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    env.mutable_hello()->set_runner(o_.name);
    env.mutable_hello()->set_host(host);
    env.mutable_hello()->set_pid(getpid());
    env.mutable_hello()->set_device(device_);
    Send(&env);
  }

  // Messages are never dropped: what the socket cannot take now (its
  // high-water mark is reached when a fast task out-reports the tuner's
  // commits) waits here, in order, and goes out as the socket drains.
  void Send(pb::Envelope* env) {
    if (!sock_) return;
    outq_.push_back(EncodeEnvelope(env));
    FlushOut();
  }

  void FlushOut() {
    while (sock_ && !outq_.empty()) {
      const std::string& bytes = outq_.front();
      if (zmq_send(sock_.get(), bytes.data(), bytes.size(), ZMQ_DONTWAIT) < 0) {
        if (zmq_errno() != EAGAIN) {
          LOG_WARN << "send failed: " << zmq_strerror(zmq_errno());
          outq_.pop_front();
          continue;
        }
        return;  // full: retried when the socket can take more
      }
      outq_.pop_front();
      last_send_ms_ = NowMs();
    }
  }

  // Sleeps up to `ms`, still collecting what the worker produces.
  void SleepDraining(int64_t ms) {
    int64_t end = NowMs() + ms;
    while (NowMs() < end) {
      zmq_pollitem_t item = {nullptr, wake_fd_, ZMQ_POLLIN, 0};
      zmq_poll(&item, 1, static_cast<long>(std::min<int64_t>(100, end - NowMs())));
      uint64_t n;
      ssize_t ignored = read(wake_fd_, &n, sizeof n);
      (void)ignored;
      DrainWorker();
    }
  }

  void DrainWorker() {
    if (!slot_) return;
    std::deque<pb::Envelope> out;
    bool finished;
    {
      std::lock_guard<std::mutex> lock(slot_->mu);
      out.swap(slot_->out);
      finished = slot_->finished;
    }
    if (!slot_->abandoned) {
      for (auto& env : out) Send(&env);
    }
    if (finished) {
      bool abandoned = slot_->abandoned;
      slot_.reset();
      if (abandoned) {
        // Say we are idle (and hold nothing), so the tuner can reassign.
        if (sock_) SendHello();
      } else if (!pending_.empty()) {
        pb::Assign next = std::move(pending_.front());
        pending_.pop_front();
        StartTrial(next);
      }
    }
  }

  void ReadSocket() {
    while (sock_) {
      zmq_msg_t msg;
      zmq_msg_init(&msg);
      if (zmq_msg_recv(&msg, sock_.get(), ZMQ_DONTWAIT) < 0) {
        zmq_msg_close(&msg);
        return;
      }
      auto env = DecodeEnvelope(zmq_msg_data(&msg), zmq_msg_size(&msg));
      zmq_msg_close(&msg);
      heard_since_tick_ = true;
      missed_ = 0;
      heard_since_connect_ = true;
      if (!env.ok()) {
        LOG_WARN << "dropped a message from the tuner: " << env.status().message();
        continue;
      }
      Handle(*env);
      if (exit_code_ >= 0) return;
    }
  }

  void Handle(const pb::Envelope& env) {
    if (!env.tuner_instance().empty()) {
      if (tuner_instance_.empty()) {
        tuner_instance_ = env.tuner_instance();
      } else if (tuner_instance_ != env.tuner_instance()) {
        LOG_WARN << "the tuner restarted; dropping the current trial and re-registering";
        tuner_instance_ = env.tuner_instance();
        Abandon("the tuner restarted");
        if (!slot_) SendHello();
      }
    }
    switch (env.body_case()) {
      case pb::Envelope::kAssign:
        StartTrial(env.assign());
        break;
      case pb::Envelope::kAck:
        if (slot_ && !slot_->abandoned && env.ack().trial_id() == slot_->assign.trial_id()) {
          if (env.ack().decision() == pb::DECISION_STOP ||
              env.ack().decision() == pb::DECISION_PAUSE) {
            // Either way the segment ends here; the tuner keeps the
            // checkpoint of a paused trial and may assign it again.
            LOG_DEBUG << "tuner "
                      << (env.ack().decision() == pb::DECISION_STOP ? "stopped" : "paused")
                      << " trial " << env.ack().trial_id();
            slot_->stop = true;
          }
          slot_->Decided(env.ack().step());
        }
        break;
      case pb::Envelope::kReject:
        LOG_WARN << "tuner rejected trial " << env.reject().trial_id() << ": "
                 << env.reject().reason();
        if (slot_ && slot_->assign.lease() == env.reject().lease()) {
          Abandon("rejected");
        } else {
          std::erase_if(pending_,
                        [&](const pb::Assign& a) { return a.lease() == env.reject().lease(); });
        }
        break;
      case pb::Envelope::kReregister:
        LOG_INFO << "tuner asked this runner to register again: " << env.reregister().reason();
        Abandon("re-registering");
        if (!slot_) SendHello();
        break;
      case pb::Envelope::kShutdown:
        LOG_DEBUG << "tuner says shut down: " << env.shutdown().reason();
        exit_code_ = 0;
        break;
      case pb::Envelope::kError:
        LOG_ERROR << "tuner reported a protocol error: " << env.error().reason();
        exit_code_ = 2;
        break;
      default:
        break;
    }
  }

  void StartTrial(const pb::Assign& a) {
    if (slot_) {
      // The tuner queues the next trial ahead when trials are short.
      pending_.push_back(a);
      return;
    }
    LOG_DEBUG << "starting trial " << a.trial_id() << " (attempt " << a.attempt() << ")";
    slot_ = std::make_shared<TrialSlot>();
    slot_->assign = a;
    slot_->assign.set_threads_hint(
        o_.threads > 0 ? o_.threads : static_cast<int>(std::thread::hardware_concurrency()));
    slot_->wake_fd = wake_fd_;
    // Said before the worker begins, so the message is in ZeroMQ's queue
    // before the task can crash the process.
    pb::Envelope started;
    started.mutable_started()->set_trial_id(a.trial_id());
    started.mutable_started()->set_lease(a.lease());
    Send(&started);
    worker_->Start(slot_);
  }

  void Abandon(const char* why) {
    pending_.clear();
    if (!slot_ || slot_->abandoned) return;
    LOG_DEBUG << "abandoning trial " << slot_->assign.trial_id() << ": " << why;
    slot_->stop = true;
    slot_->abandoned = true;
    slot_->abandoned_at_ms = NowMs();
    slot_->Decided(0);
  }

  RunnerOptions o_;
  ZmqContext ctx_;
  ZmqSocket sock_;
  int wake_fd_ = -1;
  int connections_ = 0;
  int exit_code_ = -1;
  int64_t last_tick_ms_ = 0;
  int missed_ = 0;
  bool heard_since_tick_ = false;
  int64_t last_send_ms_ = 0;
  bool heard_since_connect_ = false;
  std::string tuner_instance_;
  std::shared_ptr<TrialSlot> slot_;
  std::deque<pb::Assign> pending_;  // assigned ahead, started when slot_ frees
  std::deque<std::string> outq_;    // encoded messages the socket could not take yet
  std::string device_;              // what trials train on, for Hello
  // Never freed: its detached thread may outlive this object (a hung task).
  Worker* worker_ = new Worker();
};

}  // namespace

Status ResolveTrainDevice(const RunnerOptions& o, std::string* description) {
  // `auto` on a machine without the NVIDIA driver does not even load the
  // CUDA module (it costs ~0.15 s of start-up).
  bool driver = access("/proc/driver/nvidia/gpus", F_OK) == 0 || access("/dev/nvidia0", F_OK) == 0;
  int visible = o.backend == "cpu" || (o.backend == "auto" && !driver) ? 0 : nn::CudaDeviceCount();
  bool cuda = o.backend == "cuda" || (o.backend == "auto" && visible > 0);
  if (o.backend != "auto" && o.backend != "cpu" && o.backend != "cuda")
    return Status::Error("--backend must be auto, cpu or cuda (got '" + o.backend + "')");
  if (!cuda) {
    if (!o.gpus.empty() && o.backend == "cpu")
      return Status::Error("--gpus makes no sense with --backend cpu");
    SetTrainDevice({});
    *description = "cpu";
    return Status::Ok();
  }
  if (!nn::HaveCudaBackend()) {
    return Status::Error(
        "--backend cuda: this sweep was built without the CUDA backend (no CUDA "
        "toolkit, cuDNN or NCCL at build time)");
  }
  if (visible == 0) {
    // The backend's own reason: the module could not load, or no device.
    auto probe = nn::MakeCudaBackend(0);
    return Status::Error("--backend cuda: " + (probe.ok() ? std::string("no CUDA device is visible")
                                                          : probe.status().message()));
  }
  TrainDevice d;
  d.cuda = true;
  d.gpus = o.gpus;
  if (d.gpus.empty())
    for (int i = 0; i < visible; ++i) d.gpus.push_back(i);
  for (int g : d.gpus) {
    if (g < 0 || g >= visible)
      return Status::Error("--gpus: no CUDA device " + std::to_string(g) + " (" +
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

int RunRunner(const RunnerOptions& options) {
  RunnerOptions o = options;
  if (o.name.empty()) {
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    o.name = std::string(host) + "-" + std::to_string(getpid());
  }
  SetLogTag("runner " + o.name);
  std::string device;
  Status st = ResolveTrainDevice(o, &device);
  if (!st.ok()) {
    LOG_ERROR << st.message();
    return 2;
  }
  LOG_INFO << "training on " << device;
  Runner runner(o, device);
  return runner.Run();
}

}  // namespace sweep
