// `sweep why [STUDY] TRIAL`: the decisions taken on a trial with their reasons, and
// what happened to it (lost attempts, rejected messages, checkpoints).
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "storage/reader.h"

namespace sweep {

// `trial_id` is the database's id (cli/trial_ref.h finds it from the
// number users name); the text names trials by their numbers.
Result<std::string> ExplainTrial(Reader& reader, int64_t trial_id);
// The same as one JSON object: {id, number, study, status, step, attempts,
// metric, value, params, failure, parent: {id, number, step} | null,
// children: [{id, number, step}], decisions: [{step, decision, reason, at}],
// events: [{kind, detail, at}]}.
Result<std::string> ExplainTrialJson(Reader& reader, int64_t trial_id);

}  // namespace sweep
