// The one decision type: what the algorithm decided for a trial, with its
// reason. It is mapped to the wire (ToWire) and to the database's words
// (DecisionName) here, once each.
#pragma once

#include <string>

#include "proto/sweep.pb.h"

namespace sweep {

// kPause ends the trial's current segment and frees its runner; the trial
// keeps its checkpoint and may be resumed later. kExploit is PBT's: a new
// trial starts from another trial's checkpoint (recorded on the new trial).
enum class Decision { kContinue, kStop, kPause, kExploit };

// "continue", "stop", "pause", "exploit": the `decisions.decision` column.
const char* DecisionName(Decision d);
// What the runner is told in an Ack (an exploit is never sent to a runner:
// the parent continues, so it maps to CONTINUE).
pb::Decision ToWire(Decision d);

struct Action {
  Decision decision = Decision::kContinue;
  std::string reason;  // why, for `sweep why`; empty for routine continues
};

}  // namespace sweep
