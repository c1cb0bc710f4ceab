// The CUDA backend against the CPU backend, op by op, then optimizer steps,
// a short training run, checkpoints moved between backends, and the NCCL
// all-reduce. ctest label `gpu`; without a visible CUDA device every test
// skips with a message (ctest reports them as skipped, not passed).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <vector>

#include "common/rng.h"
#include "nn/backend.h"
#include "nn/dist/nccl.h"
#include "nn/toy_data.h"
#include "nn/trainer.h"

namespace sweep::nn {
namespace {

class CudaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (CudaDeviceCount() == 0) {
      // Say why: no device, or a module that did not load (a missing
      // libcudnn.so.9 reads differently from an empty machine).
      GTEST_SKIP() << "GPU test skipped: " << MakeCudaBackend(0).status().message();
    }
    auto b = MakeCudaBackend(0);
    ASSERT_TRUE(b.ok()) << b.status().message();
    gpu_ = std::move(b).value();
    cpu_ = MakeCpuBackend(1);
  }

  std::vector<float> Random(size_t n, uint64_t seed, float scale = 1.f) {
    Rng r(seed);
    std::vector<float> v(n);
    for (auto& x : v) x = static_cast<float>(r.Normal()) * scale;
    return v;
  }

  // Device copies of host data on both backends. Made in place and never
  // copied: it owns its buffers. (It was built as a temporary and copied,
  // so the temporary's destructor freed both buffers the copy went on to
  // use; the first run on a GPU aborted with a corrupt heap.)
  struct Pair {
    Pair(Backend* cpu_backend, Backend* gpu_backend, size_t size)
        : cpu(cpu_backend), gpu(gpu_backend), c(cpu->Alloc(size)), g(gpu->Alloc(size)), n(size) {}
    Pair(const Pair&) = delete;
    Pair& operator=(const Pair&) = delete;
    ~Pair() {
      cpu->Free(c);
      gpu->Free(g);
    }
    Backend* cpu;
    Backend* gpu;
    float* c;
    float* g;
    size_t n;
  };
  std::unique_ptr<Pair> Both(const std::vector<float>& host) {
    auto p = std::make_unique<Pair>(cpu_.get(), gpu_.get(), host.size());
    cpu_->FromHost(host.data(), p->c, host.size());
    gpu_->FromHost(host.data(), p->g, host.size());
    return p;
  }
  std::unique_ptr<Pair> Zeros(size_t n) { return Both(std::vector<float>(n, 0.f)); }

  // Max relative error between the two sides, relative to the largest value.
  void ExpectClose(const Pair& p, double tol, const char* what) {
    std::vector<float> a(p.n), b(p.n);
    cpu_->ToHost(p.c, a.data(), p.n);
    gpu_->ToHost(p.g, b.data(), p.n);
    double scale = 1e-6, worst = 0;
    for (float x : a) scale = std::max(scale, static_cast<double>(std::fabs(x)));
    for (size_t i = 0; i < p.n; ++i) worst = std::max(worst, std::fabs(a[i] - b[i]) / scale);
    EXPECT_LE(worst, tol) << what << ": worst relative difference " << worst;
  }

  std::unique_ptr<Backend> cpu_, gpu_;
};

TEST_F(CudaTest, GemmAllTranspositions) {
  const int m = 37, n = 29, k = 53;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      auto a = Both(Random(static_cast<size_t>(m) * k, 1));
      auto b = Both(Random(static_cast<size_t>(k) * n, 2));
      auto c = Both(Random(static_cast<size_t>(m) * n, 3));
      cpu_->Gemm(ta, tb, m, n, k, 0.7f, a->c, b->c, 0.3f, c->c);
      gpu_->Gemm(ta, tb, m, n, k, 0.7f, a->g, b->g, 0.3f, c->g);
      ExpectClose(*c, 1e-5, ta ? (tb ? "gemm TT" : "gemm TN") : (tb ? "gemm NT" : "gemm NN"));
    }
  }
}

