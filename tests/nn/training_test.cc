// Training: the loss falls; checkpoints resume bit-exactly; corrupt or
// mismatched checkpoints are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "common/rng.h"
#include "nn/data/data_source.h"
#include "nn/toy_data.h"
#include "nn/trainer.h"

namespace sweep::nn {
namespace {

TrainConfig Config(const std::string& model) {
  TrainConfig c;
  c.model = model;
  c.epochs = 4;
  c.batch_size = 32;
  c.lr = 0.05f;
  c.hidden_units = 32;
  c.channels = 4;
  c.dense_units = 16;
  c.dropout = 0.2f;
  c.batch_norm = true;
  c.augment = Augment::kFlipCrop;
  c.seed = 11;
  return c;
}

TEST(TrainingTest, LossFallsAndAccuracyRises) {
  auto b = MakeCpuBackend(1);
  Splits data = ToyData(1024);
  for (const char* model : {"mlp", "cnn"}) {
    SCOPED_TRACE(model);
    TrainConfig c = Config(model);
    c.augment = Augment::kNone;
    Trainer t(c, b.get(), &data);
    Evaluation before = t.Evaluate(data.validation);
    EpochResult last;
    for (int e = 0; e < 4; ++e) last = t.RunEpoch();
    EXPECT_LT(last.val.loss, before.loss * 0.5);
    EXPECT_GT(last.val.accuracy, 0.9);
    EXPECT_GT(last.val.accuracy, before.accuracy);
  }
}

TEST(TrainingTest, ResumeFromCheckpointIsBitExact) {
  auto b = MakeCpuBackend(1);
  Splits data = ToyData(512);
  for (const char* model : {"mlp", "cnn"}) {
    for (OptimizerKind opt : {OptimizerKind::kSgd, OptimizerKind::kAdamW}) {
      TrainConfig c = Config(model);
      c.optimizer.kind = opt;
      c.lr = opt == OptimizerKind::kSgd ? 0.05f : 0.003f;
      c.lr_schedule = Schedule::kCosine;
      Trainer straight(c, b.get(), &data);
      for (int e = 0; e < 3; ++e) straight.RunEpoch();
      Trainer first(c, b.get(), &data);
      first.RunEpoch();
      std::string ckpt = first.SaveCheckpoint();
      Trainer resumed(c, b.get(), &data);
      ASSERT_TRUE(resumed.LoadCheckpoint(ckpt).ok());
      EXPECT_EQ(resumed.epoch(), 1);
      resumed.RunEpoch();
      resumed.RunEpoch();
      size_t n = straight.model().param_count();
      ASSERT_EQ(n, resumed.model().param_count());
      EXPECT_EQ(0,
                std::memcmp(straight.model().params(), resumed.model().params(), n * sizeof(float)))
          << model << " parameters differ after resuming";
      EXPECT_EQ(0, std::memcmp(straight.model().state(), resumed.model().state(),
                               straight.model().state_count() * sizeof(float)));
    }
  }
}

// A trial may be lent idle cores while it runs (trial_runner/core_share.h):
// its replicas must give the same bits on any number of threads, even when
// the number changes from one step to the next.
TEST(TrainingTest, ReplicasGiveTheSameBitsOnAnyNumberOfThreads) {
  auto b = MakeCpuBackend(1);
  Splits data = ToyData(512);
  for (const char* model : {"mlp", "cnn"}) {
    SCOPED_TRACE(model);
    TrainConfig c = Config(model);
    c.data_parallel = 3;
    std::vector<std::string> runs;
    for (int variant = 0; variant < 4; ++variant) {
      Trainer t(c, b.get(), &data);
      int step = 0;
      // 1, 2 or 3 threads throughout, or a different count at every step.
      t.SetThreads([&] { return variant < 3 ? variant + 1 : 1 + step++ % 3; });
      for (int e = 0; e < 2; ++e) t.RunEpoch();
      runs.push_back(t.SaveCheckpoint());
    }
    for (size_t v = 1; v < runs.size(); ++v)
      EXPECT_TRUE(runs[v] == runs[0]) << "variant " << v << " differs from one thread";
    // And the replica count is what matters: one model differs.
    c.data_parallel = 1;
    Trainer one(c, b.get(), &data);
    for (int e = 0; e < 2; ++e) one.RunEpoch();
    EXPECT_FALSE(one.SaveCheckpoint() == runs[0]);
  }
}

TEST(TrainingTest, CorruptOrMismatchedCheckpointsAreRefused) {
  auto b = MakeCpuBackend(1);
  Splits data = ToyData(256);
  TrainConfig c = Config("mlp");
  Trainer t(c, b.get(), &data);
  t.RunEpoch();
  std::string ckpt = t.SaveCheckpoint();
  std::string flipped = ckpt;
  flipped[flipped.size() / 2] ^= 0x10;
  Trainer u(c, b.get(), &data);
  Status st = u.LoadCheckpoint(flipped);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("checksum"), std::string::npos) << st.message();
  EXPECT_FALSE(u.LoadCheckpoint(ckpt.substr(0, 100)).ok());
  EXPECT_FALSE(u.LoadCheckpoint("garbage").ok());
  TrainConfig wider = c;
  wider.hidden_units = 48;
  Trainer v(wider, b.get(), &data);
  st = v.LoadCheckpoint(ckpt);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("different model"), std::string::npos) << st.message();
  EXPECT_EQ(u.epoch(), 0);  // nothing was half-loaded

  // Bound to its data: other data of the same shape is refused, and data
  // whose fingerprint is not known (0) is not checked.
  Splits fp = data, other = data;
  fp.fingerprint = Fingerprint(fp);
  other.train.pixels[0] ^= 1;
  other.fingerprint = Fingerprint(other);
  ASSERT_NE(fp.fingerprint, other.fingerprint);
  EXPECT_EQ(Fingerprint(data), fp.fingerprint);  // a function of the data alone
  Trainer on_fp(c, b.get(), &fp);
  on_fp.RunEpoch();
  std::string bound = on_fp.SaveCheckpoint();
  Trainer on_other(c, b.get(), &other);
  st = on_other.LoadCheckpoint(bound);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("written for other data"), std::string::npos) << st.message();
  Trainer same(c, b.get(), &fp);
  EXPECT_TRUE(same.LoadCheckpoint(bound).ok());
  Trainer unknown(c, b.get(), &data);
  EXPECT_TRUE(unknown.LoadCheckpoint(bound).ok());
}

TEST(TrainingTest, CheckpointLoadsUnderOtherHyperparameters) {
  // PBT copies weights and then changes the learning rate, momentum or the
  // dropout rate (even from none): the layout is the same, so it must load.
  auto b = MakeCpuBackend(1);
  Splits data = ToyData(256);
  TrainConfig c = Config("mlp");
  c.dropout = 0;
  Trainer t(c, b.get(), &data);
  t.RunEpoch();
  std::string ckpt = t.SaveCheckpoint();
  TrainConfig other = c;
  other.dropout = 0.3;
  other.lr *= 1.2;
  Trainer u(other, b.get(), &data);
  Status st = u.LoadCheckpoint(ckpt);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(u.epoch(), 1);
  EXPECT_TRUE(std::isfinite(u.RunEpoch().train_loss));
}

}  // namespace
}  // namespace sweep::nn
