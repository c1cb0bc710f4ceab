// The train task's knobs: every word maps to its setting, and a word the task
// does not know fails the trial instead of training with the default.
#include "trial_runner/train_task.h"

#include <gtest/gtest.h>

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
  std::string dir;
  int validation = 0, threads = 0;
  return TrainConfigFor(a, &dir, &validation, &threads);
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

}  // namespace
}  // namespace sweep
