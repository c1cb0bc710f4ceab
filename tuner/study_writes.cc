// A study's stamps and events.
#include "tuner/study_writes.h"

#include <algorithm>
#include <cmath>

#include "common/clock.h"

namespace sweep {

double StudyWrites::Stamp() {
  last_stamp_ = std::max(WallSeconds(), std::nextafter(last_stamp_, HUGE_VAL));
  return last_stamp_;
}

void StudyWrites::Event(int64_t trial_id, const std::string& kind, const std::string& detail) {
  Check(store_->Begin());
  Check(store_->AddEvent(study_id_, trial_id, kind, detail, Stamp()));
}

}  // namespace sweep
