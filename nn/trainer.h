// Training a network on a data set (nn/data/examples.h): the model builder
// (mlp | cnn from well-known knobs; as many outputs as classes, or one for
// regression), the epoch loop with validation, the final test metrics, and
// exact checkpoints. Not thread-safe.
#pragma once

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "nn/data/examples.h"
#include "nn/evaluation.h"
#include "nn/gbdt/tree_config.h"
#include "nn/model.h"
#include "nn/optimizer.h"

namespace sweep::nn {

class AllReduce;  // nn/dist/nccl.h
class StepPool;

struct TrainConfig {
  std::string model = "mlp";  // mlp | cnn (the train task resolves "auto")
  int epochs = 10;
  int batch_size = 128;
  float lr = 0.05f;
  OptimizerConfig optimizer{OptimizerKind::kSgd, 0.9f};
  Schedule lr_schedule = Schedule::kCosine;
  float warmup_epochs = 0;
  // mlp
  int hidden_layers = 2;
  int hidden_units = 256;  // the first hidden layer's width
  bool funnel = false;     // each further layer half as wide (at least 8)
  // cnn
  int conv_blocks = 2;
  int channels = 32;
  int kernel_size = 3;
  bool max_pool = true;
  int dense_units = 128;
  // both
  Activation activation = Activation::kRelu;
  float dropout = 0;
  bool batch_norm = false;
  Augment augment = Augment::kNone;
  WeightInit init = WeightInit::kFanIn;  // hidden layers; the classifier uses Xavier
  // CPU: split each batch across this many model replicas, each with
  // single-threaded BLAS, run on 1..data_parallel threads (SetThreads);
  // gradients are summed in a fixed order (deterministic for a given count,
  // whatever the threads). Batch norm then normalises over each replica's
  // share of the batch. 1: one model, threads inside the backend.
  int data_parallel = 1;
  uint64_t seed = 0;
  TreeConfig trees;  // model gbdt
};

struct EpochResult {
  int epoch = 0;  // 1-based
  double train_loss = 0;
  Evaluation val;
  double samples_per_s = 0, epoch_seconds = 0;
  double threads = 1;  // CPU replicas: the mean threads that ran them per step
};

class Trainer {
 public:
  // `data` must outlive the trainer. `gpu_peers`: further CUDA backends (one
  // per extra GPU) for data parallelism across GPUs: each holds a replica
  // with its own parameters; every step the batch is split evenly, gradients
  // (and batch-norm statistics) are averaged with NCCL, and each replica
  // takes the same optimizer step. The batch size must divide evenly.
  Trainer(const TrainConfig& config, Backend* backend, const Splits* data,
          std::vector<Backend*> gpu_peers = {});
  ~Trainer();
  EpochResult RunEpoch();
  // Over a whole set, in eval mode.
  Evaluation Evaluate(const Examples& set);
  int epoch() const { return epoch_; }
  Model& model() { return *model_; }
  // CPU replicas (data_parallel > 1): how many threads run them, asked
  // before every step and clamped to 1..data_parallel (default: one thread
  // a replica). The results do not depend on it, only the speed: a runner
  // lends a trial the cores that idle runners leave free.
  void SetThreads(std::function<int()> threads);

  // A checkpoint: parameters, statistics, optimizer state, epoch, all under a
  // CRC-32, versioned, and bound to the architecture.
  std::string SaveCheckpoint() const;
  Status LoadCheckpoint(const std::string& bytes);

 private:
  uint64_t ArchitectureHash() const;
  TrainConfig c_;
  Backend* backend_;
  const Splits* data_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<Optimizer> optimizer_;
  int epoch_ = 0;
  Tensor batch_;
  std::vector<int32_t> labels_;
  std::vector<float> targets_;
  // Data parallelism: replica r >= 1 runs on backends_[r - 1], driven by a
  // persistent worker thread (pool_).
  std::vector<std::unique_ptr<Backend>> backends_;
  std::unique_ptr<StepPool> pool_;
  std::function<int()> threads_;
  int64_t thread_steps_ = 0;  // this epoch's threads, summed over its steps
  std::vector<std::unique_ptr<Model>> replicas_;
  std::vector<Tensor> replica_batches_;
  // Across GPUs: replica r >= 1 on gpu_peers_[r - 1], with its own optimizer.
  std::vector<Backend*> gpu_peers_;
  std::vector<std::unique_ptr<Model>> gpu_replicas_;
  std::vector<std::unique_ptr<Optimizer>> gpu_optimizers_;
  std::unique_ptr<AllReduce> all_reduce_;
  double GpuStep(const std::vector<float>& host, int bs, uint64_t step_seed, float lr);
  // Forward, backward and the optimizer update for one batch; returns the
  // summed loss.
  double Step(const std::vector<float>& host, int bs, uint64_t step_seed, float lr);
  // The same across CPU replicas: each thread builds its share of batch
  // `first..first+bs` of `order` in place, runs its replica, then sums one
  // slice of the gradients in a fixed order and updates that slice.
  double ParallelStep(const std::vector<int32_t>& order, size_t first, int bs, uint64_t step_seed,
                      float lr);
};

}  // namespace sweep::nn
