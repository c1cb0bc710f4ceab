// Log expected improvement of a Gaussian prediction, accurate where expected
// improvement itself underflows to 0 (Ament et al., NeurIPS 2023,
// "Unexpected improvements to expected improvement"), so the acquisition
// keeps a slope to climb far from the best point.
#pragma once

namespace sweep {

// exp(x²) erfc(x), the scaled complementary error function, for x >= 0
// (where erfc itself underflows past x = 26).
double Erfcx(double x);

// log Φ(z), the standard normal's log CDF, for any finite z.
double LogNormCdf(double z);

// log h(z), h(z) = φ(z) + z Φ(z): the expected improvement of a prediction
// whose improvement is z standard deviations (EI = σ h(z)).
double LogH(double z);

// d/dz log h(z) = Φ(z) / h(z).
double LogHSlope(double z);

}  // namespace sweep
