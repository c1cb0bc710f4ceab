// Trial and study status names, the transition rule, the counts.
#include "common/trial_status.h"

namespace sweep {

namespace {
constexpr const char* kNames[kTrialStatusCount] = {"queued",    "running", "paused",
                                                   "completed", "failed",  "stopped"};
constexpr const char* kStudyNames[kStudyStatusCount] = {"running", "completed", "interrupted",
                                                        "paused",  "cancelled", "failed"};
}  // namespace

const char* TrialStatusName(TrialStatus status) { return kNames[static_cast<int>(status)]; }

std::optional<TrialStatus> ParseTrialStatus(std::string_view name) {
  for (int i = 0; i < kTrialStatusCount; ++i)
    if (name == kNames[i]) return static_cast<TrialStatus>(i);
  return std::nullopt;
}

std::vector<std::string> TrialStatusNames() { return {std::begin(kNames), std::end(kNames)}; }

const char* StudyStatusName(StudyStatus status) { return kStudyNames[static_cast<int>(status)]; }

std::optional<StudyStatus> ParseStudyStatus(std::string_view name) {
  for (int i = 0; i < kStudyStatusCount; ++i)
    if (name == kStudyNames[i]) return static_cast<StudyStatus>(i);
  return std::nullopt;
}

int64_t TrialCounts::Total() const {
  int64_t total = 0;
  for (int64_t n : n_) total += n;
  return total;
}

int64_t TrialCounts::Finished() const {
  return (*this)[TrialStatus::kCompleted] + (*this)[TrialStatus::kFailed] +
         (*this)[TrialStatus::kStopped];
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
