// The runner's connection to its tuner: registration, heartbeats and
// liveness (Paranoid Pirate), reconnects with back-off, and sending; the
// trials' messages are runner_messages.cc, leaving runner_leaving.cc.
#include "trial_runner/runner.h"

#include <sys/eventfd.h>
#include <unistd.h>
#include <zmq.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <memory>

#include "common/clock.h"
#include "common/log.h"
#include "common/private_endpoint.h"
#include "common/rng.h"
#include "trial_runner/runner_loop.h"
#include "trial_runner/runner_setup.h"
#include "trial_runner/runner_socket.h"

namespace sweep {

namespace {

// While it has no tuner, a runner keeps at most this much of what its trials
// sent; past it the running trial is dropped (the tuner re-runs it).
constexpr size_t kMaxUnackedBytes = size_t{512} << 20;

}  // namespace

RunnerLoop::~RunnerLoop() {
  sock_.Close();  // before the context (ZmqContext's destructor) ends
  if (wake_fd_ >= 0) close(wake_fd_);
}

int RunnerLoop::Run() {
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
    if (items[0].revents & ZMQ_POLLIN) {
      ReadSocket();
      // A trial this thread ran on an Assign (RunsOnSocketThread).
      if (exit_code_ < 0) DrainWorker();
    }
    if (exit_code_ >= 0) break;
    int64_t now = NowMs();
    if (int code = CheckLeaving(now); code >= 0) {
      exit_code_ = code;
      break;
    }
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
      if (o_.give_up_after_s > 0 && now - unreachable_since > int64_t{o_.give_up_after_s} * 1000) {
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
    if (now - last_send_ms_ >= o_.heartbeat_ms) Heartbeat();
  }
  Abandon("shutting down");
  return exit_code_;
}

void RunnerLoop::Heartbeat() {
  pb::Envelope hb;
  if (slot_ && !slot_->abandoned) {
    hb.mutable_heartbeat()->set_busy_trial(slot_->assign.trial_id());
    hb.mutable_heartbeat()->set_lease(slot_->assign.lease());
  }
  hb.mutable_heartbeat()->set_last_step(slot_ ? slot_->last_step.load() : 0);
  Send(&hb);
}

bool RunnerLoop::Connect() {
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
      std::to_string(SplitMix64(static_cast<uint64_t>(NowMs()) ^ static_cast<uint64_t>(getpid())) %
                     100000);
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

void RunnerLoop::SendHello() {
  pb::Envelope env;
  *env.mutable_hello() = hello_;
  reattaching_.clear();
  bool running = slot_ && !slot_->abandoned;
  for (auto& h :
       unacked_.Held(running ? slot_->assign.trial_id() : 0, running ? slot_->assign.lease() : 0)) {
    reattaching_.insert(h.trial_id());
    *env.mutable_hello()->add_held() = std::move(h);
  }
  if (!reattaching_.empty())
    LOG_INFO << "asking the tuner to re-attach " << reattaching_.size() << " trial(s)";
  Send(&env);
  if (leaving_signal_ != 0) SayLeaving(false);  // it gives this runner nothing more
}

void RunnerLoop::ForgetHeld(const char* why) {
  Abandon(why);
  unacked_.Clear();
  reattaching_.clear();
}

void RunnerLoop::Send(pb::Envelope* env) {
  if (!sock_) return;
  SendBytes(std::make_shared<const std::string>(EncodeEnvelope(env)));
}

void RunnerLoop::SendBytes(SharedBytes bytes) {
  if (!sock_) return;
  outq_.push_back(std::move(bytes));
  FlushOut();
}

void RunnerLoop::SendTrialMessage(pb::Envelope* env) {
  auto bytes = std::make_shared<const std::string>(EncodeEnvelope(env));
  unacked_.Add(*env, bytes);
  if (sock_ && !reattaching_.count(slot_->assign.trial_id())) {
    SendBytes(std::move(bytes));
  } else if (unacked_.bytes() > kMaxUnackedBytes) {
    LOG_WARN << "trial " << slot_->assign.number() << " sent more than " << (kMaxUnackedBytes >> 20)
             << " MiB while the tuner was out of reach; dropping it";
    Abandon("too much to keep for the tuner");
  }
}

void RunnerLoop::FlushOut() {
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

void RunnerLoop::SleepDraining(int64_t ms) {
  int64_t end = NowMs() + ms;
  while (NowMs() < end && StopSignalCount() == signals_seen_) {
    zmq_pollitem_t item = {nullptr, wake_fd_, ZMQ_POLLIN, 0};
    zmq_poll(&item, 1, static_cast<long>(std::min<int64_t>(100, end - NowMs())));
    uint64_t n;
    ssize_t ignored = read(wake_fd_, &n, sizeof n);
    (void)ignored;
    DrainWorker();
  }
}

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
  RunnerLoop runner(o, setup->hello, setup->cores);
  return runner.Run();
}

}  // namespace sweep
