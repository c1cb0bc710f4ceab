// The train task's knobs: every word maps to its setting, and a word the task
// does not know fails the trial instead of training with the default.
#include "trial_runner/train_task.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "common/rng.h"
#include "common/train_knobs.h"
#include "tuner/study_data.h"

namespace sweep {
namespace {

class NoContext : public TaskContext {
 public:
  void Report(int64_t, const std::vector<pb::Metric>&) override { ++reports; }
  void Checkpoint(int64_t, std::string) override {}
  bool StopRequested() const override { return false; }
  int64_t CommittedStep() const override { return 0; }
  void Log(std::string) override {}
  int reports = 0;
};

pb::Assign TrainAssign() {
  pb::Assign a;
  a.set_seed(1);
  a.mutable_task()->mutable_train()->set_epochs(1);
  return a;
}

void AddWord(pb::Assign* a, const std::string& name, const std::string& word) {
  auto* p = a->add_params();
  p->set_name(name);
  p->mutable_value()->set_text(word);
}

Result<nn::TrainConfig> Config(const pb::Assign& a) {
  TrialSetup setup;
  return TrainConfigFor(a, &setup);
}

// Every word of the augment knob means its bits: flip 1, crop 2, erase 4.
TEST(TrainTaskTest, EveryAugmentWordMapsToItsBits) {
  const TrainKnob* knob = FindTrainKnob("augment");
  ASSERT_NE(knob, nullptr);
  ASSERT_EQ(knob->words.size(), 8u);
  for (std::string_view word : knob->words) {
    pb::Assign a = TrainAssign();
    AddWord(&a, "augment", std::string(word));
    AddWord(&a, "model", "cnn");
    auto c = Config(a);
    ASSERT_TRUE(c.ok()) << word << ": " << c.status().message();
    int bits = 0;
    if (word.find("flip") != std::string_view::npos) bits |= 1;
    if (word.find("crop") != std::string_view::npos) bits |= 2;
    if (word.find("erase") != std::string_view::npos) bits |= 4;
    EXPECT_EQ(static_cast<int>(c->augment), bits) << word;
  }
}

TEST(TrainTaskTest, KnownWordsMapToTheirSettings) {
  pb::Assign a = TrainAssign();
  AddWord(&a, "optimizer", "adamw");
  AddWord(&a, "activation", "gelu");
  AddWord(&a, "init", "xavier");
  AddWord(&a, "lr_schedule", "step");
  AddWord(&a, "pool", "avg");
  AddWord(&a, "augment", "flip+crop");
  AddWord(&a, "model", "cnn");
  auto c = Config(a);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->optimizer.kind, nn::OptimizerKind::kAdamW);
  EXPECT_EQ(c->activation, nn::Activation::kGelu);
  EXPECT_EQ(c->init, nn::WeightInit::kXavier);
  EXPECT_EQ(c->lr_schedule, nn::Schedule::kStep);
  EXPECT_FALSE(c->max_pool);
  EXPECT_EQ(c->augment, nn::Augment::kFlipCrop);
  EXPECT_EQ(c->model, "cnn");
  // Defaults for knobs that are not given.
  auto d = Config(TrainAssign());
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->optimizer.kind, nn::OptimizerKind::kSgd);
  EXPECT_EQ(d->activation, nn::Activation::kRelu);
  EXPECT_EQ(d->init, nn::WeightInit::kFanIn);
  EXPECT_EQ(d->lr_schedule, nn::Schedule::kCosine);
  EXPECT_TRUE(d->max_pool);
}

TEST(TrainTaskTest, AnUnknownWordIsAnErrorNotTheDefault) {
  for (auto [knob, word] : {std::pair{"optimizer", "rmsprop"}, std::pair{"activation", "swish"},
                            std::pair{"init", "lecun"}, std::pair{"lr_schedule", "linear"},
                            std::pair{"pool", "min"}, std::pair{"augment", "rotate"},
                            std::pair{"model", "resnet"}, std::pair{"dataset", "cifar10"}}) {
    SCOPED_TRACE(knob);
    pb::Assign a = TrainAssign();
    AddWord(&a, knob, word);
    auto c = Config(a);
    ASSERT_FALSE(c.ok()) << knob << ": " << word << " was accepted";
    EXPECT_NE(c.status().message().find(std::string("train knob '") + knob + "': unknown value '" +
                                        word + "'"),
              std::string::npos)
        << c.status().message();
  }
  // Fixed in task.train rather than searched: the same.
  pb::Assign a = TrainAssign();
  a.mutable_task()->mutable_train()->set_optimizer("rmsprop");
  auto c = Config(a);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(),
            "train knob 'optimizer': unknown value 'rmsprop' (expected one of: sgd, adam, adamw)");
}

