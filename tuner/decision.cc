// Decision names for the database and the wire mapping.
#include "tuner/decision.h"

namespace sweep {

const char* DecisionName(Decision d) {
  switch (d) {
    case Decision::kStop:
      return "stop";
    case Decision::kPause:
      return "pause";
    case Decision::kExploit:
      return "exploit";
    case Decision::kContinue:
      return "continue";
  }
  return "continue";
}

pb::Decision ToWire(Decision d) {
  switch (d) {
    case Decision::kStop:
      return pb::DECISION_STOP;
    case Decision::kPause:
      return pb::DECISION_PAUSE;
    case Decision::kContinue:
    case Decision::kExploit:
      return pb::DECISION_CONTINUE;
  }
  return pb::DECISION_CONTINUE;
}

}  // namespace sweep
