#include "tuner/algorithms/log_ei.h"

#include <cmath>

namespace sweep {

namespace {

constexpr double kSqrt2 = 1.4142135623730951;
const double kHalfLog2Pi = 0.5 * std::log(2 * M_PI);
const double kHalfLogPiOver2 = 0.5 * std::log(M_PI / 2);

// log(1 - exp(a)) for a < 0, accurate on both sides of -log 2.
double Log1mExp(double a) {
  return a > -M_LN2 ? std::log(-std::expm1(a)) : std::log1p(-std::exp(a));
}

}  // namespace

double Erfcx(double x) {
  if (x < 26) return std::exp(x * x) * std::erfc(x);
  // The asymptotic series; its first omitted term is below 1e-12 here.
  double inv2 = 1 / (x * x);
  return 1 / (x * std::sqrt(M_PI)) *
         (1 - 0.5 * inv2 + 0.75 * inv2 * inv2 - 1.875 * inv2 * inv2 * inv2);
}

double LogNormCdf(double z) {
  if (z > -5) return std::log(0.5 * std::erfc(-z / kSqrt2));
  return std::log(0.5 * Erfcx(-z / kSqrt2)) - 0.5 * z * z;
}

double LogH(double z) {
  if (z > -1) {
    double pdf = std::exp(-0.5 * z * z - kHalfLog2Pi);
    return std::log(pdf + z * 0.5 * std::erfc(-z / kSqrt2));
  }
  // Below -1e6 the asymptote is exact to rounding, and the middle formula
  // would take the log of 1 minus a number within rounding of 1 (BoTorch's
  // threshold for doubles).
  if (z > -1e6) {
    return -0.5 * z * z - kHalfLog2Pi +
           Log1mExp(std::log(Erfcx(-z / kSqrt2) * -z) + kHalfLogPiOver2);
  }
  return -0.5 * z * z - kHalfLog2Pi - 2 * std::log(-z);
}

double LogHSlope(double z) { return std::exp(LogNormCdf(z) - LogH(z)); }

}  // namespace sweep
