// Finding and opening sweep's modules (nn/module_loader.h): the file the
// environment names and nothing else, the real reason a module that exists
// does not load, and the build's own module found and opened.
#include "nn/module_loader.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "e2e/harness.h"

namespace sweep::nn {
namespace {

constexpr char kVar[] = "SWEEP_TEST_MODULE";

TEST(ModuleLoaderTest, AFileThatIsNotAModuleSaysWhyAndNothingElseIsTried) {
  e2e::TempDir dir;
  std::string fake = dir.Write("libsweep_nn_dnnl.so", std::string(200, 'x'));  // not ELF
  setenv(kVar, fake.c_str(), 1);
  // The build's real module exists too: it must not be taken instead.
  Result<void*> h = OpenModule("libsweep_nn_dnnl.so", kVar, SWEEP_DNNL_MODULE_FILE, "the test");
  unsetenv(kVar);
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find(fake), std::string::npos) << h.status().message();
  EXPECT_NE(h.status().message().find("invalid ELF header"), std::string::npos)
      << h.status().message();
}

TEST(ModuleLoaderTest, AMissingFileTheEnvironmentNamesIsAnError) {
  setenv(kVar, "/nonexistent/libsweep_nn_dnnl.so", 1);
  Result<void*> h = OpenModule("libsweep_nn_dnnl.so", kVar, SWEEP_DNNL_MODULE_FILE, "the test");
  unsetenv(kVar);
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("does not exist"), std::string::npos) << h.status().message();
}

TEST(ModuleLoaderTest, TheBuildsModuleOpensAndHasItsEntryPoints) {
  unsetenv(kVar);
  Result<void*> h = OpenModule("libsweep_nn_dnnl.so", kVar, SWEEP_DNNL_MODULE_FILE, "the test");
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_TRUE(ModuleSymbol(*h, "sweep_dnnl_conv_forward", "libsweep_nn_dnnl.so").ok());
  Result<void*> none = ModuleSymbol(*h, "no_such_entry", "libsweep_nn_dnnl.so");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no_such_entry"), std::string::npos);
}

}  // namespace
}  // namespace sweep::nn
