// Model building, the training loop and checkpoints.
#include "nn/trainer.h"

#include <zlib.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "nn/byte_fields.h"
#include "nn/dist/nccl.h"  // the interface only; the implementation needs CUDA
#include "nn/step_pool.h"

namespace sweep::nn {

namespace {

constexpr char kMagic[4] = {'S', 'W', 'C', 'K'};
// 2: the layout hash leaves out layers without state; 3: the data's
// fingerprint follows the step count (version 2 is still read, unchecked).
constexpr uint32_t kCheckpointVersion = 3;

std::unique_ptr<Model> Build(const TrainConfig& c, Backend* b, const Splits& data,
                             Model* share = nullptr) {
  const Examples& shape = data.train;
  auto m = std::make_unique<Model>(b, std::vector<int>{shape.c, shape.h, shape.w});
  auto act = [&] { return MakeActivation(c.activation, 0.01f); };
  if (c.model == "cnn") {
    int ch = c.channels;
    for (int i = 0; i < c.conv_blocks; ++i, ch *= 2) {
      m->Add(MakeConv2d(ch, c.kernel_size, 1, c.kernel_size / 2, c.init));
      if (c.batch_norm) m->Add(MakeBatchNorm());
      m->Add(act());
      m->Add(c.max_pool ? MakeMaxPool2d(2, 2) : MakeAvgPool2d(2, 2));
    }
    // Linear layers flatten their input themselves: no copy through Flatten.
    if (c.dense_units > 0) {
      m->Add(MakeLinear(c.dense_units, c.init));
      m->Add(act());
      if (c.dropout > 0) m->Add(MakeDropout(c.dropout));
    }
  } else {
    for (int i = 0, units = c.hidden_units; i < c.hidden_layers; ++i) {
      m->Add(MakeLinear(units, c.init));
      if (c.funnel) units = std::max(std::min(units, 8), units / 2);
      if (c.batch_norm) m->Add(MakeBatchNorm());
      m->Add(act());
      if (c.dropout > 0) m->Add(MakeDropout(c.dropout));
    }
  }
  m->Add(MakeLinear(data.outputs(), WeightInit::kXavier));
  m->Finalize(HashKey({c.seed, 0x3A17ULL}), share);
  return m;
}

// The summed loss of the last Forward, with gradients when `backward`.
double BatchLoss(Model& m, Problem problem, const int32_t* labels, const float* targets,
                 bool backward, int64_t* correct) {
  return problem == Problem::kRegression ? m.SquaredError(targets, backward)
                                         : m.Loss(labels, backward, correct);
}

}  // namespace

Trainer::Trainer(const TrainConfig& config, Backend* backend, const Splits* data,
                 std::vector<Backend*> gpu_peers)
    : c_(config), backend_(backend), data_(data), gpu_peers_(std::move(gpu_peers)) {
  model_ = Build(c_, backend_, *data_);
  optimizer_ = std::make_unique<Optimizer>(model_.get(), c_.optimizer);
  if (!gpu_peers_.empty()) {
#ifdef SWEEP_HAVE_CUDA
    // The same seed gives every replica the same initial weights.
    std::vector<Backend*> ranks = {backend_};
    for (Backend* b : gpu_peers_) {
      b->BindThread();
      gpu_replicas_.push_back(Build(c_, b, *data_));
      gpu_optimizers_.push_back(
          std::make_unique<Optimizer>(gpu_replicas_.back().get(), c_.optimizer));
      ranks.push_back(b);
    }
    backend_->BindThread();
    auto ar = AllReduce::Create(ranks);
    if (!ar.ok()) throw std::runtime_error(ar.status().message());
    all_reduce_ = std::move(ar).value();
    replica_batches_.resize(ranks.size());
#else
    throw std::runtime_error("data parallelism across GPUs needs a build with CUDA");
#endif
  }
  for (int r = 1; r < c_.data_parallel && backend_->device() == Device::kCpu; ++r) {
    backends_.push_back(MakeCpuBackend(1));
    replicas_.push_back(Build(c_, backends_.back().get(), *data_, model_.get()));
  }
  // One batch buffer per part of a step: CPU replicas, or GPU ranks (sized
  // above; never shrink it to the CPU count, which is 1 on CUDA).
  replica_batches_.resize(std::max(replica_batches_.size(), replicas_.size() + 1));
  if (!replicas_.empty())
    pool_ = std::make_unique<StepPool>(static_cast<int>(replicas_.size()) + 1);
}

EpochResult Trainer::RunEpoch() {
  auto start = std::chrono::steady_clock::now();
  const Examples& train = data_->train;
  std::vector<int32_t> order = EpochOrder(train.n, c_.seed, epoch_);
  const int bs = c_.batch_size;
  const int steps = train.n / bs;  // the last partial batch is dropped
  const size_t px = train.example_size();
  std::vector<float> host(static_cast<size_t>(bs) * px);
  labels_.resize(bs);
  targets_.resize(bs);
  double loss_sum = 0;
  thread_steps_ = 0;
  for (int s = 0; s < steps; ++s) {
    if (pool_) {
      uint64_t step_seed = HashKey({c_.seed, static_cast<uint64_t>(optimizer_->steps()), 0xD0ULL});
      double progress = epoch_ + static_cast<double>(s) / steps;
      loss_sum +=
          ParallelStep(order, static_cast<size_t>(s) * bs, bs, step_seed,
                       LearningRate(c_.lr_schedule, c_.lr, progress, c_.epochs, c_.warmup_epochs));
      continue;
    }
    // On the CPU with one model, the batch is built in place (no copy).
    bool direct = replicas_.empty() && backend_->device() == Device::kCpu;
    if (direct) batch_.Resize(backend_, {bs, train.c, train.h, train.w});
    MakeBatch(train, order, static_cast<size_t>(s) * bs, bs, data_->mean, data_->stddev, c_.augment,
              c_.seed, epoch_, direct ? batch_.data() : host.data(), labels_.data(),
              targets_.data());
    uint64_t step_seed = HashKey({c_.seed, static_cast<uint64_t>(optimizer_->steps()), 0xD0ULL});
    double progress = epoch_ + static_cast<double>(s) / steps;
    loss_sum += Step(host, bs, step_seed,
                     LearningRate(c_.lr_schedule, c_.lr, progress, c_.epochs, c_.warmup_epochs));
  }
  double train_secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ++epoch_;
  EpochResult r;
  r.epoch = epoch_;
  r.train_loss = loss_sum / std::max(1, steps * bs);
  r.val = Evaluate(data_->validation);
  r.samples_per_s = steps * bs / std::max(1e-9, train_secs);
  if (pool_ && steps > 0) r.threads = static_cast<double>(thread_steps_) / steps;
  r.epoch_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

Trainer::~Trainer() = default;

void Trainer::SetThreads(std::function<int()> threads) { threads_ = std::move(threads); }

double Trainer::ParallelStep(const std::vector<int32_t>& order, size_t first, int bs,
                             uint64_t step_seed, float lr) {
  const Examples& train = data_->train;
  const int parts = static_cast<int>(replicas_.size()) + 1;
  // The replicas' work is the same on any number of threads: thread t runs
  // replicas t, t + T, ..., and every gradient element is summed in replica
  // order whichever thread sums it. So T changes speed, never results.
  const int T = std::clamp(threads_ ? threads_() : parts, 1, parts);
  thread_steps_ += T;
  std::barrier sync(T);
  optimizer_->Begin();
  std::vector<double> losses(parts);
  std::vector<float> shares(parts);
  for (int r = 0; r < parts; ++r)
    shares[r] = static_cast<float>(bs * (r + 1) / parts - bs * r / parts) / static_cast<float>(bs);
  std::function<void(int)> run = [&](int t) {
    for (int r = t; r < parts; r += T) {
      Model& m = r == 0 ? *model_ : *replicas_[r - 1];
      m.backend()->BindThread();
      int begin = bs * r / parts, end = bs * (r + 1) / parts, n = end - begin;
      Tensor& x = replica_batches_[r];
      x.Resize(m.backend(), {n, train.c, train.h, train.w});
      MakeBatch(train, order, first + begin, n, data_->mean, data_->stddev, c_.augment, c_.seed,
                epoch_, x.data(), labels_.data() + begin, targets_.data() + begin);
      m.Forward(x, true, HashKey({step_seed, static_cast<uint64_t>(r)}));
      losses[r] = BatchLoss(m, data_->problem, labels_.data() + begin, targets_.data() + begin,
                            true, nullptr);
    }
    sync.arrive_and_wait();
    // Each replica's gradient is of its own mean loss: weight it by its
    // share, summing one slice per thread in a fixed order.
    size_t np = model_->param_count();
    size_t lo = np * t / T, hi = np * (t + 1) / T;
    float* g0 = model_->grads();
    for (size_t i = lo; i < hi; ++i) g0[i] *= shares[0];
    for (int o = 1; o < parts; ++o) {
      const float* go = replicas_[o - 1]->grads();
      const float so = shares[o];
      for (size_t i = lo; i < hi; ++i) g0[i] += so * go[i];
    }
    optimizer_->Update(lr, lo, hi);
  };
  pool_->Run(run, T);
  // Batch-norm statistics are averaged over the replicas, in a fixed order.
  float* s0 = model_->state();
  const float inv = 1.f / static_cast<float>(parts);
  for (size_t i = 0; i < model_->state_count(); ++i) s0[i] *= inv;
  double loss = losses[0];
  for (int r = 1; r < parts; ++r) {
    const float* st = replicas_[r - 1]->state();
    for (size_t i = 0; i < model_->state_count(); ++i) s0[i] += inv * st[i];
    loss += losses[r];
  }
  for (int r = 1; r < parts; ++r) {
    std::copy(s0, s0 + model_->state_count(), replicas_[r - 1]->state());
  }
  return loss;
}

double Trainer::GpuStep(const std::vector<float>& host, int bs, uint64_t step_seed, float lr) {
#ifdef SWEEP_HAVE_CUDA
  const Examples& train = data_->train;
  const size_t px = train.example_size();
  const int parts = static_cast<int>(gpu_replicas_.size()) + 1;
  const int n = bs / parts;
  double loss = 0;
  std::vector<float*> grads, states;
  for (int r = 0; r < parts; ++r) {
    Model& m = r == 0 ? *model_ : *gpu_replicas_[r - 1];
    m.backend()->BindThread();
    Tensor& x = replica_batches_[r];
    x.Resize(m.backend(), {n, train.c, train.h, train.w});
    m.backend()->FromHost(host.data() + static_cast<size_t>(r) * n * px, x.data(), n * px);
    m.Forward(x, true, HashKey({step_seed, static_cast<uint64_t>(r)}));
    const size_t at = static_cast<size_t>(r) * n;
    loss += BatchLoss(m, data_->problem, labels_.data() + at, targets_.data() + at, true, nullptr);
    grads.push_back(m.grads());
    states.push_back(m.state());
  }
  // Equal shares: the mean of the replicas' gradients is the gradient of the
  // whole batch's mean loss.
  Status st = all_reduce_->Average(grads, model_->param_count());
  if (st.ok() && model_->state_count() > 0)
    st = all_reduce_->Average(states, model_->state_count());
  if (!st.ok()) throw std::runtime_error(st.message());
  for (int r = 0; r < parts; ++r) {
    (r == 0 ? *model_ : *gpu_replicas_[r - 1]).backend()->BindThread();
    (r == 0 ? *optimizer_ : *gpu_optimizers_[r - 1]).Step(lr);
  }
  backend_->BindThread();
  return loss;
#else
  return 0;
#endif
}

// One model (several CPU replicas go through ParallelStep, several GPUs
// through GpuStep).
double Trainer::Step(const std::vector<float>& host, int bs, uint64_t step_seed, float lr) {
  if (all_reduce_) return GpuStep(host, bs, step_seed, lr);
  const Examples& train = data_->train;
  if (backend_->device() != Device::kCpu) {  // else RunEpoch built it in place
    batch_.Resize(backend_, {bs, train.c, train.h, train.w});
    batch_.FromHost(host);
  }
  model_->Forward(batch_, true, step_seed);
  double loss = BatchLoss(*model_, data_->problem, labels_.data(), targets_.data(), true, nullptr);
  optimizer_->Step(lr);
  return loss;
}

Evaluation Trainer::Evaluate(const Examples& set) {
  const bool regression = data_->problem == Problem::kRegression;
  const int bs = 500;
  const size_t px = set.example_size();
  std::vector<int32_t> order(set.n);
  for (int i = 0; i < set.n; ++i) order[i] = i;
  std::vector<float> host(static_cast<size_t>(bs) * px), out;
  std::vector<int32_t> labels(bs);
  std::vector<float> targets(bs);
  const int k = data_->outputs();
  EvaluationSum sum(*data_);
  for (int begin = 0; begin < set.n; begin += bs) {
    int n = std::min(bs, set.n - begin);
    MakeBatch(set, order, begin, n, data_->mean, data_->stddev, Augment::kNone, 0, 0, host.data(),
              labels.data(), targets.data());
    batch_.Resize(backend_, {n, set.c, set.h, set.w});
    backend_->FromHost(host.data(), batch_.data(), n * px);
    model_->Forward(batch_, false, 0);
    sum.AddLoss(BatchLoss(*model_, data_->problem, labels.data(), targets.data(), false, nullptr));
    model_->Outputs(&out);
    for (int i = 0; i < n; ++i) {
      if (regression)
        sum.AddTarget(out[i], targets[i]);
      else
        sum.AddClass(out.data() + static_cast<size_t>(i) * k, labels[i]);
    }
  }
  return sum.Done();
}

uint64_t Trainer::ArchitectureHash() const {
  // The layout of what a checkpoint holds (layers with parameters or state,
  // and the optimizer's state), not the whole network: dropout rates and the
  // like may differ, as when PBT perturbs them after copying weights.
  std::string s = model_->Layout() + "|" + std::to_string(optimizer_->state_size());
  return HashKey(
      {static_cast<uint64_t>(crc32(0, reinterpret_cast<const Bytef*>(s.data()), s.size())),
       s.size()});
}

std::string Trainer::SaveCheckpoint() const {
  std::string out(kMagic, 4);
  PutField(&out, kCheckpointVersion);
  PutField(&out, ArchitectureHash());
  PutField(&out, static_cast<int64_t>(epoch_));
  PutField(&out, optimizer_->steps());
  PutField(&out, data_->fingerprint);
  auto put_floats = [&](const std::vector<float>& v) {
    PutField(&out, static_cast<uint64_t>(v.size()));
    out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
  };
  std::vector<float> p(model_->param_count()), s(model_->state_count());
  backend_->ToHost(model_->params(), p.data(), p.size());
  backend_->ToHost(model_->state(), s.data(), s.size());
  put_floats(p);
  put_floats(s);
  put_floats(optimizer_->SaveState());
  uint32_t crc =
      static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(out.data()), out.size()));
  PutField(&out, crc);
  return out;
}

