// The tuner: set-up and resume, the event loop (poll the ROUTER, handle a
// batch of messages, commit it in one transaction, then acknowledge and
// dispatch), and shutdown.
#include <signal.h>
#include <unistd.h>
#include <zmq.h>

#include <cstring>
#include <thread>

#include "tuner/tuner_internal.h"

namespace sweep {
namespace tuner_internal {

namespace {

std::atomic<int> g_signals{0};

void OnSignal(int) {
  if (g_signals.fetch_add(1) >= 1) {
    const char msg[] = "\nsweep: second interrupt, exiting now (committed results are safe)\n";
    ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
    _exit(130);
  }
}

// tcp://0.0.0.0:5555 or tcp://*:5555 -> tcp://127.0.0.1:5555 for local runners.
std::string LocalConnectEndpoint(const std::string& bound) {
  for (const char* any : {"tcp://0.0.0.0:", "tcp://*:"}) {
    if (bound.rfind(any, 0) == 0) return "tcp://127.0.0.1:" + bound.substr(std::strlen(any));
  }
  return bound;
}

bool IsLoopback(const std::string& endpoint) {
  return endpoint.rfind("ipc://", 0) == 0 || endpoint.rfind("inproc://", 0) == 0 ||
         endpoint.rfind("tcp://127.", 0) == 0 || endpoint.rfind("tcp://localhost:", 0) == 0 ||
         endpoint.rfind("tcp://[::1]:", 0) == 0;
}

}  // namespace

std::string Printable(const std::string& id) {
  std::string out;
  for (unsigned char c : id.substr(0, 64))
    out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  return out;
}

Status Tuner::Setup() {
  ASSIGN_OR_RETURN(ParsedStudy parsed, LoadStudyFile(o_.study_path));
  RETURN_IF_ERROR(ValidateStudy(&parsed));
  RETURN_IF_ERROR(CheckPlan(parsed.study));
  study_ = parsed.study;
  if (!o_.gpus.empty() &&
      static_cast<int>(o_.gpus.size()) < std::max(1, study_.resources().gpus_per_trial())) {
    return Status::Error("--gpus lists " + std::to_string(o_.gpus.size()) +
                         " devices but the study needs " +
                         std::to_string(study_.resources().gpus_per_trial()) + " per trial");
  }
  ASSIGN_OR_RETURN(SearchSpace space, SearchSpace::Create(study_));
  space_ = std::make_unique<SearchSpace>(std::move(space));
  max_retries_ = study_.algorithm().has_max_retries() ? study_.algorithm().max_retries() : 2;
  double stall = study_.task().has_stall_timeout_s() ? study_.task().stall_timeout_s() : 1800;
  stall_ms_ = static_cast<int64_t>(stall * 1000);

  ASSIGN_OR_RETURN(store_, Store::Open(o_.db_path));
  checkpoint_dir_ = o_.db_path + ".checkpoints";
  ASSIGN_OR_RETURN(study_id_, store_->OpenStudy(study_));
  RETURN_IF_ERROR(store_->Begin());
  ASSIGN_OR_RETURN(int requeued, store_->RequeueRunning(study_id_, WallSeconds()));
  if (requeued > 0) {
    RETURN_IF_ERROR(store_->AddEvent(study_id_, 0, "resumed",
                                     std::to_string(requeued) + " interrupted trials re-queued",
                                     WallSeconds()));
  }
  RETURN_IF_ERROR(store_->SetStudyStatus(study_id_, "running", WallSeconds()));
  RETURN_IF_ERROR(store_->Commit());
  ASSIGN_OR_RETURN(std::vector<TrialRecord> existing, store_->LoadTrials(study_id_));
  for (auto& r : existing) {
    Trial t;
    t.id = r.id;
    t.number = r.number;
    t.status = r.status;
    t.attempts = r.attempts;
    t.params = std::move(r.params);
    t.checkpoint_path = r.checkpoint_path;
    t.checkpoint_step = r.checkpoint_step;
    t.checkpoint_checksum = r.checkpoint_checksum;
    t.parent_id = r.parent_id;
    t.decided_step = r.decided_step;
    t.last_step = r.step;
    t.last_objective = r.last_objective;
    by_number_[t.number] = t.id;
    if (t.status == "queued") queue_.push_back(t.id);
    if (t.status == "paused") ++paused_;
    if (t.status == "completed") {
      ++completed_;
      if (r.value &&
          (!best_ || (study_.objective().goal() == pb::GOAL_MAXIMIZE ? *r.value > *best_
                                                                     : *r.value < *best_))) {
        best_ = r.value;
        best_id_ = t.id;
      }
    }
    if (t.status == "failed") ++failed_;
    if (t.status == "stopped") ++stopped_;
    trials_.emplace(t.id, std::move(t));
  }
  trials_at_start_ = static_cast<int64_t>(existing.size());
  scheduler_ = MakeScheduler(study_, *space_, static_cast<int64_t>(existing.size()), 0);
  // The algorithm's state is rebuilt by replaying what the database holds;
  // its decisions about other trials that were not yet carried out (none,
  // unless the tuner died between deciding and committing) apply now.
  ASSIGN_OR_RETURN(auto history, store_->LoadHistory(study_id_, study_.objective().metric()));
  for (const auto& e : history) {
    switch (e.kind) {
      case Store::HistoryEvent::kCheckpoint:
        scheduler_->OnCheckpoint(e.number, e.step);
        break;
      case Store::HistoryEvent::kReport:
        scheduler_->OnReport(e.number, e.step, e.value);
        break;
      case Store::HistoryEvent::kEnd:
        scheduler_->OnEnd(e.number, e.step);
        break;
    }
  }
  RETURN_IF_ERROR(store_->Begin());
  ApplyDirectives();
  Commit();
  RETURN_IF_ERROR(write_error_);
  if (!existing.empty()) {
    LOG_INFO << "resuming study '" << study_.name() << "' from " << o_.db_path << ": " << completed_
             << " completed, " << failed_ << " failed, " << queue_.size() << " to run again";
  }

  ctx_ = zmq_ctx_new();
  sock_ = zmq_socket(ctx_, ZMQ_ROUTER);
  int one = 1, linger = 0, hwm = 100000;
  int64_t max_size = static_cast<int64_t>(kMaxMessageBytes);
  zmq_setsockopt(sock_, ZMQ_ROUTER_MANDATORY, &one, sizeof one);
  zmq_setsockopt(sock_, ZMQ_LINGER, &linger, sizeof linger);
  zmq_setsockopt(sock_, ZMQ_MAXMSGSIZE, &max_size, sizeof max_size);
  zmq_setsockopt(sock_, ZMQ_SNDHWM, &hwm, sizeof hwm);
  zmq_setsockopt(sock_, ZMQ_RCVHWM, &hwm, sizeof hwm);
  if (zmq_bind(sock_, o_.bind.c_str()) != 0) {
    return Status::Error("cannot listen on " + o_.bind + ": " + zmq_strerror(zmq_errno()));
  }
  char buf[512];
  size_t len = sizeof buf;
  zmq_getsockopt(sock_, ZMQ_LAST_ENDPOINT, buf, &len);
  endpoint_ = buf;
  if (!IsLoopback(endpoint_)) {
    LOG_WARN << "listening on " << endpoint_
             << ", beyond loopback: any host that reaches this port can join as a runner";
  }
  LOG_INFO << "study '" << study_.name() << "': tuner listening on " << endpoint_
           << " (join with: sweep runner --connect " << LocalConnectEndpoint(endpoint_) << ")";
  uint64_t seed = HashKey({static_cast<uint64_t>(getpid()), static_cast<uint64_t>(NowMs()),
                           static_cast<uint64_t>(WallSeconds() * 1e6)});
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(seed));
  instance_ = hex;
  lease_base_ = seed & 0xffffffff00000000ULL;
  return Status::Ok();
}

Status Tuner::Turn() {
  int64_t now = NowMs();
  // If this process was frozen (SIGSTOP, swapping), nobody could reach it:
  // do not blame the runners or trials for the gap.
  if (last_turn_ms_ > 0 && now - last_turn_ms_ > o_.heartbeat_ms) {
    int64_t gap = now - last_turn_ms_;
    for (auto& [id, r] : runners_) r.last_seen_ms += gap;
    for (auto& [id, t] : trials_) t.progress_ms += gap;
  }
  last_turn_ms_ = now;
  zmq_pollitem_t item = {sock_, 0, ZMQ_POLLIN, 0};
  int timeout = std::max(10, o_.heartbeat_ms / 10);
  if (store_->in_transaction()) timeout = 1;  // a commit is due soon
  if (zmq_poll(&item, 1, timeout) < 0 && zmq_errno() != EINTR) {
    return Status::Error(std::string("zmq_poll: ") + zmq_strerror(zmq_errno()));
  }
  for (int n = 0; n < 10000 && (item.revents & ZMQ_POLLIN); ++n) {
    zmq_msg_t id, body;
    zmq_msg_init(&id);
    if (zmq_msg_recv(&id, sock_, ZMQ_DONTWAIT) < 0) {
      zmq_msg_close(&id);
      break;
    }
    std::string identity(static_cast<char*>(zmq_msg_data(&id)), zmq_msg_size(&id));
    zmq_msg_close(&id);
    zmq_msg_init(&body);
    zmq_msg_recv(&body, sock_, ZMQ_DONTWAIT);
    bool extra = zmq_msg_more(&body);
    HandleMessage(identity, zmq_msg_data(&body), zmq_msg_size(&body));
    zmq_msg_close(&body);
    while (extra) {  // a well-behaved runner sends one frame; drop the rest
      zmq_msg_t junk;
      zmq_msg_init(&junk);
      zmq_msg_recv(&junk, sock_, ZMQ_DONTWAIT);
      extra = zmq_msg_more(&junk);
      zmq_msg_close(&junk);
    }
  }
  CheckLiveness();
  if (local_ && local_->refused() == local_->count() && runners_.empty()) {
    return Status::Error(
        "no local runner could start (their errors are above); fix the flags or "
        "start runners with `sweep runner --connect " +
        LocalConnectEndpoint(endpoint_) + "`");
  }
  ApplyDirectives();
  if (g_signals == 0) Dispatch();
  Housekeeping();
  if (store_->in_transaction() && NowUs() - last_commit_us_ < kCommitIntervalUs)
    return Status::Ok();
  Commit();
  if (!write_error_.ok()) return write_error_;
  SendPending();
  return Status::Ok();
}

void Tuner::Commit() {
  // Progress (last step and objective) is written once per trial per commit.
  for (int64_t id : progress_dirty_) {
    const Trial& t = trials_[id];
    Write(store_->SetProgress(id, t.last_step, t.last_objective));
  }
  progress_dirty_.clear();
  // Group commit: everything this turn did becomes durable before any
  // runner hears about it.
  Write(store_->Commit());
  last_commit_us_ = NowUs();
  if (write_error_.ok()) {
    for (const auto& f : obsolete_files_) std::remove(f.c_str());
  }
  obsolete_files_.clear();
}

void Tuner::SendPending() {
  if (!write_error_.ok()) return;
  for (auto& [tid, a] : acks_) {
    pb::Envelope env;
    *env.mutable_ack() = a.second;
    Queue(a.first, std::move(env));
  }
  acks_.clear();
  auto out = std::move(outbox_);
  outbox_.clear();
  for (auto& [identity, env] : out) SendNow(identity, &env);
}

void Tuner::Housekeeping() {
  int64_t now = NowMs();
  std::vector<std::string> idle;
  for (auto& [id, r] : runners_) {
    if (now - r.last_sent_ms >= o_.heartbeat_ms) idle.push_back(id);
  }
  for (const auto& id : idle) {
    pb::Envelope hb;
    hb.mutable_heartbeat();
    SendNow(id, &hb);
  }
  if (local_) {
    std::vector<pid_t> died;
    local_->Supervise(!Done() && g_signals == 0, &died);
    for (pid_t pid : died) {
      std::string id;
      for (const auto& [rid, r] : runners_)
        if (r.pid == pid && r.name.rfind("local-", 0) == 0) id = rid;
      if (!id.empty()) LoseRunner(id, "its process (pid " + std::to_string(pid) + ") died");
    }
  }
  if (progress_) progress_->Update(Counts());
}

ProgressCounts Tuner::Counts() const {
  ProgressCounts c;
  c.completed = completed_;
  c.failed = failed_;
  c.stopped = stopped_;
  c.running = running_;
  c.queued = static_cast<int64_t>(queue_.size());
  c.paused = paused_;
  c.planned = scheduler_->Planned();
  c.best = best_;
  c.runners = static_cast<int>(runners_.size());
  return c;
}

int Tuner::Shutdown(const std::string& reason) {
  for (auto& [id, r] : runners_) {
    pb::Envelope env;
    env.mutable_shutdown()->set_reason(reason);
    env.set_tuner_instance(instance_);
    std::string bytes = EncodeEnvelope(&env);
    zmq_send(sock_, id.data(), id.size(), ZMQ_SNDMORE | ZMQ_DONTWAIT);
    zmq_send(sock_, bytes.data(), bytes.size(), ZMQ_DONTWAIT);
  }
  if (local_) local_->StopAll(2000);
  if (progress_) progress_->Clear();
  return 0;
}

void Tuner::PrintSummary() {
  double secs = static_cast<double>(NowMs() - start_ms_) / 1000.0;
  int64_t ran = completed_ + failed_ + stopped_;
  char line[512];
  std::snprintf(line, sizeof line,
                "study '%s': %lld trials (%lld completed, %lld failed, %lld stopped) in %.1f s\n",
                study_.name().c_str(), static_cast<long long>(ran),
                static_cast<long long>(completed_), static_cast<long long>(failed_),
                static_cast<long long>(stopped_), secs);
  std::string out = line;
  if (best_) {
    const Trial& t = trials_[best_id_];
    out += "best trial " + std::to_string(t.id) + ": " + study_.objective().metric() + " = " +
           FormatDouble(*best_) + "  params " + ParamsToJson(t.params.params()) + "\n";
    // Everything else it reported at the end (test_accuracy for training).
    auto metrics = store_->TrialMetrics(t.id);
    if (metrics.ok() && metrics->size() > 2) out += "  final metrics " + *metrics + "\n";
  } else {
    out += "no trial completed; see: sweep trials --status failed --db " + o_.db_path + "\n";
  }
  out += "results: " + o_.db_path + "\n";
  fputs(out.c_str(), stdout);
  fflush(stdout);
}

int Tuner::Run() {
  start_ms_ = NowMs();
  Status st = Setup();
  if (!st.ok()) {
    fprintf(stderr, "sweep: %s\n", st.message().c_str());
    return 1;
  }
  bool live = o_.progress == 1 || (o_.progress < 0 && isatty(STDERR_FILENO));
  progress_ = std::make_unique<Progress>(study_.name(), live);
  if (!Done()) {
    int n = o_.local_runners < 0 ? static_cast<int>(std::thread::hardware_concurrency())
                                 : o_.local_runners;
    // GPU runners: one per set of gpus_per_trial devices, trials_per_gpu
    // processes each (separate processes share a GPU without sharing a CUDA
    // context, so one trial's device error cannot take another down).
    std::vector<std::vector<std::string>> gpu_args;
    if (!o_.gpus.empty()) {
      size_t per = static_cast<size_t>(std::max(1, study_.resources().gpus_per_trial()));
      for (size_t s = 0; s + per <= o_.gpus.size(); s += per) {
        std::string list;
        for (size_t g = s; g < s + per; ++g)
          list += (list.empty() ? "" : ",") + std::to_string(o_.gpus[g]);
        for (int k = 0; k < o_.trials_per_gpu; ++k)
          gpu_args.push_back({"--backend", "cuda", "--gpus", list});
      }
      n = static_cast<int>(gpu_args.size());
      LOG_INFO << "starting " << n << " GPU runners (" << o_.gpus.size() << " GPUs, " << per
               << " per trial, " << o_.trials_per_gpu << " trials per GPU)";
    }
    if (n > 0) {
      local_ = std::make_unique<LocalRunners>(o_.exe, LocalConnectEndpoint(endpoint_), n,
                                              o_.heartbeat_ms);
      // Without --gpus, local runners train on the CPU (one per core).
      for (int i = 0; i < n; ++i) {
        local_->SetArgs(i, gpu_args.empty() ? std::vector<std::string>{"--backend", "cpu"}
                                            : gpu_args[static_cast<size_t>(i)]);
      }
      local_->StartAll();
    } else {
      LOG_INFO << "no local runners; waiting for runners to connect";
    }
  }
  struct sigaction sa = {};
  sa.sa_handler = OnSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);