TEST_F(CudaTest, BiasAndBiasGrad) {
  auto y = Both(Random(64 * 10, 4));
  auto bias = Both(Random(10, 5));
  cpu_->AddBias(y->c, bias->c, 64, 10);
  gpu_->AddBias(y->g, bias->g, 64, 10);
  ExpectClose(*y, 1e-6, "AddBias");
  auto db = Zeros(10);
  cpu_->BiasGrad(y->c, db->c, 64, 10);
  gpu_->BiasGrad(y->g, db->g, 64, 10);
  ExpectClose(*db, 1e-6, "BiasGrad");
}

TEST_F(CudaTest, ConvolutionForwardAndBackward) {
  for (auto [k, stride, pad] : {std::tuple{3, 1, 1}, std::tuple{5, 1, 2}, std::tuple{3, 2, 0}}) {
    Window g;
    g.n = 4, g.c = 3, g.h = 12, g.w = 11, g.k = k, g.stride = stride, g.pad = pad, g.oc = 8;
    size_t out = static_cast<size_t>(g.n) * g.oc * g.OutH() * g.OutW();
    auto x = Both(Random(static_cast<size_t>(g.n) * g.c * g.h * g.w, 6));
    auto w = Both(Random(static_cast<size_t>(g.oc) * g.c * k * k, 7, 0.3f));
    auto b = Both(Random(g.oc, 8));
    auto y = Zeros(out);
    std::vector<float> ws_c(cpu_->ConvWorkspace(g) + 1);
    float* wsc = cpu_->Alloc(cpu_->ConvWorkspace(g) + 1);
    float* wsg = gpu_->Alloc(gpu_->ConvWorkspace(g) + 1);
    cpu_->Conv2dForward(g, x->c, w->c, b->c, y->c, wsc);
    gpu_->Conv2dForward(g, x->g, w->g, b->g, y->g, wsg);
    // cuDNN may use TF32 tensor cores for FP32 convolutions (as PyTorch does).
    ExpectClose(*y, 5e-3, "conv forward");
    auto dy = Both(Random(out, 9));
    auto dx = Zeros(x->n);
    auto dw = Zeros(w->n);
    auto db = Zeros(b->n);
    cpu_->Conv2dBackward(g, x->c, w->c, dy->c, dx->c, dw->c, db->c, wsc);
    gpu_->Conv2dBackward(g, x->g, w->g, dy->g, dx->g, dw->g, db->g, wsg);
    ExpectClose(*dx, 5e-3, "conv dx");
    ExpectClose(*dw, 5e-3, "conv dw");
    ExpectClose(*db, 1e-5, "conv db");
    cpu_->Free(wsc);
    gpu_->Free(wsg);
  }
}

TEST_F(CudaTest, PoolingForwardAndBackward) {
  Window g;
  g.n = 3, g.c = 4, g.h = 9, g.w = 8, g.k = 2, g.stride = 2, g.pad = 0;
  size_t in = static_cast<size_t>(g.n) * g.c * g.h * g.w;
  size_t out = static_cast<size_t>(g.n) * g.c * g.OutH() * g.OutW();
  auto x = Both(Random(in, 10));
  auto y = Zeros(out);
  auto arg = Zeros(out);  // int32 indices in a float-sized buffer, as the layer does
  cpu_->MaxPoolForward(g, x->c, y->c, reinterpret_cast<int32_t*>(arg->c));
  gpu_->MaxPoolForward(g, x->g, y->g, reinterpret_cast<int32_t*>(arg->g));
  ExpectClose(*y, 0, "max pool forward");
  auto dy = Both(Random(out, 11));
  auto dx = Zeros(in);
  cpu_->MaxPoolBackward(g, dy->c, reinterpret_cast<int32_t*>(arg->c), dx->c);
  gpu_->MaxPoolBackward(g, dy->g, reinterpret_cast<int32_t*>(arg->g), dx->g);
  ExpectClose(*dx, 0, "max pool backward");
  auto ay = Zeros(out);
  cpu_->AvgPoolForward(g, x->c, ay->c);
  gpu_->AvgPoolForward(g, x->g, ay->g);
  ExpectClose(*ay, 1e-6, "avg pool forward");
  auto adx = Zeros(in);
  cpu_->AvgPoolBackward(g, dy->c, adx->c);
  gpu_->AvgPoolBackward(g, dy->g, adx->g);
  ExpectClose(*adx, 1e-6, "avg pool backward");
}

