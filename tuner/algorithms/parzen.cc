// Parzen estimators: kernels, bandwidths, sampling and densities.
#include "tuner/algorithms/parzen.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>

namespace sweep {

namespace {

constexpr double kLogSqrt2Pi = 0.91893853320467274178;  // log(sqrt(2 pi))
constexpr double kLogFloor = -1e300;                    // log of a mass that underflowed

double LogOf(double m) { return m > 0 ? std::log(m) : kLogFloor; }

// Neighbour-gap bandwidths (Optuna's compute_sigmas, consider_endpoints
// false): each centre's larger gap to its sorted neighbours, the domain's
// ends counting as neighbours, except that the outermost centres use their
// inner gap; then clipped to [range / min(100, 1 + kernels), range].
// The indices of `v` in ascending order of value (equal values in index
// order): an LSD radix sort on the doubles' bits made order-preserving,
// skipping the bytes all keys share. A long history sorts each dimension's
// centres for every proposal, where this is several times std::sort.
std::vector<uint32_t> SortedOrder(const std::vector<double>& v) {
  size_t n = v.size();
  std::vector<uint64_t> keys(n), keys_tmp(n);
  std::vector<uint32_t> idx(n), idx_tmp(n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t b;
    std::memcpy(&b, &v[i], sizeof b);
    // Negative: flip all bits; positive: flip the sign bit.
    keys[i] = (b >> 63) ? ~b : (b | (uint64_t{1} << 63));
    idx[i] = static_cast<uint32_t>(i);
  }
  for (int shift = 0; shift < 64; shift += 8) {
    size_t count[257] = {0};
    for (size_t i = 0; i < n; ++i) ++count[((keys[i] >> shift) & 0xFF) + 1];
    if (count[((keys[0] >> shift) & 0xFF) + 1] == n) continue;  // one digit for all
    for (int d = 0; d < 256; ++d) count[d + 1] += count[d];
    for (size_t i = 0; i < n; ++i) {
      size_t to = count[(keys[i] >> shift) & 0xFF]++;
      keys_tmp[to] = keys[i];
      idx_tmp[to] = idx[i];
    }
    keys.swap(keys_tmp);
    idx.swap(idx_tmp);
  }
  return idx;
}

std::vector<double> Bandwidths(const std::vector<double>& mus, double low, double high) {
  size_t n = mus.size();
  std::vector<uint32_t> order = SortedOrder(mus);
  std::vector<double> with_ends(n + 2);
  with_ends[0] = low;
  with_ends[n + 1] = high;
  for (size_t i = 0; i < n; ++i) with_ends[i + 1] = mus[order[i]];
  std::vector<double> sorted(n);
  for (size_t i = 0; i < n; ++i)
    sorted[i] = std::max(with_ends[i + 1] - with_ends[i], with_ends[i + 2] - with_ends[i + 1]);
  if (n + 2 >= 4) {
    sorted[0] = with_ends[2] - with_ends[1];
    sorted[n - 1] = with_ends[n] - with_ends[n - 1];
  }
  double range = high - low;
  double min_sigma = range / std::min(100.0, 1.0 + static_cast<double>(n + 1));
  std::vector<double> out(n);
  for (size_t i = 0; i < n; ++i) out[order[i]] = std::clamp(sorted[i], min_sigma, range);
  return out;
}

std::vector<double> Flatten(const std::vector<std::vector<double>>& rows) {
  std::vector<double> flat;
  for (const auto& r : rows) flat.insert(flat.end(), r.begin(), r.end());
  return flat;
}

// A draw from N(mu, sigma) truncated to [low, high], by rejection: every
// centre lies in the domain and no bandwidth exceeds it, so a draw lands
// inside with probability above 0.3; a (vanishingly rare) run of misses
// ends on the clamped draw.
double TruncatedNormal(Rng* rng, double mu, double sigma, double low, double high) {
  double v = mu;
  for (int i = 0; i < 200; ++i) {
    v = mu + sigma * rng->Normal();
    if (v >= low && v <= high) return v;
  }
  return std::clamp(v, low, high);
}

double LogSumExp(const std::vector<double>& v) {
  double m = -INFINITY;
  for (double x : v) m = std::max(m, x);
  if (!std::isfinite(m)) return m;
  // Terms below e^-40 of the largest change the sum by less than its
  // rounding (there are fewer than 10^8 of them): they are skipped, which
  // spares most exp calls when most kernels are far from x.
  double s = 0;
  for (double x : v)
    if (x - m > -40) s += std::exp(x - m);
  return m + std::log(s);
}

}  // namespace

double LogGaussMass(double a, double b) {
  // Phi(x) = erfc(-x / sqrt 2) / 2: use the tail that does not cancel.
  constexpr double kInvSqrt2 = 0.70710678118654752440;
  // Beyond 8.3 standard deviations a tail is below 5e-17: a mass that
  // covers both is 1 to double precision (most kernels of a long history).
  constexpr double kFar = 8.3;
  if (a <= -kFar && b >= kFar) return 0.0;
  if (a <= -kFar && b >= 0) return LogOf(1.0 - 0.5 * std::erfc(b * kInvSqrt2));
  if (b >= kFar && a <= 0) return LogOf(1.0 - 0.5 * std::erfc(-a * kInvSqrt2));
  if (a >= 0) return LogOf(0.5 * (std::erfc(a * kInvSqrt2) - std::erfc(b * kInvSqrt2)));
  if (b <= 0) return LogOf(0.5 * (std::erfc(-b * kInvSqrt2) - std::erfc(-a * kInvSqrt2)));
  return LogOf(1.0 - 0.5 * std::erfc(-a * kInvSqrt2) - 0.5 * std::erfc(b * kInvSqrt2));
}

double ParzenDim::DomainLow() const {
  // A log dimension's half step below its first value must stay positive
  // (an int from 1 in steps of 4): it is capped at half that value.
  double half = kind == Kind::kDiscrete ? step / 2 : 0;
  if (log) half = std::min(half, low / 2);
  double v = low - half;
  return log ? std::log(v) : v;
}

double ParzenDim::DomainHigh() const {
  double v = kind == Kind::kDiscrete ? high + step / 2 : high;
  return log ? std::log(v) : v;
}

double ParzenDim::Transform(double v) const { return log ? std::log(v) : v; }

std::vector<double> ObservationWeights(size_t n) {
  if (n < 25) return std::vector<double>(n, 1.0);
  std::vector<double> w(n, 1.0);
  size_t ramp = n - 25;
  // numpy.linspace(1/n, 1, ramp)
  double first = 1.0 / static_cast<double>(n);
  for (size_t i = 0; i < ramp; ++i) {
    w[i] = ramp == 1
               ? first
               : first + (1.0 - first) * static_cast<double>(i) / static_cast<double>(ramp - 1);
  }
  return w;
}

ParzenEstimator::ParzenEstimator(std::vector<ParzenDim> dims,
                                 const std::vector<std::vector<double>>& observations,
                                 std::vector<double> weights, double prior_weight)
    : ParzenEstimator(std::move(dims), Flatten(observations), std::move(weights), prior_weight) {}

ParzenEstimator::ParzenEstimator(std::vector<ParzenDim> dims, const std::vector<double>& flat,
                                 std::vector<double> weights, double prior_weight)
    : dims_(std::move(dims)) {
  size_t stride = std::max<size_t>(1, dims_.size());
  size_t n = dims_.empty() ? 0 : flat.size() / stride;
  auto obs = [&](size_t i, size_t d) { return flat[i * stride + d]; };
  if (weights.empty()) weights = ObservationWeights(n);
  if (n == 0) {
    weights_ = {1.0};
  } else {
    weights_ = weights;
    weights_.push_back(prior_weight);
  }
  double total = std::accumulate(weights_.begin(), weights_.end(), 0.0);
  for (double& w : weights_) w /= total;
  for (double w : weights_) log_weights_.push_back(LogOf(w));

  size_t d_count = dims_.size();
  mu_.resize(d_count);
  sigma_.resize(d_count);
  log_mass_.resize(d_count);
  log_norm_.resize(d_count);
  inv_sigma_.resize(d_count);
  cat_.resize(d_count);
  for (size_t d = 0; d < d_count; ++d) {
    const ParzenDim& dim = dims_[d];
    if (dim.kind == ParzenDim::Kind::kCategorical) {
      size_t k = static_cast<size_t>(dim.choices);
      if (n == 0) {
        cat_[d].assign(1, std::vector<double>(k, 1.0 / static_cast<double>(k)));
        continue;
      }
      double kernels = static_cast<double>(n + 1);
      cat_[d].assign(n + 1, std::vector<double>(k, prior_weight / kernels));
      for (size_t i = 0; i < n; ++i) {
        size_t c = static_cast<size_t>(obs(i, d));
        if (c < k) cat_[d][i][c] += 1.0;
      }
      for (auto& row : cat_[d]) {
        double s = std::accumulate(row.begin(), row.end(), 0.0);
        if (s > 0)
          for (double& p : row) p /= s;
      }
      continue;
    }
    double low = dim.DomainLow(), high = dim.DomainHigh();
    std::vector<double> mus(n);
    for (size_t i = 0; i < n; ++i) mus[i] = dim.Transform(obs(i, d));
    std::vector<double> sigmas = n > 0 ? Bandwidths(mus, low, high) : std::vector<double>{};
    mus.push_back(0.5 * (low + high));
    sigmas.push_back(high - low);
    for (size_t i = 0; i < mus.size(); ++i) {
      double log_mass = LogGaussMass((low - mus[i]) / sigmas[i], (high - mus[i]) / sigmas[i]);
      log_mass_[d].push_back(log_mass);
      log_norm_[d].push_back(-kLogSqrt2Pi - std::log(sigmas[i]) - log_mass);
      inv_sigma_[d].push_back(1.0 / sigmas[i]);
    }
    mu_[d] = std::move(mus);
    sigma_[d] = std::move(sigmas);
  }
}

std::vector<double> ParzenEstimator::Sample(Rng* rng) const {
  // The component, by its weight.
  double u = rng->Uniform(), acc = 0;
  size_t k = weights_.size() - 1;
  for (size_t i = 0; i < weights_.size(); ++i) {
    acc += weights_[i];
    if (u < acc) {
      k = i;
      break;
    }
  }
  std::vector<double> x(dims_.size());
  for (size_t d = 0; d < dims_.size(); ++d) {
    const ParzenDim& dim = dims_[d];
    if (dim.kind == ParzenDim::Kind::kCategorical) {
      const auto& p = cat_[d][std::min(k, cat_[d].size() - 1)];
      double v = rng->Uniform(), c = 0;
      size_t pick = p.size() - 1;
      for (size_t j = 0; j < p.size(); ++j) {
        c += p[j];
        if (v < c) {
          pick = j;
          break;
        }
      }
      x[d] = static_cast<double>(pick);
      continue;
    }
    double v = TruncatedNormal(rng, mu_[d][k], sigma_[d][k], dim.DomainLow(), dim.DomainHigh());
    if (dim.log) v = std::exp(v);
    if (dim.kind == ParzenDim::Kind::kDiscrete) {
      v = std::clamp(dim.low + std::round((v - dim.low) / dim.step) * dim.step, dim.low, dim.high);
    } else {
      v = std::clamp(v, dim.low, dim.high);
    }
    x[d] = v;
  }
  return x;
}

double ParzenEstimator::LogPdf(const std::vector<double>& x) const {
  std::vector<double> per_component = log_weights_;
  for (size_t d = 0; d < dims_.size(); ++d) {
    const ParzenDim& dim = dims_[d];
    if (dim.kind == ParzenDim::Kind::kCategorical) {
      size_t c = static_cast<size_t>(x[d]);
      for (size_t k = 0; k < per_component.size(); ++k) {
        const auto& p = cat_[d][std::min(k, cat_[d].size() - 1)];
        per_component[k] += LogOf(c < p.size() ? p[c] : 0.0);
      }
      continue;
    }
    if (dim.kind == ParzenDim::Kind::kDiscrete) {
      // The mass of x's grid cell, over the kernel's truncated mass (the
      // first cell starts where the domain does: for a log dimension whose
      // half step reaches below zero, x - step/2 has no logarithm).
      double left = x[d] <= dim.low ? dim.DomainLow()
                                    : std::max(dim.Transform(x[d] - dim.step / 2), dim.DomainLow());
      double right = dim.Transform(x[d] + dim.step / 2);
      for (size_t k = 0; k < per_component.size(); ++k) {
        double mu = mu_[d][k], inv = inv_sigma_[d][k];
        per_component[k] += LogGaussMass((left - mu) * inv, (right - mu) * inv) - log_mass_[d][k];
      }
      continue;
    }
    double t = dim.Transform(x[d]);
    const double* mu = mu_[d].data();
    const double* inv = inv_sigma_[d].data();
    const double* norm = log_norm_[d].data();
    double* out = per_component.data();
    for (size_t k = 0, m = per_component.size(); k < m; ++k) {
      double z = (t - mu[k]) * inv[k];
      out[k] += -0.5 * z * z + norm[k];
    }
  }
  return LogSumExp(per_component);
}

}  // namespace sweep
