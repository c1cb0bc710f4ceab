// Decision names for the database and the wire mapping.
#include "tuner/decision.h"

namespace sweep {

bool EndsTrial(Decision d) { return d == Decision::kStop || d == Decision::kExploit; }

const char* DecisionName(Decision d) {
  switch (d) {
    case Decision::kStop:
    case Decision::kExploit:
      return "stop";
    case Decision::kPause:
      return "pause";
    case Decision::kContinue:
      return "continue";
  }
  return "continue";
}

pb::Decision ToWire(Decision d) {
  switch (d) {
    case Decision::kStop:
    case Decision::kExploit:
      return pb::DECISION_STOP;
    case Decision::kPause:
      return pb::DECISION_PAUSE;
    case Decision::kContinue:
      return pb::DECISION_CONTINUE;
  }
  return pb::DECISION_CONTINUE;
}

}  // namespace sweep
