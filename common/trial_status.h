// A trial's status (and a study's): one enum each, the words the database stores and the CLI
// shows (mapped here, once), and which statuses may follow which (Optuna's
// TrialState: a state knows whether it is finished and what it may become).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sweep {

enum class TrialStatus { kQueued, kRunning, kPaused, kCompleted, kFailed, kStopped };
inline constexpr int kTrialStatusCount = 6;

// "queued", "running", "paused", "completed", "failed", "stopped".
const char* TrialStatusName(TrialStatus status);
std::optional<TrialStatus> ParseTrialStatus(std::string_view name);
// Every name, in the enum's order (the choices of `sweep trials --status`).
std::vector<std::string> TrialStatusNames();

// Completed, failed and stopped trials never change again.
inline bool IsFinished(TrialStatus s) {
  return s == TrialStatus::kCompleted || s == TrialStatus::kFailed || s == TrialStatus::kStopped;
}

// The transitions a trial may make:
//   queued  -> running (assigned), paused or stopped (a decision it met
//              again when re-run from a checkpoint), failed (cannot start)
//   running -> queued (its runner was lost or never began it, the tuner
//              was interrupted), paused, completed, failed, stopped
//   paused  -> queued (resumed), stopped, failed
bool CanTransition(TrialStatus from, TrialStatus to);

// How many trials have each status: the one per-status aggregate, derived
// by the tuner's TrialTable and read from the database by storage/.
class TrialCounts {
 public:
  int64_t operator[](TrialStatus s) const { return n_[static_cast<size_t>(s)]; }
  int64_t& operator[](TrialStatus s) { return n_[static_cast<size_t>(s)]; }
  int64_t Total() const;
  // Completed, failed and stopped.
  int64_t Finished() const;

 private:
  std::array<int64_t, kTrialStatusCount> n_{};
};

// A study's state as stored: running while a tuner runs it (or ran it and
// died: see ShownStudyStatus), completed once its algorithm had nothing
// left, interrupted when its tuner stopped before that; in a service
// (`sweep serve`), paused or cancelled by its owner; failed when its first
// trials all failed the same way (algorithm.fail_fast) and it stopped.
enum class StudyStatus { kRunning, kCompleted, kInterrupted, kPaused, kCancelled, kFailed };
inline constexpr int kStudyStatusCount = 6;

// "running", "completed", "interrupted", "paused", "cancelled", "failed".
const char* StudyStatusName(StudyStatus status);
std::optional<StudyStatus> ParseStudyStatus(std::string_view name);
// The state to show: a study stored as running is running only while a
// tuner holds its database; when none does (kill -9, a crash) it was
// interrupted.
inline StudyStatus ShownStudyStatus(StudyStatus stored, bool tuner_holds_db) {
  return stored == StudyStatus::kRunning && !tuner_holds_db ? StudyStatus::kInterrupted : stored;
}

}  // namespace sweep
