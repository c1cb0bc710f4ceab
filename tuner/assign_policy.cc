// Which study gets an idle runner: round robin, and weighted fair share.
#include "tuner/assign_policy.h"

#include <algorithm>
#include <limits>

namespace sweep {

namespace {

// Where a turn over the studies starts: after the study served last (at
// the first when there is none, or it is gone).
size_t After(const AssignInput& in) {
  if (!in.last_served) return 0;
  for (size_t i = 0; i < in.studies.size(); ++i)
    if (in.studies[i].study_id == *in.last_served) return i + 1;
  return 0;
}

bool MayTake(const StudyLoad& s, const RunnerAbilities& runner) {
  return s.has_work && (s.max_running <= 0 || s.running < s.max_running) && CanRun(runner, s.needs);
}

}  // namespace

bool CanRun(const RunnerAbilities& runner, const RunnerNeeds& needs) {
  if (!runner.known) return true;
  return runner.gpus >= needs.gpus && (runner.commands || !needs.commands);
}

std::string Lacks(const RunnerAbilities& runner, const RunnerNeeds& needs) {
  if (CanRun(runner, needs)) return "";
  std::string lacks;
  if (needs.commands && !runner.commands) lacks = "it was started without --allow-commands";
  if (runner.gpus < needs.gpus) {
    lacks += std::string(lacks.empty() ? "it" : " and") + " has " + std::to_string(runner.gpus) +
             " GPU(s), a trial needs " + std::to_string(needs.gpus);
  }
  return lacks;
}

std::optional<int64_t> RoundRobinPolicy::Pick(const AssignInput& in) const {
  const size_t n = in.studies.size(), start = After(in);
  for (size_t k = 0; k < n; ++k) {
    const StudyLoad& s = in.studies[(start + k) % n];
    if (MayTake(s, in.runner)) return s.study_id;
  }
  return std::nullopt;
}

std::optional<int64_t> FairSharePolicy::Pick(const AssignInput& in) const {
  const size_t n = in.studies.size(), start = After(in);
  // One study that may take it (`sweep run`, or a service with one): no
  // shares to weigh.
  size_t may = 0, only = n;
  for (size_t i = 0; i < n; ++i)
    if (MayTake(in.studies[i], in.runner)) ++may, only = i;
  if (may <= 1) return may ? std::optional<int64_t>(in.studies[only].study_id) : std::nullopt;
  // The pool the shares divide: at least the runners busy and this one.
  int64_t busy = 0;
  for (const StudyLoad& s : in.studies) busy += s.running;
  const std::vector<double> shares = FairShares(in.studies, std::max(in.runners, busy + 1));
  constexpr double kEqual = 1e-9;
  size_t best = n;
  double best_below = 0, best_used = 0;
  for (size_t k = 0; k < n; ++k) {
    const size_t i = (start + k) % n;
    const StudyLoad& s = in.studies[i];
    if (!MayTake(s, in.runner)) continue;
    const double below = shares[i] - static_cast<double>(s.running);
    const double used = s.used_s / s.weight;
    // The first of equals in the turn's order wins.
    if (best == n || below > best_below + kEqual ||
        (below > best_below - kEqual && used < best_used - kEqual)) {
      best = i;
      best_below = below;
      best_used = used;
    }
  }
  return best < n ? std::optional<int64_t>(in.studies[best].study_id) : std::nullopt;
}

std::vector<double> FairShares(const std::vector<StudyLoad>& studies, int64_t runners) {
  const size_t n = studies.size();
  std::vector<double> share(n, 0);
  std::vector<double> cap(n);
  for (size_t i = 0; i < n; ++i) {
    const StudyLoad& s = studies[i];
    cap[i] = !s.has_work         ? static_cast<double>(s.running)
             : s.max_running > 0 ? static_cast<double>(s.max_running)
                                 : std::numeric_limits<double>::infinity();
  }
  std::vector<bool> filled(n, false);
  double left = static_cast<double>(runners);
  // Progressive filling: raise every open study's share with its weight
  // until one reaches its cap; it keeps that, the rest share what is left.
  while (left > 1e-9) {
    double weights = 0;
    for (size_t i = 0; i < n; ++i)
      if (!filled[i]) weights += studies[i].weight;
    if (weights <= 0) break;
    const double level = left / weights;  // runners per unit of weight
    bool capped = false;
    for (size_t i = 0; i < n; ++i) {
      if (filled[i] || cap[i] - share[i] > level * studies[i].weight) continue;
      left -= cap[i] - share[i];
      share[i] = cap[i];
      filled[i] = capped = true;
    }
    if (capped) continue;
    for (size_t i = 0; i < n; ++i)
      if (!filled[i]) share[i] += level * studies[i].weight;
    break;
  }
  return share;
}

std::vector<PreemptionMove> PlanPreemptions(const std::vector<StudyLoad>& studies, int64_t runners,
                                            const std::vector<int64_t>& incoming) {
  const std::vector<double> shares = FairShares(studies, runners);
  const size_t n = studies.size();
  std::vector<double> below(n), above(n);
  for (size_t i = 0; i < n; ++i) {
    const double running = static_cast<double>(studies[i].running);
    const double coming = i < incoming.size() ? static_cast<double>(incoming[i]) : 0;
    below[i] = studies[i].has_work ? shares[i] - running - coming : 0;
    above[i] = running - shares[i];
  }
  constexpr double kWhole = 1 - 1e-9;
  std::vector<PreemptionMove> moves;
  while (true) {
    size_t to = n, from = n;
    for (size_t i = 0; i < n; ++i)
      if (below[i] >= kWhole && (to == n || below[i] > below[to])) to = i;
    for (size_t i = 0; i < n; ++i)
      if (i != to && above[i] >= kWhole && (from == n || above[i] > above[from])) from = i;
    if (to == n || from == n) break;
    moves.push_back({studies[from].study_id, studies[to].study_id});
    below[to] -= 1;
    above[from] -= 1;
  }
  return moves;
}

}  // namespace sweep
