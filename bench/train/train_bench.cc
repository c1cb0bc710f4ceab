// bench/train: trains one of the benchmark networks on Fashion-MNIST with nn/
// and prints samples/s and test accuracy, one JSON object per epoch.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "common/rng.h"
#include "nn/data/mnist.h"
#include "nn/trainer.h"

using namespace sweep::nn;

int main(int argc, char** argv) {
  EnsureTrainingEnvironment(argv);  // as `sweep runner` does
  CLI::App app{"nn training benchmark"};
  std::string model = "mlp", dir = kDefaultFashionMnistDir;
  int epochs = 1, threads = 1, batch = 128, validation = 0;
  float lr = 0.05f, momentum = 0.9f;
  app.add_option("--model", model,
                 "mlp (784-256-256-10) or cnn (conv5x5x32-pool-conv5x5x64-pool-fc1024-fc10)");
  app.add_option("--epochs", epochs);
  app.add_option("--threads", threads);
  int replicas = 0;
  app.add_option("--replicas", replicas,
                 "Model replicas the batch is split across (default: --threads); run on --threads "
                 "threads, with the same results for any thread count");
  bool blas_threads = false;
  app.add_flag("--blas-threads", blas_threads, "Thread inside BLAS instead of splitting the batch");
  app.add_option("--batch", batch);
  app.add_option("--lr", lr);
  app.add_option("--momentum", momentum);
  app.add_option("--data-dir", dir);
  std::string backend_name = "cpu";
  int device = 0;
  app.add_option("--backend", backend_name, "cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}));
  app.add_option("--device", device, "CUDA device");
  bool synthetic = false;
  app.add_flag("--synthetic", synthetic,
               "Random 28x28 images in place of Fashion-MNIST (throughput only; for machines "
               "without the data set)");
  CLI11_PARSE(app, argc, argv);

  sweep::Result<Splits> data = sweep::Status::Unknown("");
  if (synthetic) {
    Splits s;
    auto make = [](int n, uint64_t seed) {
      Examples set;
      set.n = n;
      set.h = set.w = 28;
      set.pixels.resize(static_cast<size_t>(n) * 784);
      set.labels.resize(n);
      sweep::Rng r(seed);
      for (auto& p : set.pixels) p = static_cast<uint8_t>(r.Next());
      for (auto& l : set.labels) l = static_cast<int32_t>(r.Next() % 10);
      return set;
    };
    s.train = make(60000, 1);
    s.test = make(10000, 2);
    s.mean = 0.5f;
    s.stddev = 0.29f;
    data = std::move(s);
  } else {
    data = LoadMnistSplits(dir, validation, 1);
  }
  if (!data.ok()) {
    fprintf(stderr, "%s\n", data.status().message().c_str());
    return 1;
  }
  TrainConfig c;
  c.model = model;
  c.epochs = epochs;
  c.batch_size = batch;
  c.lr = lr;
  c.optimizer = {OptimizerKind::kSgd, momentum};
  c.lr_schedule = Schedule::kConstant;  // as the PyTorch peer
  c.hidden_layers = 2;
  c.hidden_units = 256;
  c.conv_blocks = 2;
  c.channels = 32;
  c.kernel_size = 5;
  c.dense_units = 1024;
  c.seed = 1;
  c.data_parallel = blas_threads ? 1 : std::max(threads, replicas);
  std::unique_ptr<Backend> backend;
  if (backend_name == "cuda") {
    auto b = MakeCudaBackend(device);
    if (!b.ok()) {
      fprintf(stderr, "%s\n", b.status().message().c_str());
      return 1;
    }
    backend = std::move(b).value();
    c.data_parallel = 1;
  } else {
    backend = MakeCpuBackend(blas_threads ? threads : 1);
  }
  Trainer t(c, backend.get(), &*data);
  t.SetThreads([threads] { return threads; });
  for (int e = 0; e < epochs; ++e) {
    EpochResult r = t.RunEpoch();
    const double test_acc = t.Evaluate(data->test).accuracy;
    printf(
        "{\"tool\": \"sweep-nn\", \"backend\": \"%s\", \"model\": \"%s\", \"threads\": %d, "
        "\"split\": \"%s\", \"replicas\": %d, \"epoch\": %d, \"samples_per_s\": %.1f, "
        "\"train_loss\": %.4f, \"test_accuracy\": %.4f}\n",
        backend->Describe().c_str(), model.c_str(), threads, blas_threads ? "blas" : "batch",
        c.data_parallel, r.epoch, r.samples_per_s, r.train_loss, test_acc);
    fflush(stdout);
  }
  return 0;
}