Status Trainer::LoadCheckpoint(const std::string& in) {
  if (in.size() < 8 || std::memcmp(in.data(), kMagic, 4) != 0)
    return Status::Corruption("checkpoint: not a sweep checkpoint");
  uint32_t crc_stored;
  std::memcpy(&crc_stored, in.data() + in.size() - 4, 4);
  uint32_t crc =
      static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(in.data()), in.size() - 4));
  if (crc != crc_stored)
    return Status::Corruption("checkpoint: checksum mismatch (the file is corrupt)");
  size_t pos = 4;
  uint32_t version = 0;
  uint64_t arch;
  int64_t epoch, steps;
  if (!GetField(in, &pos, &version) || (version != kCheckpointVersion && version != 2)) {
    return Status::FailedPrecondition("checkpoint: format version " + std::to_string(version) +
                                      " is not supported (expected " +
                                      std::to_string(kCheckpointVersion) + ")");
  }
  if (!GetField(in, &pos, &arch) || arch != ArchitectureHash()) {
    return Status::FailedPrecondition(
        "checkpoint: written for a different model or optimizer than this trial's");
  }
  uint64_t data = 0;
  if (!GetField(in, &pos, &epoch) || !GetField(in, &pos, &steps) ||
      (version >= 3 && !GetField(in, &pos, &data)))
    return Status::Corruption("checkpoint: truncated header");
  if (data && data_->fingerprint && data != data_->fingerprint) {
    return Status::FailedPrecondition(
        "checkpoint: written for other data than this trial's (the data files, or how they are "
        "read, changed since it trained)");
  }
  if (epoch < 0 || epoch > std::numeric_limits<int>::max() || steps < 0)
    return Status::Corruption("checkpoint: a negative or impossible epoch or step count");
  // Each block's length is checked against this model and what is left of
  // the file before anything is allocated: a hostile length (2^61 floats,
  // whose byte count wraps around) must not reach resize (bench/fuzz found
  // it).
  const size_t want[3] = {model_->param_count(), model_->state_count(), optimizer_->state_size()};
  std::vector<float> blocks[3];
  for (int k = 0; k < 3; ++k) {
    uint64_t n;
    if (!GetField(in, &pos, &n)) return Status::Corruption("checkpoint: truncated");
    if (n != want[k])
      return Status::InvalidArgument("checkpoint: buffer sizes do not match this model");
    if (pos > in.size() - 4 || n > (in.size() - 4 - pos) / sizeof(float))
      return Status::Corruption("checkpoint: truncated");
    blocks[k].resize(n);
    if (n) std::memcpy(blocks[k].data(), in.data() + pos, n * sizeof(float));
    pos += n * sizeof(float);
  }
  if (pos != in.size() - 4) return Status::Corruption("checkpoint: bytes after the last block");
  backend_->FromHost(blocks[0].data(), model_->params(), blocks[0].size());
  backend_->FromHost(blocks[1].data(), model_->state(), blocks[1].size());
  optimizer_->LoadState(blocks[2], steps);
  for (auto& r : replicas_) backend_->Copy(model_->state(), r->state(), model_->state_count());
  for (size_t r = 0; r < gpu_replicas_.size(); ++r) {
    Backend* b = gpu_replicas_[r]->backend();
    b->BindThread();
    b->FromHost(blocks[0].data(), gpu_replicas_[r]->params(), blocks[0].size());
    b->FromHost(blocks[1].data(), gpu_replicas_[r]->state(), blocks[1].size());
    gpu_optimizers_[r]->LoadState(blocks[2], steps);
  }
  backend_->BindThread();
  epoch_ = static_cast<int>(epoch);
  return Status::Ok();
}

}  // namespace sweep::nn
