// The ONNX export of trees against XGBoost's own predictions: boosters
// trained on CSV tables (regression, two and three classes, missing cells
// left missing) are exported, the TreeEnsembleRegressor's nodes are walked
// here on the test rows' features as the ONNX-ML spec defines them, and the
// outputs (softmax of the margins, or the standardised prediction) must
// equal Booster::Predict's within 1e-5. That onnxruntime runs the whole
// graph the same way, raw columns in, is bench/automl/onnx_agreement.sh's
// check (onnxruntime is a peer, not a test dependency).
#include "nn/export/onnx_trees.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "common/rng.h"
#include "nn/data/data_source.h"
#include "nn/gbdt/booster.h"

namespace sweep::nn {
namespace {

struct Folder {
  std::string dir = "/tmp/sweep_onnx_trees_test_" + std::to_string(getpid());
  Folder() { std::filesystem::create_directories(dir); }
  ~Folder() { std::filesystem::remove_all(dir); }
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(dir + "/" + name) << text;
    return dir + "/" + name;
  }
};

// y = 3 x1 - 2 x2 (+1 if red), or that cut into `classes` bands; every
// ninth x2 missing where `gaps`.
std::string Table(int rows, int classes, bool gaps) {
  std::string out = "x1,colour,x2,y\n";
  Rng rng(9);
  for (int i = 0; i < rows; ++i) {
    const double x1 = rng.Uniform() * 4 - 2, x2 = rng.Uniform() * 4 - 2;
    const bool red = rng.Next() & 1, missing = gaps && i % 9 == 0;
    const double y = 3 * x1 - 2 * (missing ? 1.5 : x2) + (red ? 1 : 0);
    std::string label = std::to_string(y);
    if (classes > 0)
      label = "c" + std::to_string(std::clamp(int((y + 11) / 22 * classes), 0, classes - 1));
    out += std::to_string(x1) + "," + (red ? "red" : "blue") + "," +
           (missing ? "" : std::to_string(x2)) + "," + label + "\n";
  }
  return out;
}

const onnx::AttributeProto* Attr(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  ADD_FAILURE() << "no attribute " << name;
  static onnx::AttributeProto empty;
  return &empty;
}

// The ensemble's sums for one row of features, as ai.onnx.ml's
// TreeEnsembleRegressor (aggregate SUM, no post-transform) defines them.
std::vector<double> Walk(const onnx::NodeProto& n, const float* x) {
  const auto& tree = Attr(n, "nodes_treeids")->ints();
  const auto& node = Attr(n, "nodes_nodeids")->ints();
  const auto& feature = Attr(n, "nodes_featureids")->ints();
  const auto& mode = Attr(n, "nodes_modes")->strings();
  const auto& value = Attr(n, "nodes_values")->floats();
  const auto& yes = Attr(n, "nodes_truenodeids")->ints();
  const auto& no = Attr(n, "nodes_falsenodeids")->ints();
  const auto& missing = Attr(n, "nodes_missing_value_tracks_true")->ints();
  std::map<std::pair<int64_t, int64_t>, int> at;
  for (int i = 0; i < tree.size(); ++i) at[{tree[i], node[i]}] = i;
  std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<int64_t, float>>> leaves;
  const auto* lt = Attr(n, "target_treeids");
  for (int i = 0; i < lt->ints_size(); ++i)
    leaves[{lt->ints(i), Attr(n, "target_nodeids")->ints(i)}].push_back(
        {Attr(n, "target_ids")->ints(i), Attr(n, "target_weights")->floats(i)});
  std::vector<double> sum(static_cast<size_t>(Attr(n, "n_targets")->i()), 0.0);
  const auto& base = Attr(n, "base_values")->floats();
  for (size_t k = 0; k < sum.size(); ++k) sum[k] = base[static_cast<int>(k)];
  std::set<int64_t> trees(tree.begin(), tree.end());
  for (int64_t t : trees) {
    int i = at.at({t, 0});
    while (mode[i] != "LEAF") {
      EXPECT_EQ(mode[i], "BRANCH_LT");
      const float v = x[feature[i]];
      const bool go = std::isnan(v) ? missing[i] != 0 : v < value[i];
      i = at.at({t, go ? yes[i] : no[i]});
    }
    for (auto [target, w] : leaves.at({t, node[i]})) sum[static_cast<size_t>(target)] += w;
  }
  return sum;
}

void ExpectAgreement(const std::string& csv, Problem problem, bool native) {
  Folder f;
  DataSpec spec;
  spec.files.mutable_csv()->set_train(f.Write("t.csv", csv));
  spec.files.mutable_csv()->set_label("y");
  if (native) spec.files.mutable_csv()->set_missing("native");
  spec.problem = problem;
  auto pool = LoadData(spec);
  ASSERT_TRUE(pool.ok()) << pool.status().message();
  auto data = CarveSplits(*pool, DefaultValidation(spec, *pool), 1);
  ASSERT_TRUE(data.ok()) << data.status().message();
  TreeConfig c;
  c.rounds = 40;
  c.max_depth = 4;
  c.subsample = 0.8;
  auto b = Booster::Train(c, *data);
  ASSERT_TRUE(b.ok()) << b.status().message();
  ASSERT_TRUE((*b)->Boost(40).ok());
  auto json = (*b)->ModelJson();
  ASSERT_TRUE(json.ok()) << json.status().message();
  auto bytes = ExportTreesOnnx(*json, *data, native, "trees");
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(*bytes));
  const onnx::NodeProto* ensemble = nullptr;
  bool nan_to_mean = false;
  for (const auto& n : m.graph().node()) {
    if (n.op_type() == "TreeEnsembleRegressor") ensemble = &n;
    nan_to_mean = nan_to_mean || n.op_type() == "IsNaN";
  }
  ASSERT_NE(ensemble, nullptr);
  EXPECT_EQ(nan_to_mean, !native);  // native: a missing cell reaches the trees as NaN
  const Examples& x = data->test;
  auto theirs = (*b)->Predict(x.values, x.n);
  ASSERT_TRUE(theirs.ok()) << theirs.status().message();
  const int k = data->outputs();
  double worst = 0;
  int nans = 0;
  for (int r = 0; r < x.n; ++r) {
    const float* row = x.values.data() + static_cast<size_t>(r) * x.example_size();
    for (size_t j = 0; j < x.example_size(); ++j) nans += std::isnan(row[j]) ? 1 : 0;
    std::vector<double> z = Walk(*ensemble, row), ours(static_cast<size_t>(k));
    if (problem == Problem::kRegression) {
      ours[0] = z[0];
    } else {
      double top = *std::max_element(z.begin(), z.end()), total = 0;
      for (int j = 0; j < k; ++j) total += std::exp(z[static_cast<size_t>(j)] - top);
      for (int j = 0; j < k; ++j)
        ours[static_cast<size_t>(j)] = std::exp(z[static_cast<size_t>(j)] - top) / total;
    }
    for (int j = 0; j < k; ++j)
      worst = std::max(worst, std::fabs(ours[static_cast<size_t>(j)] -
                                        (*theirs)[static_cast<size_t>(r * k + j)]));
  }
  EXPECT_LT(worst, 1e-5);
  EXPECT_EQ(nans > 0, native);  // the missing cells were there to follow
  EXPECT_EQ(m.graph().output(0).name(),
            problem == Problem::kRegression ? "prediction" : "probabilities");
}

