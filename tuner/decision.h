// The one decision type: what the algorithm decided for a trial, with its
// reason. It is mapped to the wire (ToWire) and to the database's words
// (DecisionName) here, once each.
#pragma once

#include <optional>
#include <string>

#include "proto/sweep.pb.h"

namespace sweep {

// kPause ends the trial's current segment and frees its runner; the trial
// keeps its checkpoint and may be resumed later. kExploit is PBT's: the trial
// stops and a new trial (its Action's `replacement`) takes its place,
// starting from a top member's committed checkpoint.
enum class Decision { kContinue, kStop, kPause, kExploit };

// True for the decisions that end the trial: kStop and kExploit.
bool EndsTrial(Decision d);

// The `decisions.decision` word of a row about the trial the decision is
// for: "continue", "stop" or "pause". An exploit ends its trial, so its row
// there says "stop" (the reason names the replacement); the replacement's
// own row, written when it is created, says "exploit" (kExploitRow).
const char* DecisionName(Decision d);
inline constexpr const char* kExploitRow = "exploit";

// What the runner is told in an Ack: an exploited trial stops.
pb::Decision ToWire(Decision d);

struct TrialSpec {
  int64_t number = 0;  // index of the trial within the study
  pb::ParamSet params;
  // PBT: the trial starts from trial `parent`'s committed checkpoint at
  // `parent_step` (-1: from scratch).
  int64_t parent = -1;
  int64_t parent_step = 0;
  // Where a model-based proposal came from, for `sweep why` (empty for
  // plain sampling).
  std::string origin;
};

// kExploit's new trial, with the reason recorded on it (its source, step and
// parameter changes).
struct Replacement {
  TrialSpec trial;
  std::string reason;
};

struct Action {
  Decision decision = Decision::kContinue;
  std::string reason;                      // why, for `sweep why`; empty for routine continues
  std::optional<Replacement> replacement;  // with kExploit only
};

}  // namespace sweep
