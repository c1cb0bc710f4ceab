// Hostile study files (issue 10, finding 7): each one makes a real `sweep
// validate` (or `sweep plan`) fail fast, or pass fast, in a child process
// under a virtual memory limit (ulimit -v) and a time limit, where before
// they ran out of memory or hung.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "e2e/harness.h"

namespace sweep {
namespace {

using e2e::TempDir;

struct Outcome {
  int rc = -1;
  std::string out;
};

// `sweep CMD FILE` under 2 GiB of address space, killed after 30 s (rc 137):
// running out of memory or hanging fails the exit-code checks, with no
// timing threshold in the test.
Outcome Sweep(const std::string& cmd, const std::string& file) {
  std::string sh = "ulimit -v 2097152; exec timeout -s KILL 30 '" + std::string(SWEEP_BIN) + "' " +
                   cmd + " '" + file + "' 2>&1 </dev/null";
  Outcome o;
  FILE* p = popen(sh.c_str(), "r");
  if (p == nullptr) return o;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) o.out.append(buf, n);
  int st = pclose(p);
  o.rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return o;
}

const char* kHead =
    "name: hostile\nobjective: {metric: value, goal: minimize}\n"
    "task: {synthetic: {function: curve}}\n";

// The curve function's one input, with three grid values.
const std::string kX1 = "  x1: {type: float, min: 0, max: 1, step: 0.5}\n";

void ExpectFails(const Outcome& o, const std::string& want) {
  EXPECT_EQ(o.rc, 1) << o.out;
  EXPECT_NE(o.out.find(want), std::string::npos) << o.out;
}

TEST(HostileStudyTest, AWideIntRangeIsNotBuiltForRandomSearch) {
  TempDir dir;
  std::string f = dir.Write("wide.yaml", std::string(kHead) +
                                             "algorithm: {type: random, max_trials: 3}\n"
                                             "parameters:\n" +
                                             kX1 + "  n: {type: int, min: 0, max: 2000000000}\n");
  // Before, this built all 2e9 values and aborted with bad_alloc. (x1 has a
  // step: a float without one used to end the walk early by accident.)
  Outcome o = Sweep("validate", f);
  EXPECT_EQ(o.rc, 0) << o.out;
  EXPECT_NE(o.out.find("is valid"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("grid points: more than 1000000"), std::string::npos) << o.out;
}

TEST(HostileStudyTest, AWideGridSaysHowLargeItIs) {
  TempDir dir;
  std::string f =
      dir.Write("grid.yaml", std::string(kHead) + "algorithm: {type: grid}\nparameters:\n" + kX1 +
                                 "  n: {type: int, min: 0, max: 2000000000}\n");
  ExpectFails(Sweep("validate", f), "the grid has 6000000003 points, more than 1000000");
  std::string params;
  for (int i = 0; i < 8; ++i)
    params += "  p" + std::to_string(i) + ": {type: int, min: 0, max: 1000000000}\n";
  f = dir.Write("product.yaml",
                std::string(kHead) + "algorithm: {type: grid}\nparameters:\n" + kX1 + params);
  ExpectFails(Sweep("validate", f), "the grid has more than 18446744073709551615 points");
  // With conditions the count is found by a walk that stops past the limit.
  f = dir.Write("conditional.yaml",
                std::string(kHead) + "algorithm: {type: grid}\nparameters:\n" + kX1 +
                    "  kind: {type: categorical, values: [a, b]}\n"
                    "  n: {type: int, min: 0, max: 2000000000, when: {kind: a}}\n");
  ExpectFails(Sweep("validate", f), "the grid has more than 1000000 points");
}

TEST(HostileStudyTest, AYamlAliasBombIsAnError) {
  // 100,000 values, repeated by 10,000 aliases: a billion values if expanded.
  std::string values;
  for (int i = 0; i < 100000; ++i) values += (i ? "," : "") + std::to_string(i % 10);
  std::string refs;
  for (int i = 0; i < 10000; ++i) refs += ", *p";
  TempDir dir;
  std::string f = dir.Write("bomb.yaml", std::string(kHead) +
                                             "algorithm: {type: random, max_trials: 3}\n"
                                             "parameters: [&p {name: x, type: categorical, "
                                             "values: [" +
                                             values + "]}" + refs + "]\n");
  ExpectFails(Sweep("validate", f), "the study expands to more than 100000 values");
}

TEST(HostileStudyTest, SpecialFilesAreRefusedWithoutReadingThem) {
  TempDir dir;
  std::string fifo = dir.File("fifo.yaml");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  ExpectFails(Sweep("validate", fifo), "a study file must be a regular file, this is a FIFO");
  ExpectFails(Sweep("validate", "/dev/zero"),
              "a study file must be a regular file, this is a character device");
  ExpectFails(Sweep("validate", dir.path()),
              "a study file must be a regular file, this is a directory");
  // 8 GiB, sparse: refused by its size, before a byte is read.
  std::string big = dir.File("big.yaml");
  { std::ofstream(big) << "name: x\n"; }
  ASSERT_EQ(truncate(big.c_str(), 8LL << 30), 0);
  ExpectFails(Sweep("validate", big), "study file is larger than 1048576 bytes");
  ExpectFails(Sweep("plan", big), "study file is larger than 1048576 bytes");
}

TEST(HostileStudyTest, ExtremeHyperbandSettingsAreBoundedBeforeThePlanIsBuilt) {
  TempDir dir;
  // reduction_factor 1.0001 over 1,000,000 steps: 138,000 brackets.
  std::string f =
      dir.Write("brackets.yaml",
                "name: hb\nobjective: {metric: value, goal: minimize}\n"
                "task: {synthetic: {function: curve, steps: 1000000}}\n"
                "algorithm: {type: hyperband, hyperband: {min_resource: 1, max_resource: 1000000, "
                "reduction_factor: 1.0001}}\nparameters:\n  x1: {type: float, min: 0, max: 1}\n");
  ExpectFails(Sweep("validate", f), "brackets per iteration (at most 100)");
  ExpectFails(Sweep("plan", f), "brackets per iteration (at most 100)");
  // 100 million trials in brackets of a million: trial tables too large.
  f = dir.Write("trials.yaml",
                "name: hb\nobjective: {metric: value, goal: minimize}\n"
                "task: {synthetic: {function: curve, steps: 1000000}}\n"
                "algorithm: {type: hyperband, max_trials: 100000000, hyperband: {min_resource: "
                "1, max_resource: 1000000, reduction_factor: 2}}\n"
                "parameters:\n  x1: {type: float, min: 0, max: 1}\n");
  ExpectFails(Sweep("validate", f), "trials (at most 2000000)");
}

TEST(HostileStudyTest, ExtremePbtSettingsStayCheap) {
  TempDir dir;
  std::string f =
      dir.Write("pbt.yaml",
                "name: pbt\nobjective: {metric: value, goal: minimize}\n"
                "task: {synthetic: {function: curve, steps: 1000000}}\n"
                "algorithm: {type: pbt, pbt: {population: 10000, max_steps: 1000000, "
                "perturbation_interval: 1}}\nparameters:\n  x1: {type: float, min: 0, max: 1}\n");
  for (const char* cmd : {"validate", "plan"}) {
    Outcome o = Sweep(cmd, f);
    EXPECT_EQ(o.rc, 0) << cmd << ": " << o.out;
  }
}

}  // namespace
}  // namespace sweep
