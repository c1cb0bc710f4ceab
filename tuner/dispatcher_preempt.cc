// The dispatcher's preemption: which running trials give their runners back
// to studies below their fair share (the plan is the policy's pure
// PlanPreemptions; this file finds the trials, asks their owners and tells
// their runners).
#include <algorithm>
#include <cstdio>

#include "common/json.h"
#include "common/log.h"
#include "tuner/dispatcher.h"

namespace sweep {

namespace {

// "a 0.5, b 1.5 of 2 runners": the shares a preemption's reason quotes.
std::string SharesText(TrialOwners* owners, const std::vector<StudyLoad>& loads, int64_t runners) {
  const std::vector<double> shares = FairShares(loads, runners);
  std::string out;
  for (size_t i = 0; i < loads.size(); ++i) {
    char share[32];
    std::snprintf(share, sizeof share, "%.2g", shares[i]);
    TrialOwner* o = owners->FindOwner(loads[i].study_id);
    out += (out.empty() ? "" : ", ") + (o ? o->Name() : "?") + " " + share;
  }
  return out + " of " + std::to_string(runners) + " runners";
}

}  // namespace

void Dispatcher::Preempt() {
  if (!owners_ || !policy_->Preempts() || owners_->OwnerOrder().size() < 2) return;
  // No runner may sit idle while a study waits: with one idle that could
  // run a study with work, that study had nothing to give it this turn.
  // (An idle runner that none of them can use, a CPU runner beside GPU
  // studies, stops nothing.)
  for (const auto& [id, r] : runners_) {
    if (!r.ready || !r.trials.empty()) continue;
    for (const StudyLoad& s : assign_in_.studies)
      if (s.has_work && CanRun(r.abilities, s.needs)) return;
  }
  // The studies as Assign left them (has_work false for one that had no
  // trial to give), each's runners, and those already coming to it.
  std::vector<StudyLoad> loads;
  std::vector<int64_t> incoming;
  for (const StudyLoad& s : assign_in_.studies) {
    TrialOwner* o = owners_->FindOwner(s.study_id);
    if (!o) continue;
    loads.push_back(s);
    loads.back().running = 0;
    // A study no runner in the pool can run (TellWaiting) takes no share:
    // runners taken back for it would find no trial they can run.
    loads.back().has_work = s.has_work && o->HasWork() && !told_waiting_.count(s.study_id);
    incoming.push_back(0);
  }
  auto place = [&](int64_t study) -> size_t {
    for (size_t i = 0; i < loads.size(); ++i)
      if (loads[i].study_id == study) return i;
    return loads.size();
  };
  for (const auto& [id, r] : runners_) {
    if (r.trials.empty()) continue;
    const Lease& l = leases_.at(r.trials.front());
    if (l.preempted_for) {
      // Already on its way to another study: counted there.
      size_t to = place(l.preempted_for);
      if (to < loads.size()) ++incoming[to];
      continue;
    }
    size_t at = place(l.study_id);
    if (at < loads.size()) ++loads[at].running;
  }
  const int64_t pool = static_cast<int64_t>(runners_.size());
  const std::vector<PreemptionMove> moves = PlanPreemptions(loads, pool, incoming);
  if (moves.empty()) return;
  std::string shares;  // made for the first preemption (a move may find no runner)
  for (const PreemptionMove& m : moves) {
    TrialOwner* from = owners_->FindOwner(m.from);
    TrialOwner* to = owners_->FindOwner(m.to);
    if (!from || !to) continue;
    // The victim: the study's most recently started trial (the least work
    // since its last checkpoint, most likely) that its study lets go.
    std::vector<std::pair<int64_t, std::string>> candidates;  // (started_us, runner)
    for (const auto& [id, r] : runners_) {
      if (r.trials.empty()) continue;
      const Lease& l = leases_.at(r.trials.front());
      if (l.study_id == m.from && !l.preempted_for && l.started && l.started_us > 0 &&
          CanRun(r.abilities, to->Needs()))
        candidates.emplace_back(l.started_us, id);
    }
    if (candidates.empty()) continue;  // none can run `to`'s trials (GPUs, commands)
    std::sort(candidates.rbegin(), candidates.rend());
    if (shares.empty()) shares = SharesText(owners_, loads, pool);
    const std::string reason = "runner given to study '" + to->Name() + "' (priority " +
                               FormatDouble(to->Weight()) + "; shares " + shares + ")";
    std::string runner_id;
    int64_t trial = 0;
    std::optional<bool> restart;
    for (const auto& [started, id] : candidates) {
      trial = runners_.at(id).trials.front();
      restart = from->Preempt(trial, reason);
      runner_id = id;
      if (restart) break;
    }
    if (!restart) continue;  // none may be preempted: they run to their ends
    leases_.at(trial).preempted_for = m.to;
    LOG_INFO << "study '" << from->Name() << "': taking runner '"
             << Printable(runners_.at(runner_id).name) << "' back: " << reason;
    SendPreempt(runner_id, trial, *restart);
  }
}

int Dispatcher::PreemptStudy(int64_t study_id, const std::string& reason) {
  TrialOwner* owner = owners_ ? owners_->FindOwner(study_id) : nullptr;
  if (!owner) return 0;
  int asked = 0;
  for (const auto& [id, r] : runners_) {
    if (r.trials.empty()) continue;
    const int64_t trial = r.trials.front();
    Lease& l = leases_.at(trial);
    if (l.study_id != study_id || l.preempted_for || !l.started) continue;
    std::optional<bool> restart = owner->Preempt(trial, reason);
    if (!restart) continue;
    l.preempted_for = kPausing;
    SendPreempt(id, trial, *restart);
    ++asked;
  }
  return asked;
}

void Dispatcher::SendPreempt(const std::string& runner_id, int64_t trial, bool restart) {
  pb::Envelope env;
  env.mutable_preempt()->set_trial_id(trial);
  env.mutable_preempt()->set_lease(leases_.at(trial).lease);
  env.mutable_preempt()->set_restart(restart);
  Queue(runner_id, std::move(env));
}

}  // namespace sweep
