// Samplers: trial k's parameters as a pure function of (study, seed, k), so
// any number of runners, restarts or re-queues give the same set of trials.
#pragma once

#include <memory>
#include <optional>

#include "search_spaces/space.h"

namespace sweep {

class Sampler {
 public:
  virtual ~Sampler() = default;
  // Parameters of trial k (0-based), or nullopt once the space is exhausted.
  virtual std::optional<Params> Point(int64_t k) const = 0;
  // Number of distinct points, when finite (grid).
  virtual std::optional<int64_t> Size() const { return std::nullopt; }
};

// Independent uniform draws from a counter-based RNG keyed by (seed, k, i).
std::unique_ptr<Sampler> MakeRandomSampler(const SearchSpace& space, uint64_t seed);
// Every grid combination (conditional branches included), each exactly once.
std::unique_ptr<Sampler> MakeGridSampler(const SearchSpace& space, uint64_t limit);
// A Halton sequence with a seeded Cranley-Patterson shift: low discrepancy.
std::unique_ptr<Sampler> MakeQuasiRandomSampler(const SearchSpace& space, uint64_t seed);

// Point(k) of a sampler that never runs out (random, quasi-random); where
// one under parameter constraints found no feasible point in its draws
// (validation makes that practically impossible: e^-1000), a uniform draw
// keyed by (seed, k), which may break them, rather than nothing.
Params PointOrDraw(const Sampler& sampler, const SearchSpace& space, uint64_t seed, int64_t k);

// Builds the sampler the study asks for. The study must be valid.
std::unique_ptr<Sampler> MakeSampler(const pb::Study& study, const SearchSpace& space);
// Number of trials the study will run (max_trials, capped by a finite space).
int64_t PlannedTrials(const pb::Study& study, const Sampler& sampler);

}  // namespace sweep
