// How a user names a trial: its number within its study (what every table,
// plan and decision reason shows), with the study's name when the database
// holds more than one: `sweep why 7`, `sweep why my-study 7`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "storage/reader.h"

namespace sweep {

struct TrialRef {
  StudyRef study;
  int64_t number = 0;
  int64_t id = 0;  // the database's key (trials.id)
};

// `args` is [STUDY] TRIAL, as given on the command line.
Result<TrialRef> ResolveTrial(Reader& reader, const std::vector<std::string>& args);

}  // namespace sweep