TEST(TrainTaskTest, RunTaskFailsTheTrialOnAnUnknownWord) {
  pb::Assign a = TrainAssign();
  AddWord(&a, "activation", "swish");
  NoContext ctx;
  TaskResult r = RunTask(a, &ctx);
  EXPECT_EQ(r.outcome, pb::TRIAL_OUTCOME_FAILED);
  EXPECT_NE(r.error.find("train knob 'activation': unknown value 'swish'"), std::string::npos)
      << r.error;
  EXPECT_EQ(ctx.reports, 0);
}

// A folder of CSV files for one test, removed at its end.
struct CsvFolder {
  std::string dir = "/tmp/sweep_train_task_test_" + std::to_string(getpid());
  CsvFolder() { std::filesystem::create_directories(dir); }
  ~CsvFolder() { std::filesystem::remove_all(dir); }
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(dir + "/" + name) << text;
    return dir + "/" + name;
  }
};

// y = 3 x1 - 2 x2 + (1 if colour is red), with no noise: an MLP fits it.
std::string LinearCsv(int rows, double offset = 0) {
  std::string out = "x1,colour,x2,y\n";
  Rng rng(5);
  for (int i = 0; i < rows; ++i) {
    double x1 = rng.Uniform() * 4 - 2, x2 = rng.Uniform() * 4 - 2;
    bool red = rng.Next() & 1;
    out += std::to_string(x1) + "," + (red ? "red" : "blue") + "," + std::to_string(x2) + "," +
           std::to_string(offset + 3 * x1 - 2 * x2 + (red ? 1 : 0)) + "\n";
  }
  return out;
}

pb::Assign CsvAssign(const std::string& train, const std::string& label) {
  pb::Assign a = TrainAssign();
  pb::TrainTask* t = a.mutable_task()->mutable_train();
  t->mutable_data()->mutable_csv()->set_train(train);
  t->mutable_data()->mutable_csv()->set_label(label);
  return a;
}

struct Metrics : NoContext {
  std::map<std::string, double> last;
  void Report(int64_t, const std::vector<pb::Metric>& m) override {
    ++reports;
    for (const auto& x : m) last[x.name()] = x.value();
  }
};

double Get(const TaskResult& r, const std::string& name) {
  for (const auto& m : r.metrics)
    if (m.name() == name) return m.value();
  return std::nan("");
}

TEST(TrainTaskTest, RegressionOnACsvTableFitsALinearFunction) {
  CsvFolder f;
  pb::Assign a = CsvAssign(f.Write("lin.csv", LinearCsv(1000)), "y");
  pb::TrainTask* t = a.mutable_task()->mutable_train();
  t->set_problem("regression");
  t->set_epochs(60);
  t->set_batch_size(32);
  t->set_optimizer("adam");
  t->set_lr(0.01);
  t->set_hidden_layers(1);
  t->set_hidden_units(32);
  t->set_threads(1);
  Metrics ctx;
  TaskResult r = RunTask(a, &ctx);
  ASSERT_EQ(r.outcome, pb::TRIAL_OUTCOME_COMPLETED) << r.error;
  EXPECT_EQ(ctx.reports, 60);
  for (const char* m : {"val_rmse", "val_mae", "val_r2", "val_loss", "train_loss"})
    EXPECT_TRUE(ctx.last.count(m)) << m;
  EXPECT_FALSE(ctx.last.count("val_accuracy"));
  // The target's standard deviation is about 4; near-zero error is well
  // under a hundredth of it.
  EXPECT_LT(Get(r, "test_rmse"), 0.1) << "test_mae " << Get(r, "test_mae");
  EXPECT_GT(Get(r, "test_r2"), 0.999);
  EXPECT_LT(Get(r, "val_rmse"), 0.1);

  // Far from 0 the same fit has the same R^2: its spread is not lost to
  // cancellation (sum(y^2) - sum(y)^2/n is noise at 1e9).
  t->mutable_data()->mutable_csv()->set_train(f.Write("far.csv", LinearCsv(1000, 1e9)));
  Metrics far;
  TaskResult rf = RunTask(a, &far);
  ASSERT_EQ(rf.outcome, pb::TRIAL_OUTCOME_COMPLETED) << rf.error;
  EXPECT_GT(Get(rf, "test_r2"), 0.999);
  EXPECT_NEAR(Get(rf, "test_r2"), Get(r, "test_r2"), 1e-3);
}

