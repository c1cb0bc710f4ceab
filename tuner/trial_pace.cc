// Each running trial's own pace in this run.
#include "tuner/trial_pace.h"

#include <algorithm>

namespace sweep {

void TrialPaces::Reported(int64_t trial_id, int64_t step, int64_t now_ms) {
  auto [it, first] = paces_.try_emplace(trial_id);
  if (first) {
    it->second.first_ms = now_ms;
    it->second.first_step = step;
  }
  it->second.last_ms = now_ms;
}

std::optional<double> TrialPaces::LeftMs(int64_t trial_id, int64_t step, int64_t steps_left,
                                         int64_t now_ms) const {
  auto it = paces_.find(trial_id);
  if (it == paces_.end() || step <= it->second.first_step) return std::nullopt;
  const Pace& p = it->second;
  const double per_step =
      static_cast<double>(p.last_ms - p.first_ms) / static_cast<double>(step - p.first_step);
  return std::max(
      0.0, static_cast<double>(steps_left) * per_step - static_cast<double>(now_ms - p.last_ms));
}

}  // namespace sweep
