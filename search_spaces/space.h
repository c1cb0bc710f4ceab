// The search space of a study: parameters in dependency order, the mapping
// from unit draws to values, condition checks, and grid enumeration.
// Immutable after Create; safe to share between threads.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "proto/sweep.pb.h"

namespace sweep {

class ParameterConstraints;
using Params = google::protobuf::RepeatedPtrField<pb::ParamValue>;

class SearchSpace {
 public:
  // `study` must have passed ValidateStudy.
  static Result<SearchSpace> Create(const pb::Study& study);

  int size() const { return static_cast<int>(params_.size()); }
  const pb::Parameter& param(int i) const { return params_[i]; }
  // Indices into param() with every parent before its children.
  const std::vector<int>& order() const { return order_; }

  // True when all of p's conditions hold for the values chosen so far
  // (indexed like param(); nullopt means inactive/unset).
  bool Active(int i, const std::vector<std::optional<pb::Value>>& chosen) const;
  // Maps u in [0, 1) to a value of parameter i.
  pb::Value FromUnit(int i, double u) const;
  // How many grid values parameter i has, computed without building them:
  // nullopt for a float without a step (a continuum); saturates at
  // UINT64_MAX.
  std::optional<uint64_t> GridCount(int i) const;
  // The k-th grid value of parameter i, k < GridCount(i).
  pb::Value GridValue(int i, uint64_t k) const;

  // Builds one point: `value(i)` gives parameter i's value; it is asked
  // parents first, and only for parameters whose conditions hold.
  template <typename F>
  Params Choose(F value) const {
    std::vector<std::optional<pb::Value>> chosen(params_.size());
    for (int i : order_) {
      if (Active(i, chosen)) chosen[i] = value(i);
    }
    return ToParams(chosen);
  }
  // Draws one point: `unit(i)` gives the draw for parameter i.
  template <typename F>
  Params Sample(F unit) const {
    return Choose([&](int i) { return FromUnit(i, unit(i)); });
  }

  // Number of grid points, or an error if it exceeds `limit` (saying how
  // many there are where that is known). Bounded work: the product of the
  // counts is computed first, with overflow checks, and the enumeration
  // (only needed with conditions) stops past `limit`.
  Result<uint64_t> GridSize(uint64_t limit) const;
  // All grid points in enumeration order (at most `limit`).
  std::vector<Params> GridPoints(uint64_t limit) const;

  // Whether the point satisfies the study's parameter_constraints
  // (parameter_constraints.h; true when it has none).
  bool Feasible(const Params& point) const;
  // The study's parameter constraints; null when it has none.
  const ParameterConstraints* constraints() const { return constraints_.get(); }

  // Human-readable description, one line per parameter.
  std::string Describe() const;

 private:
  Params ToParams(const std::vector<std::optional<pb::Value>>& chosen) const;
  void Enumerate(size_t pos, std::vector<std::optional<pb::Value>>* chosen, uint64_t limit,
                 uint64_t* count, std::vector<Params>* out) const;

  std::vector<pb::Parameter> params_;  // declaration order
  std::vector<int> order_;
  std::vector<std::vector<int>> parent_index_;               // per param, per condition
  std::shared_ptr<const ParameterConstraints> constraints_;  // shared by copies
};

}  // namespace sweep
