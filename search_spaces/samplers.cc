// Random, grid and quasi-random samplers.
#include "search_spaces/samplers.h"

#include <cmath>

#include "common/rng.h"

namespace sweep {

namespace {

class RandomSampler : public Sampler {
 public:
  RandomSampler(const SearchSpace& space, uint64_t seed) : space_(space), seed_(seed) {}
  std::optional<Params> Point(int64_t k) const override {
    return space_.Sample([&](int i) {
      return Rng(HashKey({seed_, static_cast<uint64_t>(k), static_cast<uint64_t>(i)})).Uniform();
    });
  }

 private:
  SearchSpace space_;
  uint64_t seed_;
};

class GridSampler : public Sampler {
 public:
  GridSampler(const SearchSpace& space, uint64_t limit) : points_(space.GridPoints(limit)) {}
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
  std::optional<Params> Point(int64_t k) const override {
    return space_.Sample([&](int i) {
      double u = RadicalInverse(static_cast<uint64_t>(k) + 1, base_[i]) + shift_[i];
      return u - std::floor(u);
    });
  }

 private:
  SearchSpace space_;
  std::vector<double> shift_;
  std::vector<uint64_t> base_;
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
