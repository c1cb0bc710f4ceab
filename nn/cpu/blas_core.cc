// Which OpenBLAS kernels a training process should ask for (blas_core.h).
#include "nn/cpu/blas_core.h"

#include <strings.h>

#include <cstdlib>

#include "nn/backend.h"

extern "C" {
// From OpenBLAS (its header's location varies by package).
char* openblas_get_corename(void);
}

namespace sweep::nn {

const char* BlasCoreName() { return openblas_get_corename(); }

namespace cpu {

const char* BlasCoreToRequest(const char* picked, bool avx2_and_fma, const char* user_choice) {
  if (user_choice != nullptr && *user_choice != '\0') return nullptr;
  if (picked == nullptr || !avx2_and_fma) return nullptr;
  // OpenBLAS's x86-64 cores without AVX2 kernels, which it also falls back
  // to for a CPU it does not know.
  static const char* const kGeneric[] = {
      "Prescott",  "Core2",  "Penryn", "Dunnington", "Nehalem",   "Atom",   "Katmai",  "Coppermine",
      "Northwood", "Banias", "Athlon", "Opteron",    "Barcelona", "Bobcat", "Unknown", "generic"};
  for (const char* g : kGeneric) {
    if (strcasecmp(picked, g) == 0) return "Haswell";
  }
  return nullptr;
}

const char* BlasCoreToRequest() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  const bool avx2_and_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return BlasCoreToRequest(BlasCoreName(), avx2_and_fma, std::getenv("OPENBLAS_CORETYPE"));
#else
  return nullptr;  // the core names above are x86-64's
#endif
}

}  // namespace cpu

}  // namespace sweep::nn
