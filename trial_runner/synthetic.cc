// Synthetic objectives and the synthetic task with seeded fault injection.
#include "trial_runner/synthetic.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>
#include <thread>

#include "common/rng.h"
#include "common/task_schema.h"
#include "common/values.h"

namespace sweep {

double Branin(double x1, double x2) {
  const double pi = M_PI;
  double a = 1, b = 5.1 / (4 * pi * pi), c = 5 / pi, r = 6, s = 10, t = 1 / (8 * pi);
  double u = x2 - b * x1 * x1 + c * x1 - r;
  return a * u * u + s * (1 - t) * std::cos(x1) + s;
}

double Hartmann6(const std::vector<double>& x) {
  static const double kAlpha[4] = {1.0, 1.2, 3.0, 3.2};
  static const double kA[4][6] = {{10, 3, 17, 3.5, 1.7, 8},
                                  {0.05, 10, 17, 0.1, 8, 14},
                                  {3, 3.5, 1.7, 10, 17, 8},
                                  {17, 8, 0.05, 10, 0.1, 14}};
  static const double kP[4][6] = {{1312, 1696, 5569, 124, 8283, 5886},
                                  {2329, 4135, 8307, 3736, 1004, 9991},
                                  {2348, 1451, 3522, 2883, 3047, 6650},
                                  {4047, 8828, 8732, 5743, 1091, 381}};
  double outer = 0;
  for (int i = 0; i < 4; ++i) {
    double inner = 0;
    for (int j = 0; j < 6; ++j) {
      double d = x[j] - kP[i][j] * 1e-4;
      inner += kA[i][j] * d * d;
    }
    outer += kAlpha[i] * std::exp(-inner);
  }
  return -outer;
}

double Rosenbrock(const std::vector<double>& x) {
  double sum = 0;
  for (size_t i = 0; i + 1 < x.size(); ++i) {
    double a = x[i + 1] - x[i] * x[i], b = 1 - x[i];
    sum += 100 * a * a + b * b;
  }
  return sum;
}

double Ackley(const std::vector<double>& x) {
  double sq = 0, cos_sum = 0;
  for (double v : x) {
    sq += v * v;
    cos_sum += std::cos(2 * M_PI * v);
  }
  double n = static_cast<double>(x.size());
  return -20 * std::exp(-0.2 * std::sqrt(sq / n)) - std::exp(cos_sum / n) + 20 + M_E;
}

double Levy(const std::vector<double>& x) {
  auto w = [&](size_t i) { return 1 + (x[i] - 1) / 4; };
  double s = std::sin(M_PI * w(0));
  double sum = s * s;
  for (size_t i = 0; i + 1 < x.size(); ++i) {
    double wi = w(i), t = std::sin(M_PI * wi + 1);
    sum += (wi - 1) * (wi - 1) * (1 + 10 * t * t);
  }
  double wd = w(x.size() - 1), t = std::sin(2 * M_PI * wd);
  return sum + (wd - 1) * (wd - 1) * (1 + t * t);
}

namespace {

struct CurveShape {
  double final_value, gap, decay;
};

CurveShape Shape(const std::vector<double>& x) {
  double mse = 0;
  for (double v : x) mse += (v - 0.7) * (v - 0.7);
  mse /= static_cast<double>(x.size());
  double tau = 2 + 10 * x[0] * x[0];  // how slowly it converges
  // It starts 0.2 + 2 * x1 above its final value.
  return {0.1 + 2 * mse, 0.2 + 2 * x[0], std::exp(-1.0 / tau)};
}

}  // namespace

double CurveStart(const std::vector<double>& x) {
  CurveShape c = Shape(x);
  return c.final_value + c.gap;
}

double CurveStep(const std::vector<double>& x, double v) {
  CurveShape c = Shape(x);
  return c.final_value + (v - c.final_value) * c.decay;
}

double Curve(const std::vector<double>& x, int64_t t) {
  double v = CurveStart(x);
  for (int64_t i = 0; i < t; ++i) v = CurveStep(x, v);
  return v;
}

namespace {

void SleepMs(double ms) {
  if (ms > 0)
    std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(ms * 1000)));
}

constexpr char kCheckpointMagic[8] = {'S', 'W', 'S', 'Y', 'N', 'T', 'H', '1'};

// magic, step, state: 24 bytes, little-endian host order.
std::string SyntheticCheckpoint(int64_t step, double state) {
  std::string out(kCheckpointMagic, sizeof kCheckpointMagic);
  out.append(reinterpret_cast<const char*>(&step), sizeof step);
  out.append(reinterpret_cast<const char*>(&state), sizeof state);
  return out;
}

std::optional<std::pair<int64_t, double>> ParseSyntheticCheckpoint(const std::string& data) {
  if (data.size() != 24 || data.compare(0, 8, kCheckpointMagic, 8) != 0) return std::nullopt;
  int64_t step;
  double state;
  std::memcpy(&step, data.data() + 8, sizeof step);
  std::memcpy(&state, data.data() + 16, sizeof state);
  if (step < 0) return std::nullopt;
  return std::make_pair(step, state);
}

