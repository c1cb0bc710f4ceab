// A model-based proposer as another algorithm uses it: `type: auto` asks
// the GP or TPE for trial k's point.
#pragma once

#include <cstdint>
#include <string>

#include "search_spaces/space.h"

namespace sweep {

class Proposer {
 public:
  virtual ~Proposer() = default;
  // Trial k's point, a pure function of (seed, k, the trials the table
  // holds now); `origin` says where it came from (`sweep why`).
  virtual Params Propose(int64_t k, std::string* origin) = 0;
};

}  // namespace sweep
