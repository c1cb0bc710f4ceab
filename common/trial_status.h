// A trial's status: one enum, the words the database stores and the CLI
// shows (mapped here, once), and which statuses may follow which (Optuna's
// TrialState: a state knows whether it is finished and what it may become).
#pragma once

#include <optional>
#include <string_view>

namespace sweep {

enum class TrialStatus { kQueued, kRunning, kPaused, kCompleted, kFailed, kStopped };
inline constexpr int kTrialStatusCount = 6;

// "queued", "running", "paused", "completed", "failed", "stopped".
const char* TrialStatusName(TrialStatus status);
std::optional<TrialStatus> ParseTrialStatus(std::string_view name);

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

}  // namespace sweep
