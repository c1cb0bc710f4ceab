// Trial status names and the transition rule.
#include "common/trial_status.h"

namespace sweep {

namespace {
constexpr const char* kNames[kTrialStatusCount] = {"queued",    "running", "paused",
                                                   "completed", "failed",  "stopped"};
}

const char* TrialStatusName(TrialStatus status) { return kNames[static_cast<int>(status)]; }

std::optional<TrialStatus> ParseTrialStatus(std::string_view name) {
  for (int i = 0; i < kTrialStatusCount; ++i)
    if (name == kNames[i]) return static_cast<TrialStatus>(i);
  return std::nullopt;
}

bool CanTransition(TrialStatus from, TrialStatus to) {
  using S = TrialStatus;
  switch (from) {
    case S::kQueued:
      return to == S::kRunning || to == S::kPaused || to == S::kStopped || to == S::kFailed;
    case S::kRunning:
      return to != S::kRunning;
    case S::kPaused:
      return to == S::kQueued || to == S::kStopped || to == S::kFailed;
    case S::kCompleted:
    case S::kFailed:
    case S::kStopped:
      return false;
  }
  return false;
}

}  // namespace sweep
