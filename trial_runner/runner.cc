// The runner's socket loop: registration, heartbeats and liveness (Paranoid
// Pirate), reconnects with back-off, and the messages between the tuner and
// the thread that runs the trial: the worker (trial_worker.h), or this one
// for an instant trial (RunsOnSocketThread).
#include "trial_runner/runner.h"

#include <sys/eventfd.h>
#include <unistd.h>
#include <zmq.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <deque>
#include <memory>
#include <set>
#include <thread>

#include "common/clock.h"
#include "common/log.h"
#include "common/private_endpoint.h"
#include "common/rng.h"
#include "common/wire.h"
#include "common/zmq_socket.h"
#include "trial_runner/core_share.h"
#include "trial_runner/runner_setup.h"
#include "trial_runner/runner_socket.h"
#include "trial_runner/task.h"
#include "trial_runner/trial_worker.h"
#include "trial_runner/unacked.h"

namespace sweep {

namespace {

// While it has no tuner, a runner keeps at most this much of what its trials
// sent; past it the running trial is dropped (the tuner re-runs it).
constexpr size_t kMaxUnackedBytes = size_t{512} << 20;

class Runner {
 public:
  Runner(const RunnerOptions& o, pb::Hello hello, std::shared_ptr<CoreShare> cores)
      : o_(o), hello_(std::move(hello)), cores_(std::move(cores)) {}
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
      if (int sig = StopSignal()) {
        LOG_INFO << "stopping on " << strsignal(sig);
        exit_code_ = 128 + sig;
        break;
      }
      if (items[1].revents & ZMQ_POLLIN) {
        uint64_t n;
        ssize_t ignored = read(wake_fd_, &n, sizeof n);
        (void)ignored;
      }
      FlushOut();
      DrainWorker();
      if (items[0].revents & ZMQ_POLLIN) {
        ReadSocket();
        // A trial this thread ran on an Assign (RunsOnSocketThread).
        if (exit_code_ < 0) DrainWorker();
      }
      if (exit_code_ >= 0) break;
      int64_t now = NowMs();
      const int64_t window = int64_t{o_.heartbeat_ms} * o_.liveness;
      if (ending_since_ms_ > 0 && (unacked_.empty() || now - ending_since_ms_ > window ||
                                   now - ending_first_ms_ > 2 * window)) {
        exit_code_ = 3;  // not 2: a local runner is restarted
        break;
      }
      if (slot_ && slot_->abandoned && now - slot_->abandoned_at_ms > window) {
        LOG_ERROR << "trial " << slot_->assign.number() << " did not stop within " << window / 1000
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
      if (missed_ >= o_.liveness || reconnect_now_) {
        reconnect_now_ = false;
        if (o_.give_up_after_s > 0 &&
            now - unreachable_since > int64_t{o_.give_up_after_s} * 1000) {
          LOG_ERROR << "no tuner reachable at " << o_.endpoint << " for " << o_.give_up_after_s
                    << " s; giving up";
          return 1;
        }
        LOG_WARN << "tuner at " << o_.endpoint << " silent for " << missed_
                 << " heartbeats; reconnecting in " << backoff << " ms"
                 << (heard_since_connect_ ? ""
                     : o_.keys ? " (if it is running: does it allow this runner's key, and is "
                                 "--server-key its public key?)"
                               : " (if it is running: a tuner that authenticates runners never "
                                 "answers one without --server-key and --key)");
        // The trial goes on: the next connection re-attaches it (Hello's
        // held trials) if the tuner still holds its lease. Trials queued
        // ahead and not begun go back to the tuner's queue.
        pending_.clear();
        sock_.Close();
        outq_.clear();  // what is unacknowledged is sent again after re-attaching
        SleepDraining(backoff);
        // A runner that holds trials must be back before the tuner, once it
        // runs again, presumes it dead (after `liveness` beats).
        backoff = std::min<int64_t>(
            backoff * 2, Holding() ? int64_t{o_.heartbeat_ms} * std::max(1, o_.liveness - 1)
                                   : int64_t{o_.max_backoff_ms});
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
    // Ending, the runner waits a liveness window for its last result's Ack
    // on this connection: the window a lost connection used up restarts
    // (at most two windows in all, so that it ends with no tuner too).
    if (ending_since_ms_ > 0) ending_since_ms_ = NowMs();
    if (o_.private_tuner) {
      // The folder is checked again before every connection: the path is
      // what ZeroMQ connects to, and the folder could have gone meanwhile.
      Status priv = CheckPrivateEndpoint(o_.endpoint);
      if (!priv.ok()) {
        LOG_ERROR << "--private-tuner: " << priv.message();
        return false;
      }
    }
    std::string id =
        o_.name + "#" + std::to_string(++connections_) + "-" +
        std::to_string(
            SplitMix64(static_cast<uint64_t>(NowMs()) ^ static_cast<uint64_t>(getpid())) % 100000);
    auto sock = ConnectToTuner(ctx_, o_, id);
    if (!sock.ok()) {
      LOG_ERROR << sock.status().message();
      return false;
    }
    sock_ = std::move(sock).value();
    last_tick_ms_ = NowMs();
    missed_ = 0;
    heard_since_tick_ = false;
    heard_since_connect_ = false;
    // A runner that holds trials must know whether the tuner it reaches is
    // the one that assigned them.
    if (!Holding()) tuner_instance_.clear();
    if (!slot_ || !slot_->abandoned) SendHello();
    return true;
  }

  // Whether this runner has trials the tuner may still hold leases for.
  bool Holding() const { return (slot_ && !slot_->abandoned) || !unacked_.empty(); }

  void SendHello() {
    pb::Envelope env;
    *env.mutable_hello() = hello_;
    reattaching_.clear();
    bool running = slot_ && !slot_->abandoned;
    for (auto& h : unacked_.Held(running ? slot_->assign.trial_id() : 0,
                                 running ? slot_->assign.lease() : 0)) {
      reattaching_.insert(h.trial_id());
      *env.mutable_hello()->add_held() = std::move(h);
    }
    if (!reattaching_.empty())
      LOG_INFO << "asking the tuner to re-attach " << reattaching_.size() << " trial(s)";
    Send(&env);
  }

  // Forgets every trial this runner held (the tuner no longer knows them).
  void ForgetHeld(const char* why) {
    Abandon(why);
    unacked_.Clear();
    reattaching_.clear();
  }

  // Messages are never dropped: what the socket cannot take now (its
  // high-water mark is reached when a fast task out-reports the tuner's
  // commits) waits here, in order, and goes out as the socket drains.
  void Send(pb::Envelope* env) {
    if (!sock_) return;
    SendBytes(std::make_shared<const std::string>(EncodeEnvelope(env)));
  }

  void SendBytes(SharedBytes bytes) {
    if (!sock_) return;
    outq_.push_back(std::move(bytes));
    FlushOut();
  }

  // A message of the running trial: kept until the tuner acknowledges it,
  // and sent unless the trial waits to be re-attached.
  void SendTrialMessage(pb::Envelope* env) {
    auto bytes = std::make_shared<const std::string>(EncodeEnvelope(env));
    unacked_.Add(*env, bytes);
    if (sock_ && !reattaching_.count(slot_->assign.trial_id())) {
      SendBytes(std::move(bytes));
    } else if (unacked_.bytes() > kMaxUnackedBytes) {
      LOG_WARN << "trial " << slot_->assign.number() << " sent more than "
               << (kMaxUnackedBytes >> 20) << " MiB while the tuner was out of reach; dropping it";
      Abandon("too much to keep for the tuner");
    }
  }

  void FlushOut() {
    while (sock_ && !outq_.empty()) {
      const std::string& bytes = *outq_.front();
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
    while (NowMs() < end && StopSignal() == 0) {
      zmq_pollitem_t item = {nullptr, wake_fd_, ZMQ_POLLIN, 0};
      zmq_poll(&item, 1, static_cast<long>(std::min<int64_t>(100, end - NowMs())));
      uint64_t n;
      ssize_t ignored = read(wake_fd_, &n, sizeof n);
      (void)ignored;
      DrainWorker();
    }
  }

  // Sends what the running trial produced; when it has finished, starts
  // the next trial queued. A trial this thread runs itself is over when
  // StartTrial returns, so this goes on until a trial runs on the worker or
  // none is left.
  void DrainWorker() {
    while (slot_) {
      std::deque<pb::Envelope> out;
      bool finished, end_runner;
      {
        std::lock_guard<std::mutex> lock(slot_->mu);
        out.swap(slot_->out);
        finished = slot_->finished;
        end_runner = slot_->end_runner;
      }
      for (auto& env : out) {
        if (slot_->abandoned) break;
        SendTrialMessage(&env);
      }
      if (!finished) return;
      bool abandoned = slot_->abandoned;
      slot_.reset();
      if (end_runner) {
        // The trial's result is out; take no other trial and end once the
        // tuner has it (Run's loop), or after the liveness window.
        LOG_ERROR << "this runner's CUDA context may be broken; it ends once its last result "
                     "is acknowledged";
        ending_since_ms_ = ending_first_ms_ = NowMs();
      } else if (abandoned) {
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
        ForgetHeld("the tuner restarted");
        if (!slot_) SendHello();
      }
    }
    switch (env.body_case()) {
      case pb::Envelope::kAssign:
        StartTrial(env.assign());
        break;
      case pb::Envelope::kAck:
        unacked_.Acked(env.ack().trial_id(), env.ack().lease(), env.ack().step(),
                       env.ack().final());
        if (reattaching_.erase(env.ack().trial_id())) {
          // Re-attached: the tuner has everything up to the Ack's step; send
          // the rest again (it may have been lost with the old connection).
          auto rest = unacked_.Pending(env.ack().trial_id(), env.ack().lease());
          LOG_INFO << "trial id " << env.ack().trial_id() << " re-attached at step "
                   << env.ack().step() << "; sending " << rest.size() << " message(s) again";
          for (auto& bytes : rest) SendBytes(std::move(bytes));
        }
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
        LOG_WARN << "tuner rejected trial id " << env.reject().trial_id() << ": "
                 << env.reject().reason();
        unacked_.Drop(env.reject().trial_id(), env.reject().lease());
        reattaching_.erase(env.reject().trial_id());
        if (slot_ && slot_->assign.lease() == env.reject().lease()) {
          Abandon("rejected");
        } else {
          std::erase_if(pending_,
                        [&](const pb::Assign& a) { return a.lease() == env.reject().lease(); });
        }
        break;
      case pb::Envelope::kPreempt:  // the tuner wants this runner back
        if (slot_ && !slot_->abandoned && env.preempt().lease() == slot_->assign.lease())
          slot_->Preempt(env.preempt().restart());
        break;
      case pb::Envelope::kReregister:
        LOG_INFO << "tuner asked this runner to register again: " << env.reregister().reason();
        ForgetHeld("re-registering");
        if (!slot_) SendHello();
        break;
      case pb::Envelope::kShutdown:
        LOG_DEBUG << "tuner says shut down: " << env.shutdown().reason();
        exit_code_ = 0;
        break;
      case pb::Envelope::kError:
        if (env.error().reason() == kTooManyConnections || env.error().reason() == kNameInUse) {
          // The tuner holds as many as it may (--max-connections), or its
          // connection under this name is still alive: try later.
          LOG_WARN << "the tuner refused this runner for now: " << env.error().reason();
          reconnect_now_ = true;
          break;
        }
        LOG_ERROR << "tuner reported a protocol error: " << env.error().reason();
        exit_code_ = 2;
        break;
      default:
        break;
    }
  }

  void StartTrial(const pb::Assign& a) {
    if (ending_since_ms_ > 0) return;  // ending: the tuner re-queues it when we go
    if (slot_) {
      // The tuner queues the next trial ahead when trials are short.
      pending_.push_back(a);
      return;
    }
    LOG_DEBUG << "starting trial " << a.number() << " (attempt " << a.attempt() << ")";
    slot_ = std::make_shared<TrialSlot>();
    slot_->assign = a;
    slot_->assign.set_threads_hint(
        o_.threads > 0 ? o_.threads : static_cast<int>(std::thread::hardware_concurrency()));
    // Short and never blocking: run here, with no hand-off to the worker and
    // back and nobody to wake (DrainWorker sends what it produced).
    const bool here = RunsOnSocketThread(a);
    slot_->wake_fd = here ? -1 : wake_fd_;
    slot_->cores = cores_;
    // Said before the task begins, so the message is in ZeroMQ's queue
    // before the task can crash the process.
    pb::Envelope started;
    started.mutable_started()->set_trial_id(a.trial_id());
    started.mutable_started()->set_lease(a.lease());
    Send(&started);
    if (here) return RunTrial(slot_);
    worker_->Start(slot_);
  }

  void Abandon(const char* why) {
    pending_.clear();
    if (!slot_ || slot_->abandoned) return;
    LOG_DEBUG << "abandoning trial " << slot_->assign.number() << ": " << why;
    slot_->stop = true;
    slot_->abandoned = true;
    slot_->abandoned_at_ms = NowMs();
    slot_->Decided(0);
    unacked_.Drop(slot_->assign.trial_id(), slot_->assign.lease());
    reattaching_.erase(slot_->assign.trial_id());
  }

  RunnerOptions o_;
  ZmqContext ctx_;
  ZmqSocket sock_;
  int wake_fd_ = -1;
  int connections_ = 0;
  int exit_code_ = -1;
  int64_t last_tick_ms_ = 0;
  int64_t ending_since_ms_ = 0;  // a task asked the runner to end (TaskResult::end_runner)
  int64_t ending_first_ms_ = 0;  // ... first at this time
  int missed_ = 0;
  bool reconnect_now_ = false;  // the tuner said to come back later
  bool heard_since_tick_ = false;
  int64_t last_send_ms_ = 0;
  bool heard_since_connect_ = false;
  std::string tuner_instance_;
  std::shared_ptr<TrialSlot> slot_;
  std::deque<pb::Assign> pending_;    // assigned ahead, started when slot_ frees
  std::deque<SharedBytes> outq_;      // encoded messages the socket could not take yet
  UnackedMessages unacked_;           // trial messages the tuner has not acknowledged
  std::set<int64_t> reattaching_;     // held trials named in Hello, not yet answered
  const pb::Hello hello_;             // what every Hello says (runner_setup.h)
  std::shared_ptr<CoreShare> cores_;  // null unless a tuner shares this host's cores
  // Never freed: its detached thread may outlive this object (a hung task).
  Worker* worker_ = new Worker();
};

}  // namespace

int RunRunner(const RunnerOptions& options) {
  RunnerOptions o = options;
  if (o.name.empty()) o.name = DefaultRunnerName();
  SetLogTag("runner " + o.name);
  // A local runner of a tuner that draws a status line on this terminal
  // (tuner/tuner.cc): each log line clears it first.
  if (getenv("SWEEP_LIVE_LINE") && isatty(STDERR_FILENO)) SetLiveLine(true);
  CatchStopSignals();
  auto setup = SetUpRunner(o);
  if (!setup.ok()) {
    LOG_ERROR << setup.status().message();
    return 2;
  }
  Runner runner(o, setup->hello, setup->cores);
  return runner.Run();
}

}  // namespace sweep