// `value`, or f1, f2, ... for a function of several objectives.
std::vector<pb::Metric> Metrics(const std::vector<double>& values, int objectives) {
  std::vector<pb::Metric> out;
  for (size_t i = 0; i < values.size(); ++i) {
    pb::Metric m;
    m.set_name(objectives > 1 ? "f" + std::to_string(i + 1) : std::string("value"));
    m.set_value(values[i]);
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace

bool IsInstantSyntheticTask(const pb::Assign& assign) {
  if (!assign.task().has_synthetic()) return false;
  const pb::SyntheticTask& t = assign.task().synthetic();
  return t.step_ms() <= 0 && t.crash_prob() <= 0 && t.hang_prob() <= 0 &&
         t.steps() <= kInstantMaxSteps && assign.decision_steps_size() == 0;
}

TaskResult RunSyntheticTask(const pb::Assign& assign, TaskContext* ctx) {
  const pb::SyntheticTask& task = assign.task().synthetic();
  TaskResult result;
  std::vector<double> x;
  for (int i = 1;; ++i) {
    std::string name = "x" + std::to_string(i);
    const pb::ParamValue* found = nullptr;
    for (const auto& p : assign.params()) {
      if (p.name() == name) found = &p;
    }
    if (!found) break;
    double v;
    if (!ValueAsDouble(found->value(), &v)) {
      result.outcome = pb::TRIAL_OUTCOME_FAILED;
      result.error = "parameter " + name + " is not a number";
      return result;
    }
    x.push_back(v);
  }
  // An unspecified function runs the curve, which reads at least x1.
  const SyntheticFunctionInfo* fn = FindSyntheticFunction(task.function());
  size_t need = static_cast<size_t>(fn ? fn->inputs : 1);
  if (x.size() < need) {
    result.outcome = pb::TRIAL_OUTCOME_FAILED;
    result.error = "the synthetic function needs parameters x1..x" + std::to_string(need);
    return result;
  }
  int64_t steps = task.steps();
  // Faults are drawn per (seed, trial, attempt): a retry may succeed.
  Rng faults(HashKey({assign.seed(), static_cast<uint64_t>(assign.number()),
                      static_cast<uint64_t>(assign.attempt()), 0xFA17}));
  auto draw = [&](double p) { return faults.Uniform() < p; };
  bool fail = draw(task.fail_prob()), nan = draw(task.nan_prob()), crash = draw(task.crash_prob()),
       hang = draw(task.hang_prob());
  int64_t fault_step = 1 + static_cast<int64_t>(faults.Uniform() * static_cast<double>(steps));
  if (fault_step > steps) fault_step = steps;

  // The state: the curve's value (other functions have none beyond the step).
  double state = CurveStart(x);
  int64_t first = 1;
  if (!assign.checkpoint().empty()) {
    auto restored = ParseSyntheticCheckpoint(assign.checkpoint());
    if (!restored) {
      result.outcome = pb::TRIAL_OUTCOME_FAILED;
      result.error = "cannot resume: not a synthetic-task checkpoint (bad magic, version or size)";
      return result;
    }
    first = restored->first + 1;
    state = restored->second;
    result.step = restored->first;
  }
  const auto& decisions = assign.decision_steps();
  double value = 0;
  std::vector<double> values;  // functions of several objectives: f1, f2, ...
  std::vector<pb::Metric> last;
  for (int64_t step = first; step <= steps; ++step) {
    if (ctx->StopRequested()) {
      result.outcome = pb::TRIAL_OUTCOME_CANCELLED;
      return result;
    }
    SleepMs(task.step_ms());
    if (step == fault_step) {
      if (crash) {
        // Simulates a runner that dies mid-trial (segfault, OOM kill, ...).
        ::kill(::getpid(), SIGKILL);
      }
      if (hang) {
        while (true) std::this_thread::sleep_for(std::chrono::seconds(3600));
      }
      if (fail) {
        result.outcome = pb::TRIAL_OUTCOME_FAILED;
        result.error = "injected failure at step " + std::to_string(step) + " (fail_prob)";
        return result;
      }
    }
    switch (task.function()) {
      case pb::SYNTHETIC_FUNCTION_BRANIN:
        value = Branin(x[0], x[1]);
        break;
      case pb::SYNTHETIC_FUNCTION_HARTMANN6:
        value = Hartmann6(x);
        break;
      case pb::SYNTHETIC_FUNCTION_ROSENBROCK:
        value = Rosenbrock(x);
        break;
      case pb::SYNTHETIC_FUNCTION_ACKLEY:
        value = Ackley(x);
        break;
      case pb::SYNTHETIC_FUNCTION_LEVY:
        value = Levy(x);
        break;
      case pb::SYNTHETIC_FUNCTION_ZDT1:
        values = Zdt1(x);
        break;
      case pb::SYNTHETIC_FUNCTION_ZDT2:
        values = Zdt2(x);
        break;
      case pb::SYNTHETIC_FUNCTION_DTLZ2:
        values = Dtlz2(x);
        break;
      default:
        state = CurveStep(x, state);
        value = state;
        break;
    }
    // At a decision step the tuner may pause the trial, and a preempted one
    // stops after this step: send the state first.
    if (ctx->CheckpointWanted() ||
        std::find(decisions.begin(), decisions.end(), step) != decisions.end())
      ctx->Checkpoint(step, SyntheticCheckpoint(step, state));
    if (values.empty()) values = {value};
    for (size_t i = 0; i < values.size(); ++i) {
      if (task.noise() > 0) {
        values[i] +=
            task.noise() * Rng(HashKey({assign.seed(), static_cast<uint64_t>(assign.number()),
                                        static_cast<uint64_t>(step), 0x9015E + i}))
                               .Normal();
      }
      if (nan && step == steps) values[i] = std::nan("");
    }
    last = Metrics(values, fn ? fn->objectives : 1);
    ctx->Report(step, last);
    values.clear();
    result.step = step;
  }
  result.metrics = last;
  return result;
}

}  // namespace sweep
