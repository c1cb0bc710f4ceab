// Which OpenBLAS kernels a training process asks for: AVX2 ones when
// OpenBLAS fell back to generic kernels on a CPU that has AVX2 (the H200
// machine's Xeon got "Prescott", 3.2-3.9x slower), never against the user's own
// OPENBLAS_CORETYPE. The real fall-back cannot be caused on this machine
// (OpenBLAS knows its CPU), so the decision is tested, and the process's own
// pick is checked to be one OpenBLAS names.
#include "nn/cpu/blas_core.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "nn/backend.h"

namespace sweep::nn::cpu {
namespace {

TEST(BlasCoreTest, AGenericPickOnAnAvx2CpuAsksForHaswell) {
  for (const char* generic : {"Prescott", "Core2", "Nehalem", "Unknown", "prescott"}) {
    const char* want = BlasCoreToRequest(generic, true, nullptr);
    ASSERT_NE(want, nullptr) << generic;
    EXPECT_STREQ(want, "Haswell") << generic;
  }
  EXPECT_STREQ(BlasCoreToRequest("Prescott", true, ""), "Haswell");  // set but empty
}

TEST(BlasCoreTest, AGoodPickAnOldCpuOrTheUsersChoiceIsLeftAlone) {
  EXPECT_EQ(BlasCoreToRequest("Haswell", true, nullptr), nullptr);
  EXPECT_EQ(BlasCoreToRequest("Zen", true, nullptr), nullptr);
  EXPECT_EQ(BlasCoreToRequest("SkylakeX", true, nullptr), nullptr);
  EXPECT_EQ(BlasCoreToRequest("Prescott", false, nullptr), nullptr);  // no AVX2: right pick
  EXPECT_EQ(BlasCoreToRequest("Prescott", true, "Prescott"), nullptr);
  EXPECT_EQ(BlasCoreToRequest("Prescott", true, "Nehalem"), nullptr);
  EXPECT_EQ(BlasCoreToRequest(nullptr, true, nullptr), nullptr);
}

TEST(BlasCoreTest, ThisProcessNamesItsCoreAndRespectsTheEnvironment) {
  const char* name = BlasCoreName();
  ASSERT_NE(name, nullptr);
  EXPECT_GT(std::strlen(name), 0u);
  // With OPENBLAS_CORETYPE set, nothing is asked for. (This can only fail on
  // a machine where OpenBLAS fell back to generic kernels; elsewhere nothing
  // is asked for anyway, and the cases above test the decision.)
  setenv("OPENBLAS_CORETYPE", name, 1);
  EXPECT_EQ(BlasCoreToRequest(), nullptr);
  unsetenv("OPENBLAS_CORETYPE");
}

}  // namespace
}  // namespace sweep::nn::cpu
