// `sweep run study.yaml --from other.db[:STUDY]`: a new model-based study
// starts from another study's finished trials (Optuna's add_trials, Katib
// #1067, W&B's --prior_run), so TPE models them from its first proposal.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "proto/sweep.pb.h"
#include "search_spaces/space.h"
#include "storage/sqlite_store.h"

namespace sweep {

struct WarmStart {
  std::string source;      // as the user named it
  int64_t imported = 0;    // trials copied in, numbered 0.. in the new study
  int64_t skipped = 0;     // finished trials whose parameters do not fit the space
  int64_t valueless = 0;   // completed trials without a value (a NaN objective)
  int64_t unfinished = 0;  // trials of the source not finished (not copied)
  // A trial's steps (epochs, reports) in the source study and in this one.
  int64_t source_steps = 0, steps = 0;
};

// A step of a study whose trials run `from_steps` as the same share of
// `to_steps` (rounded up, 1 to `to_steps`; 0 stays 0; a step past
// `from_steps` counts as `from_steps`). Equal step counts leave it as is.
int64_t ScaleStep(int64_t step, int64_t from_steps, int64_t to_steps);
// What the output and the `warm_start` event say when the two differ.
std::string StepsNote(const WarmStart& w);

// Whether `study` may start from another study's trials: only TPE learns
// from them (Hyperband's and BOHB's trial numbers are places in their
// brackets).
Status CheckWarmStartable(const pb::Study& study);

// Copies the completed and stopped trials of `from` (a database path,
// optionally ":STUDY"; without it, the database's only study) whose
// parameters are exactly a point of `space` (every active parameter set
// to a valid value, no other) into study `study_id` of `store`, as
// finished trials with their values, metrics and steps (rescaled by
// ScaleStep to this study's), each with a `proposed` event naming its
// source. The source is opened read-only. Writes into the open
// transaction; the caller commits. The source must optimise the same
// metric in the same direction.
Result<WarmStart> SeedFromStudy(Store* store, int64_t study_id, const pb::Study& study,
                                const SearchSpace& space, const std::string& from);

}  // namespace sweep
