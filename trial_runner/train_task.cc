// Train task: knobs -> TrainConfig -> epochs with reports and checkpoints.
#include "trial_runner/train_task.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <mutex>
#include <string_view>
#include <thread>
#include <utility>

#include "common/train_knobs.h"
#include "common/values.h"
#include "nn/cuda/cuda_error.h"
#include "nn/data/data_source.h"
#include "nn/data/mnist.h"
#include "trial_runner/fold_checkpoint.h"
#include "trial_runner/train_metrics.h"
#include "trial_runner/tree_task.h"

namespace sweep {

namespace {

// Values of one knob: the trial's parameter, else the task's fixed value,
// else the default in common/train_knobs.cc.
class Knobs {
 public:
  explicit Knobs(const pb::Assign& a) : t_(a.task().train()) {
    for (const auto& p : a.params()) params_[p.name()] = p.value();
  }
  // Whether the trial or task.train sets the knob.
  bool Has(std::string_view name) const {
    return params_.count(std::string(name)) || FixedTrainKnob(t_, Knob(name));
  }
  template <typename T>
  T Get(std::string_view name) const {
    return GetOr<T>(name, FromValue(TrainKnobDefault(Knob(name)), T{}));
  }
  // For the knobs whose default depends on other knobs or on the trial.
  template <typename T>
  T GetOr(std::string_view name, T def) const {
    auto it = params_.find(std::string(name));
    if (it != params_.end()) return FromValue(it->second, def);
    auto fixed = FixedTrainKnob(t_, Knob(name));
    return fixed ? FromValue(*fixed, def) : def;
  }

 private:
  // The table names every knob this file reads; a miss is a programming error.
  static const TrainKnob& Knob(std::string_view name) {
    const TrainKnob* k = FindTrainKnob(name);
    if (!k) {
      std::fprintf(stderr, "train task reads '%s', which is not in the knob table\n",
                   std::string(name).c_str());
      std::abort();
    }
    return *k;
  }
  static double AsNumber(const pb::Value& v, double def) {
    double d;
    return ValueAsDouble(v, &d) ? d : def;
  }
  static int FromValue(const pb::Value& v, int def) {
    return static_cast<int>(std::lround(AsNumber(v, def)));
  }
  static double FromValue(const pb::Value& v, double def) { return AsNumber(v, def); }
  static bool FromValue(const pb::Value& v, bool def) {
    if (v.kind_case() == pb::Value::kFlag) return v.flag();
    if (v.kind_case() == pb::Value::kText) return v.text() == "true";
    return AsNumber(v, def ? 1 : 0) != 0;
  }
  static std::string FromValue(const pb::Value& v, std::string def) {
    return v.kind_case() == pb::Value::kText ? v.text() : ValueToString(v);
  }
  const pb::TrainTask& t_;
  std::map<std::string, pb::Value> params_;
};

// Maps a word knob's value to its setting. The accepted words come from the
// knob table: validation rejects others, and one that reaches a runner anyway
// (a study stored by an older sweep, a hand-made assignment) fails the trial
// rather than training the default. `meaning` must cover the table's words
// (train_knobs_test checks it).
template <typename T>
Result<T> Word(std::string_view knob, const std::string& word,
               std::initializer_list<std::pair<std::string_view, T>> meaning) {
  pb::Value v;
  v.set_text(word);
  const TrainKnob* k = FindTrainKnob(knob);
  std::string err = k ? TrainKnobValueError(*k, v) : "not in the knob table";
  if (err.empty()) {
    for (const auto& [w, value] : meaning)
      if (w == word) return value;
    err = "value '" + word + "' has no meaning in the train task";
  }
  return Status::InvalidArgument("train knob '" + std::string(knob) + "': " + err);
}

// Data sets are loaded once per runner process and shared by its trials;
// each trial carves its own validation split.
Result<std::shared_ptr<const nn::Splits>> CachedPool(const nn::DataSpec& spec) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const nn::Splits>> cache;
  std::lock_guard<std::mutex> lock(mu);
  const std::string key = spec.Key();
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  ASSIGN_OR_RETURN(nn::Splits s, nn::LoadData(spec));
  if (cache.size() >= 2) cache.clear();
  auto pool = std::make_shared<const nn::Splits>(std::move(s));
  cache[key] = pool;
  return pool;
}

// What the network needs of the data that the knobs alone cannot say.
Status CheckModelFitsData(const nn::TrainConfig& c, const nn::Splits& d) {
  const nn::Examples& x = d.train;
  if (!x.image() && c.model == "cnn") {
    return Status::InvalidArgument("model cnn needs images; this data is a table of " +
                                   std::to_string(x.c) + " features: use model mlp");
  }
  if (!x.image() && c.augment != nn::Augment::kNone)
    return Status::InvalidArgument("augment needs images; this data is a table");
  // The last partial batch of an epoch is dropped: fewer rows than a batch
  // would train nothing and report an untrained network.
  // Buffers are indexed with int: an MLP's first layer (a CNN's first
  // activation per example times its kernel) past 2^30 values is refused
  // (a very wide table or image), never allocated.
  const double first = static_cast<double>(x.example_size()) *
                       (c.model == "cnn" ? c.channels * c.kernel_size * c.kernel_size / x.c
                                         : std::max(c.hidden_units, d.outputs()));
  if (first > static_cast<double>(1 << 30)) {
    return Status::InvalidArgument("the first layer would hold " + std::to_string(first) +
                                   " weights (" + std::to_string(x.example_size()) +
                                   " inputs): too many; use fewer features or units");
  }
  if (x.n < c.batch_size) {
    return Status::InvalidArgument("batch_size " + std::to_string(c.batch_size) +
                                   " is more than the " + std::to_string(x.n) +
                                   " training examples left after the test and validation splits: "
                                   "nothing would train; use a smaller batch_size");
  }
  if (c.model == "cnn") {
    int h = x.h, w = x.w, blocks = 0;
    for (; blocks < c.conv_blocks && h >= 2 && w >= 2; ++blocks) h /= 2, w /= 2;
    if (blocks < c.conv_blocks) {
      return Status::InvalidArgument(
          "images of " + std::to_string(x.h) + "x" + std::to_string(x.w) + " are too small for " +
          std::to_string(c.conv_blocks) + " conv blocks (each halves them): at most " +
          std::to_string(blocks));
    }
  }
  return Status::Ok();
}

}  // namespace

