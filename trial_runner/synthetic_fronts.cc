// Synthetic functions of several objectives: ZDT1 and ZDT2 (Zitzler, Deb
// and Thiele, 2000) and DTLZ2 (Deb, Thiele, Laumanns and Zitzler, 2002).
#include <cmath>

#include "trial_runner/synthetic.h"

namespace sweep {

namespace {

// ZDT's distance from the front: 1 on it (x2..xn = 0), up to 10.
double ZdtG(const std::vector<double>& x) {
  double sum = 0;
  for (size_t i = 1; i < x.size(); ++i) sum += x[i];
  return 1 + 9 * sum / static_cast<double>(x.size() - 1);
}

}  // namespace

std::vector<double> Zdt1(const std::vector<double>& x) {
  double g = ZdtG(x);
  return {x[0], g * (1 - std::sqrt(x[0] / g))};
}

std::vector<double> Zdt2(const std::vector<double>& x) {
  double g = ZdtG(x), r = x[0] / g;
  return {x[0], g * (1 - r * r)};
}

std::vector<double> Dtlz2(const std::vector<double>& x) {
  double g = 0;
  for (size_t i = 2; i < x.size(); ++i) g += (x[i] - 0.5) * (x[i] - 0.5);
  const double a = x[0] * M_PI / 2, b = x[1] * M_PI / 2;
  return {(1 + g) * std::cos(a) * std::cos(b), (1 + g) * std::cos(a) * std::sin(b),
          (1 + g) * std::sin(a)};
}

}  // namespace sweep
