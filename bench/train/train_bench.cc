// bench/train: trains one of the benchmark networks on Fashion-MNIST with nn/
// and prints samples/s and test accuracy, one JSON object per epoch.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>

#include "nn/trainer.h"

using namespace sweep::nn;

int main(int argc, char** argv) {
  EnsurePassiveOpenMp(argv);  // as `sweep runner` does
  CLI::App app{"nn training benchmark"};
  std::string model = "mlp", dir = kDefaultFashionMnistDir;
  int epochs = 1, threads = 1, batch = 128, validation = 0;
  float lr = 0.05f, momentum = 0.9f;
  app.add_option("--model", model,
                 "mlp (784-256-256-10) or cnn (conv5x5x32-pool-conv5x5x64-pool-fc1024-fc10)");
  app.add_option("--epochs", epochs);
  app.add_option("--threads", threads);
  bool blas_threads = false;
  app.add_flag("--blas-threads", blas_threads, "Thread inside BLAS instead of splitting the batch");
  app.add_option("--batch", batch);
  app.add_option("--lr", lr);
  app.add_option("--momentum", momentum);
  app.add_option("--data-dir", dir);
  CLI11_PARSE(app, argc, argv);

  auto data = LoadMnistSplits(dir, validation, 1);
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
  c.data_parallel = blas_threads ? 1 : threads;
  auto backend = MakeCpuBackend(blas_threads ? threads : 1);
  Trainer t(c, backend.get(), &*data);
  for (int e = 0; e < epochs; ++e) {
    EpochResult r = t.RunEpoch();
    auto [test_loss, test_acc] = t.Evaluate(data->test);
    printf(
        "{\"tool\": \"sweep-nn\", \"model\": \"%s\", \"threads\": %d, \"split\": \"%s\", "
        "\"epoch\": %d, \"samples_per_s\": %.1f, "
        "\"train_loss\": %.4f, \"test_accuracy\": %.4f}\n",
        model.c_str(), threads, blas_threads ? "blas" : "batch", r.epoch, r.samples_per_s,
        r.train_loss, test_acc);
    fflush(stdout);
  }
  return 0;
}
