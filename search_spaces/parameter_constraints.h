// A study's parameter constraints (`parameter_constraints`): expressions
// over its numeric parameters in muParser's syntax, e.g.
// "batch_size * seq_len <= 65536" or "n_units_2 <= n_units_1", checked
// before a trial runs. Every sampler and model-based proposer asks Holds()
// of a point before proposing it.
//
// An expression names numeric parameters only (float, int, and constants
// and categoricals whose values are all numbers or booleans). One naming a
// conditional parameter holds wherever that parameter is inactive. A result
// that is not a number (0/0) does not hold.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/status.h"
#include "proto/sweep.pb.h"
#include "search_spaces/space.h"

namespace mu {
class Parser;
}

namespace sweep {

class ParameterConstraints {
 public:
  // Compiles `expression`: InvalidArgument names the problem (a syntax
  // error and where, an unknown or non-numeric parameter with the nearest
  // name, no comparison).
  static Status Check(const pb::Study& study, const std::string& expression);
  // Every expression of the study, compiled; null when it has none. The
  // study must have passed ValidateStudy.
  static Result<std::shared_ptr<const ParameterConstraints>> Create(const pb::Study& study);
  ~ParameterConstraints();

  // The index of the first expression `point` breaks, or -1 when all hold.
  // Thread-safe (the parsers are behind a mutex).
  int FirstBroken(const Params& point) const;
  bool Holds(const Params& point) const { return FirstBroken(point) < 0; }
  const std::string& expression(int i) const;
  int size() const;

 private:
  struct Expression;
  ParameterConstraints() = default;
  std::vector<Expression> exprs_;
  mutable std::mutex mu_;
};

// At most this many draws look for a feasible point before a sampler gives
// up, and validation refuses a space where that many random draws find none.
inline constexpr int kFeasibleDraws = 10000;

}  // namespace sweep
