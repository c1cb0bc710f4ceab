// Counter-based randomness: every random draw in sweep is a pure function of
// a few integers (seed, trial number, attempt, ...), so a study replays exactly.
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>

namespace sweep {

inline uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Mixes a list of integers into one 64-bit key.
inline uint64_t HashKey(std::initializer_list<uint64_t> parts) {
  uint64_t h = 0x2545f4914f6cdd1dULL;
  for (uint64_t p : parts) h = SplitMix64(h ^ SplitMix64(p));
  return h;
}

// A small deterministic stream (SplitMix64 over a counter).
class Rng {
 public:
  explicit Rng(uint64_t key) : state_(key) {}
  uint64_t Next() { return SplitMix64(state_++); }
  // Uniform in [0, 1) with 53 random bits.
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  // Standard normal (Box-Muller).
  double Normal() {
    double u1 = Uniform(), u2 = Uniform();
    if (u1 < 1e-300) u1 = 1e-300;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  uint64_t state_;
};

}  // namespace sweep
