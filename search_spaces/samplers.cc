// Random, grid and quasi-random samplers.
#include "search_spaces/samplers.h"

#include <cmath>
#include <mutex>

#include "common/rng.h"
#include "search_spaces/parameter_constraints.h"

namespace sweep {

namespace {

// Validation makes sure at least 1 in 1,000 random points is feasible, so
// a feasible one is missed in this many draws with a probability of e^-1000.
constexpr uint64_t kSamplerDraws = 1000000;

class RandomSampler : public Sampler {
 public:
  RandomSampler(const SearchSpace& space, uint64_t seed) : space_(space), seed_(seed) {}
  // A point that breaks a parameter constraint is drawn again, each draw
  // keyed by its number too (the first as without constraints).
  std::optional<Params> Point(int64_t k) const override {
    for (uint64_t draw = 0; draw < kSamplerDraws; ++draw) {
      Params p = space_.Sample([&](int i) {
        return Rng(draw == 0 ? HashKey({seed_, static_cast<uint64_t>(k), static_cast<uint64_t>(i)})
                             : HashKey({seed_, static_cast<uint64_t>(k), static_cast<uint64_t>(i),
                                        draw, 0xfea5ULL}))
            .Uniform();
      });
      if (space_.Feasible(p)) return p;
    }
    return std::nullopt;  // validation refuses spaces this sparse
  }

 private:
  SearchSpace space_;
  uint64_t seed_;
};

class GridSampler : public Sampler {
 public:
  // Only the points that satisfy the parameter constraints.
  GridSampler(const SearchSpace& space, uint64_t limit) {
    for (Params& p : space.GridPoints(limit))
      if (space.Feasible(p)) points_.push_back(std::move(p));
  }
  std::optional<Params> Point(int64_t k) const override {
    if (k < 0 || k >= static_cast<int64_t>(points_.size())) return std::nullopt;
    return points_[k];
  }
  std::optional<int64_t> Size() const override { return static_cast<int64_t>(points_.size()); }

 private:
  std::vector<Params> points_;
};

// Radical inverse of n in base b.
double RadicalInverse(uint64_t n, uint64_t base) {
  double inv = 1.0 / static_cast<double>(base), f = inv, r = 0;
  while (n > 0) {
    r += static_cast<double>(n % base) * f;
    n /= base;
    f *= inv;
  }
  return r;
}

uint64_t NthPrime(int i) {
  static std::vector<uint64_t> primes;
  if (primes.empty()) {
    for (uint64_t c = 2; primes.size() < 1024; ++c) {
      bool prime = true;
      for (uint64_t p : primes) {
        if (p * p > c) break;
        if (c % p == 0) {
          prime = false;
          break;
        }
      }
      if (prime) primes.push_back(c);
    }
  }
  return primes[static_cast<size_t>(i) % primes.size()];
}

class QuasiRandomSampler : public Sampler {
 public:
  QuasiRandomSampler(const SearchSpace& space, uint64_t seed) : space_(space) {
    for (int i = 0; i < space.size(); ++i) {
      shift_.push_back(Rng(HashKey({seed, 0x51ULL, static_cast<uint64_t>(i)})).Uniform());
      base_.push_back(NthPrime(i));
    }
  }
  // Under parameter constraints, trial k gets the k-th point of the
  // sequence that satisfies them, so the points kept stay evenly spread.
  std::optional<Params> Point(int64_t k) const override {
    if (k < 0) return std::nullopt;
    if (!space_.constraints()) return At(static_cast<uint64_t>(k));
    std::lock_guard<std::mutex> lock(mu_);
    uint64_t next = feasible_.empty() ? 0 : feasible_.back() + 1;
    while (static_cast<int64_t>(feasible_.size()) <= k) {
      uint64_t start = next;
      while (!space_.Feasible(At(next))) {
        if (++next - start >= kSamplerDraws) return std::nullopt;
      }
      feasible_.push_back(next++);
    }
    return At(feasible_[static_cast<size_t>(k)]);
  }

 private:
  Params At(uint64_t index) const {
    return space_.Sample([&](int i) {
      double u = RadicalInverse(index + 1, base_[i]) + shift_[i];
      return u - std::floor(u);
    });
  }

  SearchSpace space_;
  std::vector<double> shift_;
  std::vector<uint64_t> base_;
  mutable std::mutex mu_;
  mutable std::vector<uint64_t> feasible_;  // the sequence's feasible indices found so far
};

}  // namespace

std::unique_ptr<Sampler> MakeRandomSampler(const SearchSpace& space, uint64_t seed) {
  return std::make_unique<RandomSampler>(space, seed);
}
std::unique_ptr<Sampler> MakeGridSampler(const SearchSpace& space, uint64_t limit) {
  return std::make_unique<GridSampler>(space, limit);
}
std::unique_ptr<Sampler> MakeQuasiRandomSampler(const SearchSpace& space, uint64_t seed) {
  return std::make_unique<QuasiRandomSampler>(space, seed);
}

Params PointOrDraw(const Sampler& sampler, const SearchSpace& space, uint64_t seed, int64_t k) {
  if (auto p = sampler.Point(k)) return *p;
  Rng rng(HashKey({seed, static_cast<uint64_t>(k), 0xd7a3ULL}));
  return space.Sample([&](int) { return rng.Uniform(); });
}

std::unique_ptr<Sampler> MakeSampler(const pb::Study& study, const SearchSpace& space) {
  switch (study.algorithm().type()) {
    case pb::ALGORITHM_TYPE_GRID:
      return MakeGridSampler(space, 1000000);
    case pb::ALGORITHM_TYPE_QUASIRANDOM:
      return MakeQuasiRandomSampler(space, study.seed());
    default:
      return MakeRandomSampler(space, study.seed());
  }
}

int64_t PlannedTrials(const pb::Study& study, const Sampler& sampler) {
  int64_t n = study.algorithm().has_max_trials() ? study.algorithm().max_trials() : INT64_MAX;
  if (auto size = sampler.Size()) n = std::min(n, *size);
  return n;
}

}  // namespace sweep
