// A temporary results database and a one-parameter study, for the storage
// tests.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "common/values.h"
#include "search_spaces/study_parser.h"
#include "search_spaces/validate.h"
#include "storage/sqlite_store.h"

namespace sweep {

class StoreFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    // One folder, never nested: a parameterized suite's name has a '/'
    // (EveryEarlierVersion/MigrationTest), and a folder made above this
    // one's would stay behind.
    std::string name = "sweep_" + std::string(info->test_suite_name()) + "_" +
                       std::to_string(getpid()) + "_" + info->name();
    std::replace(name.begin(), name.end(), '/', '_');
    dir_ = std::filesystem::temp_directory_path() / name;
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    db_ = (dir_ / "r.db").string();
    auto p = ParseStudyYaml(
        "name: s\nobjective: {metric: value, goal: minimize}\ntask: {synthetic: {function: "
        "curve}}\nalgorithm: {type: random, max_trials: 10}\nparameters:\n  x1: {type: float, "
        "min: 0, max: 1}\n",
        "s.yaml");
    ASSERT_TRUE(p.ok()) << p.status().message();
    Status valid = ValidateStudy(&*p);
    ASSERT_TRUE(valid.ok()) << valid.message();
    study_ = p->study;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static pb::ParamSet Params(double x1) {
    pb::ParamSet ps;
    auto* pv = ps.add_params();
    pv->set_name("x1");
    *pv->mutable_value() = NumberValue(x1);
    return ps;
  }

  // Inserts a queued trial in its own transaction; returns its id via `id`.
  void Insert(Store* s, int64_t study, int64_t number, double x1, int64_t* id,
              int64_t parent_id = 0, int64_t parent_step = 0) {
    ASSERT_TRUE(s->Begin().ok());
    pb::ParamSet ps = Params(x1);
    auto r =
        s->InsertTrial(study, number, ps, ParamsToJson(ps.params()), 1.0, parent_id, parent_step);
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_TRUE(s->Commit().ok());
    *id = *r;
  }

  std::filesystem::path dir_;
  std::string db_;
  pb::Study study_;
};

}  // namespace sweep