Result<nn::TrainConfig> TrainConfigFor(const pb::Assign& a, TrialSetup* setup) {
  nn::DataSpec* data = &setup->data;
  const pb::TrainTask& t = a.task().train();
  Knobs k(a);
  nn::TrainConfig c;
  c.model = k.Get<std::string>("model");
  RETURN_IF_ERROR(
      Word<bool>("model", c.model,
                 {{"mlp", true}, {"cnn", true}, {"auto", true}, {"gbdt", true}, {"linear", true}})
          .status());
  c.epochs = k.Get<int>("epochs");
  c.batch_size = k.Get<int>("batch_size");
  c.lr = static_cast<float>(k.Get<double>("lr"));
  std::string opt = k.Get<std::string>("optimizer");
  ASSIGN_OR_RETURN(c.optimizer.kind,
                   Word<nn::OptimizerKind>("optimizer", opt,
                                           {{"sgd", nn::OptimizerKind::kSgd},
                                            {"adam", nn::OptimizerKind::kAdam},
                                            {"adamw", nn::OptimizerKind::kAdamW}}));
  // The table's momentum default is sgd's; Adam's betas replace momentum.
  c.optimizer.momentum = static_cast<float>(opt == "sgd" ? k.Get<double>("momentum")
                                                         : k.GetOr<double>("momentum", 0.0));
  c.optimizer.nesterov = k.Get<bool>("nesterov");
  c.optimizer.weight_decay = static_cast<float>(k.Get<double>("weight_decay"));
  ASSIGN_OR_RETURN(c.lr_schedule,
                   Word<nn::Schedule>("lr_schedule", k.Get<std::string>("lr_schedule"),
                                      {{"constant", nn::Schedule::kConstant},
                                       {"step", nn::Schedule::kStep},
                                       {"cosine", nn::Schedule::kCosine}}));
  c.warmup_epochs = static_cast<float>(k.Get<double>("warmup_epochs"));
  c.hidden_layers = k.Get<int>("hidden_layers");
  c.hidden_units = k.Get<int>("hidden_units");
  // A linear model is an mlp with no hidden layer (validation refuses the
  // layers' knobs beside it).
  if (c.model == "linear") c.model = "mlp", c.hidden_layers = 0;
  ASSIGN_OR_RETURN(c.funnel, Word<bool>("hidden_shape", k.Get<std::string>("hidden_shape"),
                                        {{"constant", false}, {"funnel", true}}));
  ASSIGN_OR_RETURN(c.activation,
                   Word<nn::Activation>("activation", k.Get<std::string>("activation"),
                                        {{"relu", nn::Activation::kRelu},
                                         {"leaky_relu", nn::Activation::kLeakyRelu},
                                         {"tanh", nn::Activation::kTanh},
                                         {"gelu", nn::Activation::kGelu}}));
  c.dropout = static_cast<float>(k.Get<double>("dropout"));
  c.batch_norm = k.Get<bool>("batch_norm");
  c.conv_blocks = k.Get<int>("conv_blocks");
  c.channels = k.Get<int>("channels");
  c.kernel_size = k.Get<int>("kernel_size");
  ASSIGN_OR_RETURN(c.max_pool,
                   Word<bool>("pool", k.Get<std::string>("pool"), {{"max", true}, {"avg", false}}));
  c.dense_units = k.Get<int>("dense_units");
  ASSIGN_OR_RETURN(c.init, Word<nn::WeightInit>("init", k.Get<std::string>("init"),
                                                {{"default", nn::WeightInit::kFanIn},
                                                 {"he", nn::WeightInit::kHe},
                                                 {"xavier", nn::WeightInit::kXavier}}));
  {
    const std::string word = k.Get<std::string>("augment");
    std::optional<nn::Augment> augment = nn::ParseAugment(word);
    // Not a join of flip, crop and erase: the knob table's error names it.
    if (!augment) return Word<nn::Augment>("augment", word, {}).status();
    c.augment = *augment;
  }
  // The seed comes from task.train or the trial, not from a parameter.
  c.seed = t.has_seed() ? t.seed() : a.seed();
  c.trees.rounds = k.Get<int>("rounds");
  c.trees.eta = k.Get<double>("eta");
  c.trees.max_depth = k.Get<int>("max_depth");
  c.trees.max_leaves = k.Get<int>("max_leaves");
  c.trees.min_child_weight = k.Get<double>("min_child_weight");
  c.trees.subsample = k.Get<double>("subsample");
  c.trees.colsample_bytree = k.Get<double>("colsample_bytree");
  c.trees.reg_alpha = k.Get<double>("reg_alpha");
  c.trees.reg_lambda = k.Get<double>("reg_lambda");
  c.trees.seed = c.seed;
  ASSIGN_OR_RETURN(std::string default_dir,
                   Word<std::string>("dataset", k.Get<std::string>("dataset"),
                                     {{"fashion-mnist", nn::kDefaultFashionMnistDir},
                                      {"mnist", "/usr/share/datasets/mnist"}}));
  data->idx_dir = k.GetOr<std::string>("data_dir", default_dir);
  data->files = t.data();
  if (t.has_problem() && t.problem() != "classification" && t.problem() != "regression")
    return Status::InvalidArgument("task.train.problem: unknown value '" + t.problem() + "'");
  data->problem = nn::ProblemOf(t);
  // Unset: the data's own default (nn::DefaultValidation).
  setup->validation = k.Has("validation") ? k.Get<int>("validation") : -1;
  setup->folds = k.Get<int>("folds");
  setup->threads = k.Get<int>("threads");
  if (c.epochs < 1 || c.batch_size < 1 || !(c.lr > 0) || c.hidden_layers < 0 ||
      c.hidden_units < 1 || c.conv_blocks < 0 || c.channels < 1 || c.kernel_size < 1 ||
      c.kernel_size % 2 == 0 || c.dropout < 0 || c.dropout >= 1) {
    return Status::InvalidArgument(
        "invalid training knobs (epochs, batch_size, lr, sizes must be positive; kernel_size odd; "
        "dropout in [0, 1))");
  }
  return c;
}

