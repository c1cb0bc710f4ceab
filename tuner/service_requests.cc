// The service's requests: submit, pause, resume, cancel, set, and the
// lists of studies and runners. Each checks that its user may act on the
// study (its owner; admins come with keys), changes the store in the
// turn's transaction, and returns the answer the client prints.
#include <cmath>

#include "common/clock.h"
#include "common/json.h"
#include "common/log.h"
#include "common/terminal_text.h"
#include "search_spaces/validate.h"
#include "tuner/algorithms/hyperband.h"
#include "tuner/assign_policy.h"
#include "tuner/service.h"
#include "tuner/study_data.h"

namespace sweep {

namespace {

pb::ControlReply Said(const std::string& message, int64_t study_id = 0) {
  pb::ControlReply r;
  r.set_message(message);
  r.set_study_id(study_id);
  return r;
}

Status CheckShare(double priority, int64_t max_runners) {
  if (!std::isfinite(priority) || priority < 0 || priority > 1e6)
    return Status::InvalidArgument("--priority must be a number above 0 (at most 1e6)");
  if (max_runners < 0 || max_runners > 1000000)
    return Status::InvalidArgument("--max-runners must be 0 (no cap) or more");
  return Status::Ok();
}

}  // namespace

Result<Store::ServiceStudyRow> Service::Owned(const std::string& name,
                                              const ControlCaller& caller) {
  ASSIGN_OR_RETURN(auto rows, server_->store().ServiceStudies(name));
  for (auto& row : rows) {
    if (row.owner != caller.user && !caller.admin) {
      return Status::FailedPrecondition("study '" + name + "' belongs to '" + row.owner +
                                        "'; only its owner or an admin may change it");
    }
    return row;
  }
  return Status::NotFound("no study '" + name + "' was submitted to this service");
}

Result<pb::ControlReply> Service::Submit(const pb::SubmitStudy& s, const ControlCaller& caller) {
  const std::string& user = caller.user;
  RETURN_IF_ERROR(CheckShare(s.priority(), s.max_runners()));
  // The client validated it; the service does not take its word for it.
  ParsedStudy parsed;
  parsed.study = s.study();
  RETURN_IF_ERROR(ValidateStudy(&parsed));
  const pb::Study& study = parsed.study;
  RETURN_IF_ERROR(CheckPlan(study));
  ASSIGN_OR_RETURN(StudyData data, CheckStudyData(study, o_.server.local_runners != 0));
  // The hints quote the study file (a label's name): escaped for the log.
  for (const std::string& hint : data.hints)
    LOG_WARN << EscapeControl("study '" + study.name() + "': " + hint);
  double priority = s.priority() > 0 ? s.priority() : 1;
  int64_t max_runners = s.max_runners();
  std::string owner = user;
  // Submitting a study that exists resumes it, if it is this user's (an
  // admin's: any); one `sweep run` made in this database, an admin's only.
  auto row = Owned(study.name(), caller);
  if (row.ok()) {
    RETURN_IF_ERROR(NotLeaving(row->id, study.name()));
    owner = row->owner;
    if (s.priority() == 0) priority = row->priority;
    if (s.max_runners() == 0) max_runners = row->max_runners;
  } else if (row.status().code() != StatusCode::kNotFound) {
    return row.status();
  } else if (!caller.admin) {
    ASSIGN_OR_RETURN(auto stored, server_->store().FindStudy(study.name()));
    if (stored) {
      return Status::FailedPrecondition("study '" + study.name() +
                                        "' was made by `sweep run` in this database; only an "
                                        "admin may hand it to the service");
    }
  }
  if (StudyRun* run = Admitted(study.name()))
    return Said("study '" + study.name() + "' runs here already", run->id());
  ASSIGN_OR_RETURN(StudyRun * run, Admit(study, owner, priority, max_runners));
  ProgressCounts c = run->Counts();
  const bool resumed = run->trials().size() > 0;
  return Said((resumed ? "resumed study '" : "submitted study '") + study.name() + "' (id " +
                  std::to_string(run->id()) + ", priority " + FormatDouble(priority) +
                  (max_runners ? ", at most " + std::to_string(max_runners) + " runners" : "") +
                  ")" +
                  (resumed ? ": " + std::to_string(c.completed) + " completed, " +
                                 std::to_string(c.queued) + " to run"
                           : ""),
              run->id());
}

Status Service::NotLeaving(int64_t study_id, const std::string& name) const {
  if (leaving_.count(study_id) == 0) return Status::Ok();
  return Status::Unavailable("study '" + name +
                             "' is leaving the pool this moment (paused, cancelled or done); ask "
                             "again in a moment");
}

Result<pb::ControlReply> Service::Pause(const std::string& name, const ControlCaller& caller) {
  const std::string& user = caller.user;
  ASSIGN_OR_RETURN(Store::ServiceStudyRow row, Owned(name, caller));
  RETURN_IF_ERROR(NotLeaving(row.id, name));
  StudyRun* run = Admitted(name);
  if (!run) {
    return Status::FailedPrecondition("study '" + name + "' is not running (it is " +
                                      StudyStatusName(row.status) + ")");
  }
  if (pausing_.count(row.id))
    return Said("study '" + name + "' is pausing already: its running trials stop at their " +
                    "next checkpoint",
                row.id);
  const int64_t running = run->Counts().running;
  if (running == 0) {
    Leave(run->id(), StudyRemoval{"paused", "paused by " + user, StudyStatus::kPaused});
    return Said("paused study '" + name + "'; `sweep resume " + name + "` goes on", row.id);
  }
  // Its trials stop at their next checkpoint; it leaves once none runs.
  // Stored paused now, so a service killed meanwhile does not take it up
  // again.
  const std::string what = std::to_string(running) +
                           " running trial(s) stop at their next checkpoint (a command without "
                           "checkpoint folders stops now, to run again from its start)";
  Store& store = server_->store();
  RETURN_IF_ERROR(store.Begin());
  RETURN_IF_ERROR(store.SetStudyStatus(row.id, StudyStatus::kPaused, WallSeconds()));
  RETURN_IF_ERROR(
      store.AddEvent(row.id, 0, "pausing", "paused by " + user + ": " + what, WallSeconds()));
  pausing_[row.id] = Pausing{user, NowMs()};
  run->set_pausing(PauseReason(user));
  server_->PreemptStudy(row.id, PauseReason(user));
  return Said("pausing study '" + name + "': its " + what + ", then it is paused (`sweep " +
                  "studies` shows it); `sweep resume " + name + "` goes on",
              row.id);
}

Result<pb::ControlReply> Service::Resume(const std::string& name, const ControlCaller& caller) {
  const std::string& user = caller.user;
  ASSIGN_OR_RETURN(Store::ServiceStudyRow row, Owned(name, caller));
  RETURN_IF_ERROR(NotLeaving(row.id, name));
  if (StudyRun* run = Admitted(name)) {
    if (!pausing_.erase(row.id)) return Said("study '" + name + "' runs already", row.id);
    // Called off: trials stopped meanwhile go on from their checkpoints.
    run->set_pausing("");
    Store& store = server_->store();
    RETURN_IF_ERROR(store.Begin());
    RETURN_IF_ERROR(store.SetStudyStatus(row.id, StudyStatus::kRunning, WallSeconds()));
    RETURN_IF_ERROR(store.AddEvent(row.id, 0, "resumed", "resumed by " + user + " while it paused",
                                   WallSeconds()));
    return Said("resumed study '" + name + "' (its pause is called off)", row.id);
  }
  if (row.status == StudyStatus::kCompleted)
    return Status::FailedPrecondition("study '" + name + "' is complete: nothing to resume");
  ASSIGN_OR_RETURN(StudyRun * run, Admit(row.spec, row.owner, row.priority, row.max_runners));
  RETURN_IF_ERROR(
      server_->store().AddEvent(run->id(), 0, "resumed", "resumed by " + user, WallSeconds()));
  return Said("resumed study '" + name + "'", row.id);
}

Result<pb::ControlReply> Service::Cancel(const std::string& name, const ControlCaller& caller) {
  const std::string& user = caller.user;
  ASSIGN_OR_RETURN(Store::ServiceStudyRow row, Owned(name, caller));
  RETURN_IF_ERROR(NotLeaving(row.id, name));
  if (row.status == StudyStatus::kCompleted)
    return Status::FailedPrecondition("study '" + name + "' is complete: nothing to cancel");
  if (StudyRun* run = Admitted(name)) {
    Leave(run->id(), StudyRemoval{"cancelled", "cancelled by " + user, StudyStatus::kCancelled});
  } else {
    Store& store = server_->store();
    RETURN_IF_ERROR(store.Begin());
    RETURN_IF_ERROR(store.SetStudyStatus(row.id, StudyStatus::kCancelled, WallSeconds()));
    RETURN_IF_ERROR(store.AddEvent(row.id, 0, "cancelled", "cancelled by " + user, WallSeconds()));
  }
  return Said("cancelled study '" + name + "': its results are kept; `sweep resume " + name +
                  "` would go on",
              row.id);
}

Result<pb::ControlReply> Service::Set(const pb::SetStudy& s, const ControlCaller& caller) {
  const std::string& user = caller.user;
  ASSIGN_OR_RETURN(Store::ServiceStudyRow row, Owned(s.study(), caller));
  const double priority = s.has_priority() ? s.priority() : row.priority;
  const int64_t max_runners = s.has_max_runners() ? s.max_runners() : row.max_runners;
  if (s.has_priority() && !(priority > 0))
    return Status::InvalidArgument("--priority must be a number above 0");
  RETURN_IF_ERROR(CheckShare(priority, max_runners));
  Store& store = server_->store();
  RETURN_IF_ERROR(store.Begin());
  RETURN_IF_ERROR(store.SetStudyService(row.id, row.owner, priority, max_runners));
  const std::string change = "priority " + FormatDouble(row.priority) + " -> " +
                             FormatDouble(priority) + ", max_runners " +
                             std::to_string(row.max_runners) + " -> " +
                             std::to_string(max_runners) + " (0: no cap), by " + user;
  RETURN_IF_ERROR(store.AddEvent(row.id, 0, "share changed", change, WallSeconds()));
  if (StudyRun* run = Admitted(s.study())) run->SetShare(priority, max_runners);
  return Said("study '" + s.study() + "': " + change, row.id);
}

Result<pb::ControlReply> Service::ListStudies() {
  pb::ControlReply r;
  // The admitted studies' fair shares of the pool now.
  std::vector<StudyLoad> loads;
  for (int64_t id : admitted_) {
    if (StudyRun* s = server_->study(id)) {
      loads.push_back(StudyLoad{id, !s->Done(), server_->dispatcher().Busy(id), s->MaxConcurrent(),
                                s->Weight(), 0, s->Needs()});
    }
  }
  std::vector<double> shares = FairShares(loads, server_->dispatcher().runners());
  ASSIGN_OR_RETURN(auto rows, server_->store().ServiceStudies());
  for (const auto& row : rows) {
    pb::ServiceStudy* out = r.add_studies();
    out->set_id(row.id);
    out->set_name(row.spec.name());
    out->set_owner(row.owner);
    out->set_priority(row.priority);
    out->set_max_runners(row.max_runners);
    StudyRun* run = server_->study(row.id);
    out->set_state(StudyStatusName(run ? StudyStatus::kRunning : row.status));
    if (!run) continue;
    for (size_t i = 0; i < loads.size(); ++i)
      if (loads[i].study_id == row.id) out->set_share(shares[i]);
    out->set_runners(server_->dispatcher().Busy(row.id));
    ProgressCounts c = run->Counts();
    out->set_queued(c.queued);
    out->set_running(c.running);
    out->set_finished(c.completed + c.failed + c.stopped);
    out->set_waiting(run->waiting());
  }
  return r;
}

pb::ControlReply Service::ListRunners() {
  pb::ControlReply r;
  for (const Dispatcher::RunnerView& v : server_->dispatcher().Pool()) {
    pb::ServiceRunner* out = r.add_runners();
    out->set_name(v.name);
    out->set_host(v.host);
    out->set_device(v.device);
    out->set_gpus(v.abilities.gpus);
    out->set_commands(v.abilities.commands);
    out->set_since(v.since);
    out->set_slurm_job(v.slurm_job);
    out->set_idle_s(v.idle_s);
    out->set_leaving(v.leaving);
    out->set_trial_number(-1);
    StudyRun* s = v.study_id ? server_->study(v.study_id) : nullptr;
    if (!s) continue;
    out->set_study(s->study().name());
    auto t = s->trials().all().find(v.trial_id);
    if (t != s->trials().all().end()) out->set_trial_number(t->second.number);
  }
  if (launcher_) {
    for (const LaunchedJob& j : launcher_->Jobs()) {
      pb::ServiceJob* out = r.add_jobs();
      out->set_job(j.job);
      out->set_gpus(j.gpus);
      out->set_state(j.state);
      out->set_reason(j.reason);
      out->set_submitted_at(j.submitted_at);
    }
  }
  return r;
}

}  // namespace sweep