TEST(TrainTaskTest, ClassificationOnASeparableTableReachesFullAccuracy) {
  CsvFolder f;
  std::string csv = "a,b,kind\n";
  Rng rng(3);
  for (int i = 0; i < 400; ++i) {
    double x = rng.Uniform() * 2 - 1, y = rng.Uniform() * 2 - 1;
    if (std::fabs(x + y) < 0.1) continue;  // a margin around the boundary
    csv += std::to_string(x) + "," + std::to_string(y) + "," + (x + y > 0 ? "up" : "down") + "\n";
  }
  pb::Assign a = CsvAssign(f.Write("sep.csv", csv), "kind");
  pb::TrainTask* t = a.mutable_task()->mutable_train();
  t->set_epochs(30);
  t->set_batch_size(16);
  t->set_optimizer("adam");
  t->set_lr(0.01);
  t->set_threads(1);
  Metrics ctx;
  TaskResult r = RunTask(a, &ctx);
  ASSERT_EQ(r.outcome, pb::TRIAL_OUTCOME_COMPLETED) << r.error;
  EXPECT_EQ(Get(r, "test_accuracy"), 1.0);
  EXPECT_EQ(Get(r, "test_f1"), 1.0);
  EXPECT_EQ(ctx.last["val_accuracy"], 1.0);
}

// Two layers of 65,536 (a width the knob allows) hold 2^32 weights: more
// than a tensor's int index, so the trial fails saying so, before any of it
// is allocated, rather than wrapping.
TEST(TrainTaskTest, AModelTooBigForATensorFailsTheTrial) {
  CsvFolder f;
  pb::Assign a = CsvAssign(f.Write("lin.csv", LinearCsv(50)), "y");
  pb::TrainTask* t = a.mutable_task()->mutable_train();
  t->set_problem("regression");
  t->set_hidden_layers(2);
  t->set_hidden_units(65536);
  t->set_batch_size(8);
  t->set_threads(1);
  NoContext ctx;
  TaskResult r = RunTask(a, &ctx);
  EXPECT_EQ(r.outcome, pb::TRIAL_OUTCOME_FAILED);
  EXPECT_NE(r.error.find("parameters, more than one tensor holds"), std::string::npos) << r.error;
}

TEST(TrainTaskTest, ABadFileFailsTheTrialWithTheMessageTheTunerGives) {
  CsvFolder f;
  std::string bad = f.Write("bad.csv", "x,y\n1,a\n2,b\nthree,a\n4,b\n5,a\n6,b\n");
  pb::Assign a = CsvAssign(bad, "y");
  NoContext ctx;
  TaskResult r = RunTask(a, &ctx);
  EXPECT_EQ(r.outcome, pb::TRIAL_OUTCOME_FAILED);
  EXPECT_NE(r.error.find("bad.csv:4:1: 'three', not a number, in numeric column 'x'"),
            std::string::npos)
      << r.error;
  pb::Study study;
  *study.mutable_task() = a.task();
  auto st = CheckStudyData(study, true);
  EXPECT_EQ(st.status().message(), "task.train.data: " + r.error);
  // A table is no image: a CNN fails the trial and says why.
  pb::Assign cnn = CsvAssign(f.Write("ok.csv", LinearCsv(50)), "colour");
  cnn.mutable_task()->mutable_train()->set_model("cnn");
  r = RunTask(cnn, &ctx);
  EXPECT_EQ(r.outcome, pb::TRIAL_OUTCOME_FAILED);
  EXPECT_NE(r.error.find("model cnn needs images"), std::string::npos) << r.error;
}

TEST(TrainTaskTest, ModelAutoFollowsTheDataAndFunnelHalvesTheWidths) {
  nn::Splits table, images;
  table.train.c = 4;
  images.train.c = 3;
  images.train.h = images.train.w = 8;
  nn::TrainConfig c;
  c.model = "auto";
  ResolveModel(table, &c);
  EXPECT_EQ(c.model, "mlp");
  c.model = "auto";
  ResolveModel(images, &c);
  EXPECT_EQ(c.model, "cnn");

  pb::Assign a = TrainAssign();
  AddWord(&a, "hidden_shape", "funnel");
  a.mutable_task()->mutable_train()->set_hidden_layers(4);
  a.mutable_task()->mutable_train()->set_hidden_units(40);
  auto f = Config(a);
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_TRUE(f->funnel);
  table.train.n = 2;
  table.train.values.assign(8, 0.f);
  table.train.labels = {0, 1};
  table.classes = 2;
  auto b = nn::MakeCpuBackend(1);
  nn::Trainer t(*f, b.get(), &table);
  std::string summary = t.model().Summary();
  size_t at = 0;
  for (const char* layer : {"Linear(40)", "Linear(20)", "Linear(10)", "Linear(8)", "Linear(2)"}) {
    at = summary.find(layer, at);
    EXPECT_NE(at, std::string::npos) << layer << " in\n" << summary;
  }
}

}  // namespace
}  // namespace sweep
