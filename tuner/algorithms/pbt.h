// Population-based training (Jaderberg et al., 2017), generation-synchronous.
#pragma once

#include <cstdint>
#include <memory>

#include "proto/sweep.pb.h"
#include "search_spaces/space.h"
#include "tuner/scheduler.h"

namespace sweep {

// `created` is how many trials the study already has.
std::unique_ptr<Scheduler> MakePbt(const pb::Study& study, const SearchSpace& space,
                                   int64_t created);

}  // namespace sweep
