// The dispatcher's assignment: which idle runner gets which study's next
// trial (the AssignPolicy's pick), and how many trials a runner holds
// queued ahead of the one it runs.
#include <algorithm>

#include "common/clock.h"
#include "common/log.h"
#include "common/rng.h"
#include "tuner/dispatcher.h"

namespace sweep {

namespace {

// Runners that finish trials this fast get more trials queued ahead, so they
// never wait a round trip for work. Slower trials are assigned one at a
// time, so "running" means running.
constexpr int64_t kFastTrialMs = 250;
// How much work, in time, a runner with very short trials keeps queued:
// enough to outlast a commit interval and its sync (event_loop.cc) twice.
constexpr int64_t kQueuedWorkUs = 10000;

}  // namespace

// One trial at a time for slow trials ("running" then means running); for
// short ones, enough queued at the runner to cover a few commit intervals.
size_t Dispatcher::QueueDepth(const Runner& r, TrialOwner* owner) const {
  if (!owner->QueueAhead()) return 1;
  if (r.last_trial_us < 0 || r.last_trial_us >= kFastTrialMs * 1000) return 1;
  return std::min<size_t>(kMaxQueuedTrials,
                          2 + static_cast<size_t>(kQueuedWorkUs / r.last_trial_us));
}

void Dispatcher::Assign() {
  if (!owners_ || owners_->OwnerOrder().empty()) return;
  // What the policy sees of each study; has_work turns false once it had
  // nothing to give this turn.
  AssignInput& in = assign_in_;  // kept: its vector's room is reused every turn
  in.studies.clear();
  for (int64_t study : owners_->OwnerOrder()) {
    TrialOwner* o = owners_->FindOwner(study);
    if (!o) continue;
    auto used = used_us_.find(study);
    in.studies.push_back(StudyLoad{study, true, 0, o->MaxConcurrent(), o->Weight(),
                                   used == used_us_.end() ? 0 : 1e-6 * used->second, o->Needs()});
  }
  in.runners = static_cast<int64_t>(runners_.size());
  // A study's place in in.studies (a few studies: a scan beats a map).
  auto place = [&](int64_t study) -> StudyLoad* {
    for (StudyLoad& s : in.studies)
      if (s.study_id == study) return &s;
    return nullptr;
  };
  // Runners busy with each study's trials (their front trial is its).
  const int64_t now_us = NowUs();
  for (const auto& [identity, r] : runners_) {
    if (r.trials.empty()) continue;
    auto l = leases_.find(r.trials.front());
    if (l == leases_.end()) continue;
    if (StudyLoad* s = place(l->second.study_id)) {
      ++s->running;
      if (l->second.started_us > 0) s->used_s += 1e-6 * (now_us - l->second.started_us);
    }
  }
  size_t with_work = in.studies.size();
  // The study runner `r` takes its next trial from: an idle one the
  // policy's pick; a runner with trials queued only more of the study at
  // its back (up to its queue depth), and only while the policy would pick
  // that study too: else the runner drains, and the study the policy wants
  // gets it when it is idle (queueing ahead must not defeat a fair share).
  auto pick = [&](const Runner& r) -> std::optional<int64_t> {
    in.runner = r.abilities;
    in.last_served = last_served_;
    if (r.trials.empty()) return policy_->Pick(in);
    const StudyLoad* back = place(leases_.at(r.trials.back()).study_id);
    if (!back || !back->has_work) return std::nullopt;
    if (r.trials.size() >= QueueDepth(r, owners_->FindOwner(back->study_id))) return std::nullopt;
    if (with_work > 1 && policy_->Pick(in) != back->study_id) return std::nullopt;
    return back->study_id;
  };
  // One trial per runner per pass, so a limit on running trials
  // (max_concurrent) spreads them over the runners instead of queueing them
  // all at the first.
  bool assigned = true;
  while (assigned && with_work > 0) {
    assigned = false;
    for (auto& [identity, r] : runners_) {
      if (!r.ready) continue;
      while (std::optional<int64_t> study = pick(r)) {
        StudyLoad* picked = place(*study);
        if (!picked || !picked->has_work) break;  // a policy's bug: pick nothing
        StudyLoad& load = *picked;
        TrialOwner* owner = owners_->FindOwner(*study);
        uint64_t lease = SplitMix64(lease_key_ + ++lease_counter_);
        if (lease == 0) lease = SplitMix64(lease_key_ + ++lease_counter_);
        std::optional<pb::Assign> a = owner->NextAssign(r.name, lease);
        if (!a) {
          load.has_work = false;
          --with_work;
          continue;  // another study may have one for this runner
        }
        last_served_ = *study;
        Lease& l = leases_[a->trial_id()];
        l = Lease{};
        l.lease = lease;
        l.runner = identity;
        l.study_id = *study;
        l.progress_ms = NowMs();
        // Queued behind another: its clock starts when it reaches the front.
        l.started_us = r.trials.empty() ? NowUs() : 0;
        if (r.trials.empty()) ++load.running;
        r.trials.push_back(a->trial_id());
        pb::Envelope env;
        *env.mutable_assign() = std::move(*a);
        Queue(identity, std::move(env));
        assigned = true;
        break;
      }
    }
  }
  TellWaiting();
  SendAwayUseless();
}

void Dispatcher::TellWaiting() {
  if (std::all_of(assign_in_.studies.begin(), assign_in_.studies.end(),
                  [](const StudyLoad& s) { return s.needs.None(); }))
    return;
  // With no runner at all, every study just waits for one.
  bool any_ready = false;
  for (const auto& [id, r] : runners_) any_ready = any_ready || r.ready;
  if (!any_ready) return;
  for (const StudyLoad& s : assign_in_.studies) {
    if (s.needs.None()) continue;
    TrialOwner* o = owners_ ? owners_->FindOwner(s.study_id) : nullptr;
    if (!o || !o->HasWork()) continue;
    bool any = false;
    for (auto& [id, r] : runners_) {
      if (!r.ready) continue;
      if (CanRun(r.abilities, s.needs))
        any = true;
      else if (!r.told_unable.count(s.study_id))
        TellUnable(r, s.study_id, s.needs, o->Name());
    }
    if (s.running > 0) continue;
    if (any) {
      told_waiting_.erase(s.study_id);
      continue;
    }
    if (!told_waiting_.insert(s.study_id).second) continue;
    std::string needs;
    if (s.needs.gpus > 0) needs = std::to_string(s.needs.gpus) + " GPU(s)";
    if (s.needs.commands) needs += std::string(needs.empty() ? "" : " and ") + "--allow-commands";
    o->OnWaiting("waiting: no runner in the pool can run its trials (they need " + needs +
                 "; see sweep runners)");
  }
}

}  // namespace sweep

namespace sweep {

void Dispatcher::TellUnable(Runner& r, int64_t study_id, const RunnerNeeds& needs,
                            const std::string& study) {
  const std::string lacks = Lacks(r.abilities, needs);
  if (lacks.empty() || !r.told_unable.insert(study_id).second) return;
  LOG_WARN << "runner '" << Printable(r.name) << "' cannot run the trials of study '"
           << Printable(study) << "': " << lacks << "; they go to runners that can";
}

}  // namespace sweep