namespace {
TaskResult Train(const pb::Assign& a, TaskContext* ctx, const nn::TrainConfig& cfg,
                 const std::vector<nn::Splits>& data,
                 const std::function<TaskResult(const std::string&)>& fail);
}  // namespace

void ResolveModel(const nn::Splits& data, nn::TrainConfig* c) {
  if (c->model == "auto") c->model = data.train.image() ? "cnn" : "mlp";
}

namespace {
int ValidationFor(const TrialSetup& setup, const nn::Splits& pool) {
  return setup.validation >= 0 ? setup.validation : nn::DefaultValidation(setup.data, pool);
}
}  // namespace

Result<std::vector<nn::Splits>> SplitsFor(const TrialSetup& setup, const nn::Splits& pool,
                                          uint64_t seed) {
  return nn::TrialSplits(pool, ValidationFor(setup, pool), setup.folds, seed);
}

Result<nn::Splits> KeptSplitsFor(const TrialSetup& setup, const nn::Splits& pool, uint64_t seed) {
  return nn::KeptSplits(pool, ValidationFor(setup, pool), setup.folds, seed);
}

TaskResult RunTrainTask(const pb::Assign& a, TaskContext* ctx) {
  TaskResult result;
  auto fail = [&](const std::string& why) {
    result.outcome = pb::TRIAL_OUTCOME_FAILED;
    result.error = why;
    return result;
  };
  TrialSetup setup;
  auto config = TrainConfigFor(a, &setup);
  if (!config.ok()) return fail(config.status().message());
  auto pool = CachedPool(setup.data);
  if (!pool.ok()) return fail(pool.status().message());
  auto splits = SplitsFor(setup, **pool, config->seed);
  if (!splits.ok()) return fail(splits.status().message());
  const std::vector<nn::Splits>& data = *splits;
  ResolveModel(data.front(), &*config);
  const int threads = setup.threads;
  if (config->model == "gbdt")
    return RunTreeTask(a, ctx, *config, data,
                       threads > 0 ? threads : std::max(1, a.threads_hint()));
  for (const nn::Splits& d : data) {
    Status fits = CheckModelFitsData(*config, d);
    if (!fits.ok()) return fail(fits.message());
  }
  // Each batch is split across model replicas (faster on small networks
  // than threading inside BLAS), run on the threads the trial has now: the
  // runner's own, and the cores that idle local runners lend it. The replica
  // count is fixed for the trial, so lent cores change its speed, never its
  // results: the study's `threads`, else the most threads it may be lent,
  // at most one replica per 32 examples of a batch (and at least the
  // runner's own threads).
  const int own = std::max(1, a.threads_hint());
  config->data_parallel =
      threads > 0 ? threads
                  : std::max(own, std::min(ctx->MaxCpuThreads(), config->batch_size / 32));
  // A device error (out of GPU memory, a lost device) fails this trial with
  // its message and the runner goes on to the next one, unless the error
  // broke the CUDA context: then the attempt is lost and the runner ends
  // (nn/cuda/cuda_error.h).
  try {
    return Train(a, ctx, *config, data, fail);
  } catch (const std::length_error& e) {  // a model too big to build (nn::Model::Finalize)
    return fail(e.what());
  } catch (const nn::CudaError& e) {
    if (!e.context_lost()) return fail(std::string("device error: ") + e.what());
    // Not necessarily this trial's fault (another process's fault under
    // MPS, a GPU error): the attempt is lost and retried on a fresh runner,
    // and fails once its retries are spent.
    TaskResult r = fail(std::string("device error: ") + e.what() +
                        " (the runner's CUDA context may be broken: it ends, and a fresh runner "
                        "takes its place)");
    r.outcome = pb::TRIAL_OUTCOME_LOST;
    r.end_runner = true;
    return r;
  } catch (const std::exception& e) {
    return fail(std::string("device error: ") + e.what());
  }
}

