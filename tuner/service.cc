// The service's set-up, its turns (requests inside, answers after), its
// restart where the last one stopped, and its command's loop and signals.
#include "tuner/service.h"

#include <unistd.h>

#include <algorithm>

#include "common/clock.h"
#include "common/log.h"
#include "common/zmq_socket.h"
#include "tuner/assign_policy.h"
#include "tuner/interrupts.h"

namespace sweep {

Result<std::unique_ptr<Service>> Service::Start(const ServiceOptions& o) {
  std::unique_ptr<Service> s(new Service(o));
  s->o_.server.service = true;
  ASSIGN_OR_RETURN(s->server_, Server::Start(s->o_.server));
  s->server_->SetPolicy(std::make_unique<FairSharePolicy>());
  ASSIGN_OR_RETURN(std::optional<RemoteControl> remote, s->RemoteKeys());
  ASSIGN_OR_RETURN(s->control_, ControlSocket::Bind(remote));
  s->server_->WakeOn(s->control_->sockets());
  Service* self = s.get();
  s->server_->SetTurnHook([self] { return self->HandleRequests(); });
  Store& store = s->server_->store();
  RETURN_IF_ERROR(store.Begin());
  RETURN_IF_ERROR(store.SetService(getpid(), s->control_->endpoint()));
  RETURN_IF_ERROR(s->Readmit());
  RETURN_IF_ERROR(s->server_->loop().Flush());
  RETURN_IF_ERROR(s->StartLauncher());
  return s;
}

Service::~Service() {
  // The row goes with the service that wrote it (a killed one's stays, and
  // names a pid that holds no lock: clients see no service).
  if (server_ && server_->store().Begin().ok() && server_->store().ClearService().ok())
    (void)server_->store().Commit();
}

Result<std::optional<RemoteControl>> Service::RemoteKeys() const {
  if (o_.control.empty()) return std::optional<RemoteControl>();
  const std::string& dir = o_.server.keys_dir;
  if (dir.empty()) {
    return Status::InvalidArgument(
        "--control " + o_.control +
        " takes requests from other machines, so clients must authenticate: pass --keys DIR "
        "with their keys in DIR/clients and DIR/admins (`sweep keys new NAME --role client "
        "--dir DIR`); on this machine clients need no --control");
  }
  RETURN_IF_ERROR(CheckEndpoint(o_.control).Wrap("--control"));
  RemoteControl r;
  r.endpoint = o_.control;
  ASSIGN_OR_RETURN(r.server, ReadCurveSecretFile(dir + "/tuner.key"));
  r.keys_dir = dir;
  RETURN_IF_ERROR(ReadControlKeys(&r));
  LOG_INFO << "control endpoint " << o_.control << ": " << r.clients.size() << " clients and "
           << r.admins.size() << " admins in " << dir;
  return std::optional<RemoteControl>(std::move(r));
}

Status Service::Readmit() {
  ASSIGN_OR_RETURN(auto rows, server_->store().ServiceStudies());
  int readmitted = 0;
  for (const auto& row : rows) {
    // Running when the last service stopped (marked interrupted as this
    // one started): it goes on. Paused, cancelled and completed ones wait.
    if (row.status != StudyStatus::kRunning && row.status != StudyStatus::kInterrupted) continue;
    auto run = Admit(row.spec, row.owner, row.priority, row.max_runners);
    if (!run.ok()) {
      LOG_ERROR << "study '" << row.spec.name()
                << "' could not be resumed: " << run.status().message();
      continue;
    }
    ++readmitted;
  }
  if (readmitted > 0) LOG_INFO << "resumed " << readmitted << " studies the last service ran";
  return Status::Ok();
}

Result<StudyRun*> Service::Admit(const pb::Study& spec, const std::string& owner, double priority,
                                 int64_t max_runners) {
  Store& store = server_->store();
  ASSIGN_OR_RETURN(StudyRun * run, server_->Add(spec));
  // Tracked from here on, whatever fails below: it is in the loop.
  if (std::find(admitted_.begin(), admitted_.end(), run->id()) == admitted_.end())
    admitted_.push_back(run->id());
  run->SetShare(priority, max_runners);
  RETURN_IF_ERROR(store.Begin());
  RETURN_IF_ERROR(store.SetStudyService(run->id(), owner, priority, max_runners));
  RETURN_IF_ERROR(store.SetStudyStatus(run->id(), StudyStatus::kRunning, WallSeconds()));
  return run;
}

StudyRun* Service::Admitted(const std::string& name) const {
  for (int64_t id : admitted_) {
    if (leaving_.count(id)) continue;  // paused, cancelled or done in this turn
    StudyRun* s = server_->study(id);
    if (s && s->study().name() == name) return s;
  }
  return nullptr;
}

void Service::AdvancePauses() {
  for (auto it = pausing_.begin(); it != pausing_.end();) {
    StudyRun* s = server_->study(it->first);
    if (!s || leaving_.count(it->first)) {  // done or cancelled meanwhile
      it = pausing_.erase(it);
      continue;
    }
    const bool late = NowMs() - it->second.since_ms > kPauseGraceMs;
    if (s->Counts().running == 0 || late) {
      Leave(it->first, StudyRemoval{"paused",
                                    "paused by " + it->second.by +
                                        (late ? " (trials that reached no checkpoint within " +
                                                    std::to_string(kPauseGraceMs / 60000) +
                                                    " min went back to its queue)"
                                              : ""),
                                    StudyStatus::kPaused});
      it = pausing_.erase(it);
      continue;
    }
    server_->PreemptStudy(it->first, PauseReason(it->second.by));
    ++it;
  }
}

Status Service::HandleRequests() {
  // Studies with nothing left to run leave the pool, stored as completed,
  // or as failed when their first trials all failed the same way (before
  // any request of this turn could pause them); their runners go to the
  // others in this same turn.
  for (int64_t id : admitted_) {
    StudyRun* s = server_->study(id);
    if (s && !leaving_.count(id) && s->Done() && s->fail_fast().stopped()) {
      LOG_WARN << "study '" << Printable(s->study().name())
               << "' stopped: " << Printable(s->fail_fast().Reason());
      Leave(id, StudyRemoval{"failed", s->fail_fast().Reason(), StudyStatus::kFailed});
    } else if (s && !leaving_.count(id) && s->Done()) {
      LOG_INFO << "study '" << s->study().name() << "' is complete";
      Leave(id, StudyRemoval{"completed",
                             s->TimeUp() ? "its time limit passed (algorithm.time_limit)"
                                         : "its algorithm has nothing left to try",
                             StudyStatus::kCompleted});
    }
  }
  AdvancePauses();
  FeedLauncher();
  control_->Receive([this](const std::string& client, const pb::ControlRequest& request,
                           const ControlCaller& caller) {
    replies_.emplace_back(client, Handle(request, caller));
  });
  return Status::Ok();
}

void Service::Leave(int64_t study_id, StudyRemoval how) {
  leaving_.insert(study_id);
  server_->Remove(study_id, std::move(how));
}

pb::ControlReply Service::Handle(const pb::ControlRequest& request, const ControlCaller& user) {
  Result<pb::ControlReply> reply = Status::InvalidArgument("unknown request");
  switch (request.body_case()) {
    case pb::ControlRequest::kSubmit:
      reply = Submit(request.submit(), user);
      break;
    case pb::ControlRequest::kPause:
      reply = Pause(request.pause().study(), user);
      break;
    case pb::ControlRequest::kResume:
      reply = Resume(request.resume().study(), user);
      break;
    case pb::ControlRequest::kCancel:
      reply = Cancel(request.cancel().study(), user);
      break;
    case pb::ControlRequest::kSet:
      reply = Set(request.set(), user);
      break;
    case pb::ControlRequest::kListStudies:
      reply = ListStudies();
      break;
    case pb::ControlRequest::kListRunners:
      reply = ListRunners();
      break;
    default:
      break;
  }
  if (reply.ok()) {
    reply->set_ok(true);
    return *reply;
  }
  pb::ControlReply err;
  err.set_ok(false);
  err.set_error(reply.status().message());
  return err;
}

Status Service::Turn(bool draining) {
  RETURN_IF_ERROR(server_->Turn(draining));
  // Forget the studies that left (completed, paused, cancelled).
  std::erase_if(admitted_, [&](int64_t id) { return server_->study(id) == nullptr; });
  leaving_.clear();
  if (replies_.empty()) return Status::Ok();
  // Answered once what the requests changed (removals included: the turn
  // carried them out) is on disk.
  RETURN_IF_ERROR(server_->loop().Flush());
  for (auto& [client, reply] : replies_) control_->Reply(client, std::move(reply));
  replies_.clear();
  return Status::Ok();
}

Status Service::Stop(const std::string& reason) {
  if (launcher_) {
    launcher_->Stop();  // its pending jobs are cancelled
    if (server_->store().Begin().ok()) StoreLaunchEvents();
  }
  // Stored interrupted: the next service takes them up again.
  int64_t requeued = 0;
  Status w = server_->SuspendAll(reason, &requeued);
  server_->Shutdown(reason);
  LOG_INFO << "service stopped: " << requeued
           << " running trials went back to their studies' queues; `sweep serve` on the same "
              "database takes them up again";
  return w;
}

int RunService(const ServiceOptions& o) {
  SetLogTag("service");
  auto service = Service::Start(o);
  if (!service.ok()) {
    fprintf(stderr, "sweep: %s\n", service.status().message().c_str());
    return 1;
  }
  Service& s = **service;
  LOG_INFO << "service on " << o.server.db_path << ": runners join at "
           << s.server().dispatcher().endpoint() << " (" << s.server().JoinHint()
           << "); clients reach it with `sweep submit STUDY --db " << o.server.db_path << "`"
           << (s.remote_control_endpoint().empty()
                   ? ""
                   : "; from other machines: --server " + s.remote_control_endpoint() +
                         " --server-key " + o.server.keys_dir + "/tuner.pub --key NAME.key");
  CatchInterrupts();
  while (!Interrupted()) {
    Status st = s.Turn(false);
    if (!st.ok()) {
      (void)s.Stop("the service hit an error");
      fprintf(stderr,
              "sweep: service stopping: %s\nCommitted results are safe in %s; run `sweep serve` "
              "again to resume its studies.\n",
              st.message().c_str(), o.server.db_path.c_str());
      return 1;
    }
  }
  Status st = s.Stop("the service was stopped");
  if (!st.ok()) {
    fprintf(stderr, "sweep: could not record the stop: %s\n", st.message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace sweep
