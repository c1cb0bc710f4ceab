// Study files that cannot be read or parsed fail with a code and a message
// that names the file (and the line and column where there is one).
#include <gtest/gtest.h>

#include "e2e/harness.h"
#include "search_spaces/study_parser.h"

namespace sweep {
namespace {

TEST(StudyFileTest, AMissingFileIsNotFound) {
  auto r = LoadStudyFile("/nonexistent/study.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNotFound());
  EXPECT_EQ(r.status().message().rfind("/nonexistent/study.yaml: cannot open study file", 0), 0u)
      << r.status().message();
}

TEST(StudyFileTest, MalformedYamlIsAnInvalidArgumentWithLineAndColumn) {
  e2e::TempDir dir;
  auto r = LoadStudyFile(dir.Write("bad.yaml", "name: x\nparameters: [unclosed\n"));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
  EXPECT_NE(r.status().message().find("bad.yaml:"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace sweep