TEST_F(CudaTest, ActivationsDropoutAndMul) {
  const size_t n = 5000;
  auto x = Both(Random(n, 12, 2.f));
  auto dy = Both(Random(n, 13));
  for (Activation a :
       {Activation::kRelu, Activation::kLeakyRelu, Activation::kTanh, Activation::kGelu}) {
    auto y = Zeros(n);
    auto dx = Zeros(n);
    cpu_->ActivationForward(a, 0.1f, x->c, y->c, n);
    gpu_->ActivationForward(a, 0.1f, x->g, y->g, n);
    ExpectClose(*y, 1e-5, "activation forward");
    cpu_->ActivationBackward(a, 0.1f, x->c, dy->c, dx->c, n);
    gpu_->ActivationBackward(a, 0.1f, x->g, dy->g, dx->g, n);
    ExpectClose(*dx, 1e-5, "activation backward");
  }
  auto y = Zeros(n);
  auto mask = Zeros(n);
  cpu_->DropoutForward(0.3f, 77, x->c, y->c, mask->c, n);
  gpu_->DropoutForward(0.3f, 77, x->g, y->g, mask->g, n);
  ExpectClose(*mask, 0, "dropout mask (the same draws on both)");
  ExpectClose(*y, 1e-6, "dropout output");
  auto z = Zeros(n);
  cpu_->Mul(x->c, dy->c, z->c, n);
  gpu_->Mul(x->g, dy->g, z->g, n);
  ExpectClose(*z, 1e-6, "mul");
}

TEST_F(CudaTest, BatchNormTrainEvalAndBackward) {
  const int n = 8, c = 5, hw = 12;
  const size_t total = static_cast<size_t>(n) * c * hw;
  auto x = Both(Random(total, 14, 3.f));
  auto gamma = Both(Random(c, 15));
  auto beta = Both(Random(c, 16));
  auto y = Zeros(total);
  auto mean = Zeros(c), invstd = Zeros(c);
  auto run_mean = Zeros(c);
  auto run_var = Both(std::vector<float>(c, 1.f));
  cpu_->BatchNormTrain(n, c, hw, 0.1f, 1e-5f, x->c, gamma->c, beta->c, y->c, mean->c, invstd->c,
                       run_mean->c, run_var->c);
  gpu_->BatchNormTrain(n, c, hw, 0.1f, 1e-5f, x->g, gamma->g, beta->g, y->g, mean->g, invstd->g,
                       run_mean->g, run_var->g);
  ExpectClose(*y, 1e-4, "bn train y");
  ExpectClose(*mean, 1e-5, "bn saved mean");
  ExpectClose(*invstd, 1e-4, "bn saved invstd");
  ExpectClose(*run_mean, 1e-5, "bn running mean");
  ExpectClose(*run_var, 1e-4, "bn running var (unbiased)");
  auto dy = Both(Random(total, 17));
  auto dx = Zeros(total), dg = Zeros(c), dbeta = Zeros(c);
  cpu_->BatchNormBackward(false, n, c, hw, 1e-5f, x->c, gamma->c, mean->c, invstd->c, dy->c, dx->c,
                          dg->c, dbeta->c);
  gpu_->BatchNormBackward(false, n, c, hw, 1e-5f, x->g, gamma->g, mean->g, invstd->g, dy->g, dx->g,
                          dg->g, dbeta->g);
  ExpectClose(*dx, 1e-4, "bn dx");
  ExpectClose(*dg, 1e-4, "bn dgamma");
  ExpectClose(*dbeta, 1e-5, "bn dbeta");
  auto ye = Zeros(total);
  cpu_->BatchNormEval(n, c, hw, 1e-5f, x->c, gamma->c, beta->c, run_mean->c, run_var->c, ye->c);
  gpu_->BatchNormEval(n, c, hw, 1e-5f, x->g, gamma->g, beta->g, run_mean->g, run_var->g, ye->g);
  ExpectClose(*ye, 1e-4, "bn eval y");
  cpu_->BatchNormBackward(true, n, c, hw, 1e-5f, x->c, gamma->c, run_mean->c, run_var->c, dy->c,
                          dx->c, dg->c, dbeta->c);
  gpu_->BatchNormBackward(true, n, c, hw, 1e-5f, x->g, gamma->g, run_mean->g, run_var->g, dy->g,
                          dx->g, dg->g, dbeta->g);
  ExpectClose(*dx, 1e-4, "bn eval dx");
  ExpectClose(*dg, 1e-4, "bn eval dgamma");
}

