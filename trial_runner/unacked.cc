// The runner's unacknowledged trial messages (see unacked.h).
#include "trial_runner/unacked.h"

#include <algorithm>

namespace sweep {

namespace {

// The trial and lease a message to the tuner is about (0 for others).
std::pair<int64_t, uint64_t> TrialOf(const pb::Envelope& env) {
  switch (env.body_case()) {
    case pb::Envelope::kReport:
      return {env.report().trial_id(), env.report().lease()};
    case pb::Envelope::kCheckpoint:
      return {env.checkpoint().trial_id(), env.checkpoint().lease()};
    case pb::Envelope::kLog:
      return {env.log().trial_id(), env.log().lease()};
    case pb::Envelope::kFinal:
      return {env.final().trial_id(), env.final().lease()};
    default:
      return {0, 0};
  }
}

}  // namespace

UnackedMessages::Trial* UnackedMessages::Find(int64_t trial_id, uint64_t lease) {
  auto it = Locate(trial_id, lease);
  return it == trials_.end() ? nullptr : &*it;
}

std::vector<UnackedMessages::Trial>::iterator UnackedMessages::Locate(int64_t trial_id,
                                                                      uint64_t lease) {
  return std::find_if(trials_.begin(), trials_.end(),
                      [&](const Trial& t) { return t.id == trial_id && t.lease == lease; });
}

void UnackedMessages::Add(const pb::Envelope& env, SharedBytes bytes) {
  auto [trial_id, lease] = TrialOf(env);
  if (trial_id == 0) return;
  Trial* t = Find(trial_id, lease);
  if (!t) {
    trials_.push_back(Trial{trial_id, lease, {}});
    t = &trials_.back();
  }
  Message m;
  m.bytes = std::move(bytes);
  if (env.has_report()) m.report_step = std::max<int64_t>(1, env.report().step());
  m.final = env.has_final();
  bytes_ += m.bytes->size();
  t->messages.push_back(std::move(m));
}

void UnackedMessages::Erase(std::vector<Trial>::iterator it) {
  for (const auto& m : it->messages) bytes_ -= m.bytes->size();
  trials_.erase(it);
}

void UnackedMessages::Acked(int64_t trial_id, uint64_t lease, int64_t step, bool final) {
  auto it = Locate(trial_id, lease);
  if (it == trials_.end()) return;
  if (final) {
    Erase(it);
    return;
  }
  // Everything up to the last Report at or below `step` is committed (a
  // step's Log and Checkpoint go before its Report).
  auto& q = it->messages;
  size_t cut = 0;
  for (size_t i = 0; i < q.size(); ++i)
    if (q[i].report_step > 0 && q[i].report_step <= step) cut = i + 1;
  for (size_t i = 0; i < cut; ++i) bytes_ -= q[i].bytes->size();
  q.erase(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(cut));
  if (q.empty()) trials_.erase(it);
}

void UnackedMessages::Drop(int64_t trial_id, uint64_t lease) {
  auto it = Locate(trial_id, lease);
  if (it != trials_.end()) Erase(it);
}

void UnackedMessages::Clear() {
  trials_.clear();
  bytes_ = 0;
}

std::vector<pb::HeldTrial> UnackedMessages::Held(int64_t running, uint64_t running_lease) const {
  std::vector<pb::HeldTrial> held;
  bool running_listed = false;
  for (const auto& t : trials_) {
    pb::HeldTrial h;
    h.set_trial_id(t.id);
    h.set_lease(t.lease);
    h.set_finished(std::any_of(t.messages.begin(), t.messages.end(),
                               [](const Message& m) { return m.final; }));
    running_listed = running_listed || t.id == running;
    held.push_back(std::move(h));
  }
  if (running != 0 && !running_listed) {
    pb::HeldTrial h;
    h.set_trial_id(running);
    h.set_lease(running_lease);
    held.push_back(std::move(h));
  }
  return held;
}

std::vector<SharedBytes> UnackedMessages::Pending(int64_t trial_id, uint64_t lease) const {
  std::vector<SharedBytes> out;
  for (const auto& t : trials_) {
    if (t.id != trial_id || t.lease != lease) continue;
    for (const auto& m : t.messages) out.push_back(m.bytes);
  }
  return out;
}

}  // namespace sweep