TEST(OnnxTreesTest, RegressionAgreesWithXgboost) {
  ExpectAgreement(Table(600, 0, false), Problem::kRegression, false);
}

TEST(OnnxTreesTest, TwoClassesAgreeWithXgboost) {
  ExpectAgreement(Table(600, 2, false), Problem::kClassification, false);
}

TEST(OnnxTreesTest, ThreeClassesAgreeWithXgboost) {
  ExpectAgreement(Table(600, 3, false), Problem::kClassification, false);
}

TEST(OnnxTreesTest, MissingCellsFollowEachSplitsLearnedSide) {
  ExpectAgreement(Table(900, 3, true), Problem::kClassification, true);
}

TEST(OnnxTreesTest, AModelOfOtherDataIsRefused) {
  Folder f;
  DataSpec spec;
  spec.files.mutable_csv()->set_train(f.Write("t.csv", Table(200, 3, false)));
  spec.files.mutable_csv()->set_label("y");
  auto pool = LoadData(spec);
  ASSERT_TRUE(pool.ok());
  auto data = CarveSplits(*pool, DefaultValidation(spec, *pool), 1);
  ASSERT_TRUE(data.ok());
  auto bad = ExportTreesOnnx("{\"learner\": 3}", *data, false, "x");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("not XGBoost's JSON"), std::string::npos);
  EXPECT_FALSE(ExportTreesOnnx("not json", *data, false, "x").ok());
  // A regression's trees for this table's classes: refused, named.
  DataSpec reg = spec;
  reg.files.mutable_csv()->set_train(f.Write("r.csv", Table(200, 0, false)));
  reg.problem = Problem::kRegression;
  auto rpool = LoadData(reg);
  ASSERT_TRUE(rpool.ok());
  auto rdata = CarveSplits(*rpool, DefaultValidation(reg, *rpool), 1);
  ASSERT_TRUE(rdata.ok());
  TreeConfig c;
  c.rounds = 3;
  auto b = Booster::Train(c, *rdata);
  ASSERT_TRUE(b.ok() && (*b)->Boost(3).ok());
  auto json = (*b)->ModelJson();
  ASSERT_TRUE(json.ok());
  auto other = ExportTreesOnnx(*json, *data, false, "x");
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("its objective is reg:squarederror, this data's "
                                          "multi:softprob"),
            std::string::npos)
      << other.status().message();
}

}  // namespace
}  // namespace sweep::nn
