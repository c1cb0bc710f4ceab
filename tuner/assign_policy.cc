// Round robin over the studies with work, under each one's max_running.
#include "tuner/assign_policy.h"

namespace sweep {

std::optional<int64_t> RoundRobinPolicy::Pick(const AssignInput& in) const {
  const size_t n = in.studies.size();
  // Start after the study served last (at the first when it is gone).
  size_t start = 0;
  if (in.last_served) {
    for (size_t i = 0; i < n; ++i) {
      if (in.studies[i].study_id == *in.last_served) {
        start = i + 1;
        break;
      }
    }
  }
  for (size_t k = 0; k < n; ++k) {
    const StudyLoad& s = in.studies[(start + k) % n];
    if (s.has_work && (s.max_running <= 0 || s.running < s.max_running)) return s.study_id;
  }
  return std::nullopt;
}

}  // namespace sweep