  while (!Done() && g_signals == 0) {
    st = Turn();
    if (!st.ok()) {
      Shutdown("the tuner hit an error");
      fprintf(stderr,
              "\nsweep: stopping: %s\nCommitted results are safe in %s; run the same command to "
              "resume.\n",
              st.message().c_str(), o_.db_path.c_str());
      return 1;
    }
  }
  if (g_signals > 0) {
    // Interrupted: running trials go back to the queue, uncounted, so the
    // same command resumes them.
    int64_t requeued = 0;
    Status w = store_->Begin();
    for (auto& [id, t] : trials_) {
      if (t.status != "running") continue;
      if (w.ok()) w = store_->Requeue(t.id, std::max(0, t.attempts - 1));
      ++requeued;
    }
    if (w.ok())
      w = store_->AddEvent(study_id_, 0, "interrupted",
                           std::to_string(requeued) + " running trials re-queued", WallSeconds());
    if (w.ok()) w = store_->SetStudyStatus(study_id_, "interrupted", WallSeconds());
    if (w.ok()) w = store_->Commit();
    Shutdown("the tuner was interrupted");
    fprintf(stderr,
            "\nsweep: interrupted; %lld running trials will resume when you run the same command "
            "again\n",
            static_cast<long long>(requeued));
    if (!w.ok())
      fprintf(stderr, "sweep: could not record the interruption: %s\n", w.message().c_str());
    PrintSummary();
    return 130;
  }
  Status w = store_->Begin();
  if (w.ok()) w = store_->SetStudyStatus(study_id_, "completed", WallSeconds());
  if (w.ok()) w = store_->Commit();
  if (progress_) progress_->Update(Counts(), true);
  Shutdown("the study is complete");
  PrintSummary();
  if (!w.ok()) {
    fprintf(stderr, "sweep: %s\n", w.message().c_str());
    return 1;
  }
  return best_ ? 0 : 1;
}

}  // namespace tuner_internal

int RunTuner(const TunerOptions& options) {
  SetLogTag("tuner");
  tuner_internal::Tuner tuner(options);
  return tuner.Run();
}

}  // namespace sweep