TEST_F(CudaTest, SoftmaxCrossEntropy) {
  const int n = 50, classes = 10;
  auto z = Both(Random(static_cast<size_t>(n) * classes, 18, 3.f));
  std::vector<int32_t> labels(n);
  for (int i = 0; i < n; ++i) labels[i] = (i * 7) % classes;
  auto d = Zeros(static_cast<size_t>(n) * classes);
  double lc = 0, lg = 0;
  int64_t cc = 0, cg = 0;
  cpu_->SoftmaxCrossEntropy(z->c, labels.data(), n, classes, d->c, &lc, &cc);
  gpu_->SoftmaxCrossEntropy(z->g, labels.data(), n, classes, d->g, &lg, &cg);
  EXPECT_NEAR(lc, lg, 1e-6 * std::fabs(lc));
  EXPECT_EQ(cc, cg);
  ExpectClose(*d, 1e-5, "dlogits");
}

TEST_F(CudaTest, OptimizerSteps) {
  const size_t n = 3000;
  for (auto [momentum, nesterov] : {std::pair{0.f, false}, {0.9f, false}, {0.9f, true}}) {
    auto p = Both(Random(n, 19));
    auto g = Both(Random(n, 20));
    auto v = Both(Random(n, 21));
    for (int s = 0; s < 3; ++s) {
      cpu_->SgdStep(p->c, g->c, v->c, n, 0.05f, momentum, nesterov, 1e-4f);
      gpu_->SgdStep(p->g, g->g, v->g, n, 0.05f, momentum, nesterov, 1e-4f);
    }
    ExpectClose(*p, 1e-6, "sgd params");
    ExpectClose(*v, 1e-6, "sgd velocity");
  }
  for (bool decoupled : {false, true}) {
    auto p = Both(Random(n, 22));
    auto g = Both(Random(n, 23));
    auto m = Zeros(n), v = Zeros(n);
    for (int t = 1; t <= 3; ++t) {
      cpu_->AdamStep(p->c, g->c, m->c, v->c, n, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, decoupled, t);
      gpu_->AdamStep(p->g, g->g, m->g, v->g, n, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, decoupled, t);
    }
    ExpectClose(*p, 1e-5, decoupled ? "adamw params" : "adam params");
  }
}

std::pair<double, double> LossAccuracy(const Evaluation& e) { return {e.loss, e.accuracy}; }

TrainConfig ToyConfig(const std::string& model) {
  TrainConfig c;
  c.model = model;
  c.epochs = 3;
  c.batch_size = 32;
  c.hidden_layers = 1;
  c.hidden_units = 32;
  c.conv_blocks = 1;
  c.channels = 8;
  c.dense_units = 16;
  c.batch_norm = true;
  c.seed = 5;
  return c;
}

TEST_F(CudaTest, TrainingOnTheGpuLowersTheLoss) {
  Splits data = ToyData(512);
  for (const char* model : {"mlp", "cnn"}) {
    Trainer t(ToyConfig(model), gpu_.get(), &data);
    double first = t.RunEpoch().train_loss;
    EpochResult last;
    for (int e = 1; e < 3; ++e) last = t.RunEpoch();
    EXPECT_LT(last.train_loss, first) << model;
    EXPECT_GT(last.val.accuracy, 0.5) << model;
  }
}

