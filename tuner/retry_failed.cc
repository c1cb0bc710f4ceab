#include "tuner/retry_failed.h"

#include "common/clock.h"
#include "common/log.h"
#include "storage/study_admin.h"
#include "tuner/scheduler.h"

namespace sweep {

Result<int64_t> RetryFailed(Store& store, const pb::Study& study,
                            const std::vector<int64_t>& numbers) {
  ASSIGN_OR_RETURN(std::optional<Store::StoredStudy> stored, store.FindStudy(study.name()));
  if (!stored) return 0;
  if (!TraitsOf(stored->spec).runs_failed_trials_again) {
    return Status::FailedPrecondition(
        "study '" + study.name() +
        "': failed trials run again only under random, grid, quasirandom, tpe, gp and auto "
        "search; early stopping and PBT took decisions from the failed runs, which a new run "
        "would contradict (start the study over: `sweep delete " +
        study.name() + "`)");
  }
  RETURN_IF_ERROR(store.Begin());
  auto n = RetryFailedTrials(store, stored->id, numbers, WallSeconds());
  if (!n.ok()) {
    store.Rollback();
    return n.status();
  }
  RETURN_IF_ERROR(store.Commit());
  if (*n > 0) LOG_INFO << "study '" << study.name() << "': " << *n << " failed trials run again";
  return n;
}

}  // namespace sweep