namespace {

TrainDevice& Device() {
  static TrainDevice d;
  return d;
}

}  // namespace

void SetTrainDevice(TrainDevice device) { Device() = std::move(device); }
const TrainDevice& CurrentTrainDevice() { return Device(); }

namespace {

TaskResult Train(const pb::Assign& a, TaskContext* ctx, const nn::TrainConfig& cfg,
                 const std::vector<nn::Splits>& data,
                 const std::function<TaskResult(const std::string&)>& fail) {
  TaskResult result;
  auto config = std::make_optional(cfg);
  std::vector<std::unique_ptr<nn::Backend>> backends;
  int gpus_per_trial = a.gpus_per_trial() > 0 ? a.gpus_per_trial() : 1;
  if (Device().cuda) {
    if (static_cast<int>(Device().gpus.size()) < gpus_per_trial) {
      return fail("the study asks for " + std::to_string(gpus_per_trial) +
                  " GPUs per trial; this runner has " + std::to_string(Device().gpus.size()));
    }
    for (int r = 0; r < gpus_per_trial; ++r) {
      auto b = nn::MakeCudaBackend(Device().gpus[static_cast<size_t>(r)]);
      if (!b.ok()) return fail(b.status().message());
      backends.push_back(std::move(b).value());
    }
    config->data_parallel = 1;
    if (config->batch_size % gpus_per_trial != 0) {
      return fail("batch_size " + std::to_string(config->batch_size) +
                  " does not split evenly over " + std::to_string(gpus_per_trial) + " GPUs");
    }
  } else {
    if (gpus_per_trial > 1 || a.gpus_per_trial() > 0) {
      return fail(
          "the study asks for GPUs (resources.gpus_per_trial) but this runner trains on "
          "the CPU; start it with --backend cuda");
    }
    backends.push_back(nn::MakeCpuBackend(1));
  }
  std::vector<nn::Backend*> peers;
  for (size_t r = 1; r < backends.size(); ++r) peers.push_back(backends[r].get());
  // The kept model, then under cross-validation one per fold, trained in
  // turn each epoch on the same backends.
  std::vector<std::unique_ptr<nn::Trainer>> trainers;
  for (const nn::Splits& d : data) {
    trainers.push_back(std::make_unique<nn::Trainer>(*config, backends[0].get(), &d, peers));
    trainers.back()->SetThreads([ctx] { return ctx->CpuThreads(); });
  }
  nn::Trainer& kept = *trainers.front();
  const bool folds = trainers.size() > 1;
  if (!a.checkpoint().empty()) {
    auto parts = UnpackCheckpoints(a.checkpoint(), trainers.size());
    if (!parts.ok()) return fail("cannot resume: " + parts.status().message());
    for (size_t i = 0; i < trainers.size(); ++i) {
      Status st = trainers[i]->LoadCheckpoint((*parts)[i]);
      if (!st.ok()) return fail("cannot resume: " + st.message());
    }
    result.step = kept.epoch();  // a checkpoint of the last epoch leaves none to run
  }
  while (kept.epoch() < config->epochs) {
    if (ctx->StopRequested()) {
      result.outcome = pb::TRIAL_OUTCOME_CANCELLED;
      return result;
    }
    std::vector<nn::EpochResult> epoch;
    std::vector<nn::Evaluation> vals;
    for (size_t i = 0; i < trainers.size(); ++i) {
      nn::EpochResult r = trainers[i]->RunEpoch();
      // No validation set (validation: 0, or the kept model of a
      // cross-validated trial) leaves val.loss NaN: not a divergence.
      if (!std::isfinite(r.train_loss) ||
          (data[i].validation.n > 0 && !std::isfinite(r.val.loss))) {
        const std::string fold = folds && i > 0 ? " of fold " + std::to_string(i) : "";
        return fail("diverged: training loss is " + std::to_string(r.train_loss) + " at epoch " +
                    std::to_string(r.epoch) + fold);
      }
      if (!folds || i > 0) vals.push_back(r.val);
      epoch.push_back(r);
    }
    const nn::EpochResult& r = epoch.front();
    if (r.epoch >= config->epochs || ctx->CheckpointDue(r.epoch)) {
      std::vector<std::string> checkpoints;
      for (const auto& t : trainers) checkpoints.push_back(t->SaveCheckpoint());
      ctx->Checkpoint(r.epoch, PackCheckpoints(checkpoints));
    }
    std::vector<pb::Metric> step = {M("train_loss", r.train_loss)};
    AddEvaluation("val_", MeanEvaluation(vals), &step);
    result.metrics = step;
    double seconds = 0;  // the step's, every model's
    for (const nn::EpochResult& e : epoch) seconds += e.epoch_seconds;
    step.push_back(M("samples_per_s", r.samples_per_s));  // the kept model's rate
    step.push_back(M("epoch_seconds", seconds));
    if (!Device().cuda) step.push_back(M("cpu_threads", r.threads));
    ctx->Report(r.epoch, step);
    result.step = r.epoch;
  }
  AddEvaluation("test_", kept.Evaluate(data.front().test), &result.metrics);
  return result;
}

}  // namespace

}  // namespace sweep