TEST_F(CudaTest, CheckpointsMoveBetweenBackends) {
  Splits data = ToyData(512);
  for (const char* model : {"mlp", "cnn"}) {
    TrainConfig c = ToyConfig(model);
    Trainer cpu_trainer(c, cpu_.get(), &data);
    cpu_trainer.RunEpoch();
    auto [cl, ca] = LossAccuracy(cpu_trainer.Evaluate(data.test));
    Trainer gpu_trainer(c, gpu_.get(), &data);
    Status st = gpu_trainer.LoadCheckpoint(cpu_trainer.SaveCheckpoint());
    ASSERT_TRUE(st.ok()) << st.message();
    auto [gl, ga] = LossAccuracy(gpu_trainer.Evaluate(data.test));
    EXPECT_NEAR(gl, cl, 1e-3 * std::fabs(cl)) << model << ": CPU checkpoint on the GPU";
    EXPECT_NEAR(ga, ca, 0.011) << model;
    gpu_trainer.RunEpoch();
    auto [gl2, ga2] = LossAccuracy(gpu_trainer.Evaluate(data.test));
    Trainer back(c, cpu_.get(), &data);
    st = back.LoadCheckpoint(gpu_trainer.SaveCheckpoint());
    ASSERT_TRUE(st.ok()) << st.message();
    auto [bl, ba] = LossAccuracy(back.Evaluate(data.test));
    EXPECT_NEAR(bl, gl2, 1e-3 * std::fabs(gl2)) << model << ": GPU checkpoint on the CPU";
    EXPECT_NEAR(ba, ga2, 0.011) << model;
    EXPECT_EQ(back.epoch(), 2);
  }
}

TEST_F(CudaTest, NcclAllReduceAveragesAcrossRanks) {
  std::vector<std::unique_ptr<Backend>> owned;
  std::vector<Backend*> ranks;
  for (int d = 0; d < CudaDeviceCount(); ++d) {
    auto b = MakeCudaBackend(d);
    ASSERT_TRUE(b.ok()) << b.status().message();
    owned.push_back(std::move(b).value());
    ranks.push_back(owned.back().get());
  }
  auto ar = AllReduce::Create(ranks);
  ASSERT_TRUE(ar.ok()) << ar.status().message();
  const size_t n = 1000;
  std::vector<float*> bufs;
  std::vector<float> expect(n, 0.f);
  for (size_t r = 0; r < ranks.size(); ++r) {
    auto host = Random(n, 100 + r);
    for (size_t i = 0; i < n; ++i) expect[i] += host[i] / static_cast<float>(ranks.size());
    ranks[r]->BindThread();
    bufs.push_back(ranks[r]->Alloc(n));
    ranks[r]->FromHost(host.data(), bufs.back(), n);
  }
  ASSERT_TRUE((*ar)->Average(bufs, n).ok());
  for (size_t r = 0; r < ranks.size(); ++r) {
    std::vector<float> got(n);
    ranks[r]->BindThread();
    ranks[r]->ToHost(bufs[r], got.data(), n);
    for (size_t i = 0; i < n; ++i) ASSERT_NEAR(got[i], expect[i], 1e-5) << "rank " << r;
    ranks[r]->Free(bufs[r]);
  }
  std::cout << "NCCL all-reduce checked on " << ranks.size() << " rank(s)\n";
}

TEST_F(CudaTest, DataParallelAcrossGpusMatchesOneGpu) {
  if (CudaDeviceCount() < 2) GTEST_SKIP() << "needs 2 GPUs; " << CudaDeviceCount() << " visible";
  Splits data = ToyData(512);
  TrainConfig c = ToyConfig("mlp");
  c.batch_norm = false;  // per-replica statistics differ from whole-batch ones by design
  Trainer one(c, gpu_.get(), &data);
  auto second = MakeCudaBackend(1);
  ASSERT_TRUE(second.ok());
  auto first = MakeCudaBackend(0);
  ASSERT_TRUE(first.ok());
  Trainer two(c, first->get(), &data, {second->get()});
  EpochResult a = one.RunEpoch(), b = two.RunEpoch();
  // Same global batch, gradients averaged: equal up to summation order.
  EXPECT_NEAR(a.train_loss, b.train_loss, 1e-3 * std::fabs(a.train_loss));
  EXPECT_NEAR(a.val.accuracy, b.val.accuracy, 0.011);
}

TEST_F(CudaTest, OutOfMemoryIsAnErrorNotACrash) {
  EXPECT_THROW(gpu_->Alloc(size_t{1} << 40), std::exception);  // 4 TiB
  // The backend is still usable afterwards.
  auto x = Both(Random(100, 30));
  auto y = Zeros(100);
  gpu_->ActivationForward(Activation::kRelu, 0, x->g, y->g, 100);
  cpu_->ActivationForward(Activation::kRelu, 0, x->c, y->c, 100);
  ExpectClose(*y, 0, "relu after an allocation failure");
}

}  // namespace
}  // namespace sweep::nn
