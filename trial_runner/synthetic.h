// Built-in synthetic objectives (losses: lower is better) and the synthetic
// task, which tests and benchmarks use in place of real training.
#pragma once

#include <vector>

#include "trial_runner/task.h"

namespace sweep {

// Branin on [-5, 10] x [0, 15]; minimum 0.397887 at (-pi, 12.275),
// (pi, 2.275) and (9.42478, 2.475).
double Branin(double x1, double x2);
// Hartmann-6 on [0, 1]^6; minimum -3.32237 at
// (0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573).
double Hartmann6(const std::vector<double>& x);
// Rosenbrock in n >= 2 dimensions; minimum 0 at (1, ..., 1).
double Rosenbrock(const std::vector<double>& x);
// Ackley in any dimension, usually on [-32.768, 32.768]^n; minimum 0 at 0.
double Ackley(const std::vector<double>& x);
// Levy in any dimension, usually on [-10, 10]^n; minimum 0 at (1, ..., 1).
double Levy(const std::vector<double>& x);
// Learning-curve family on [0, 1]^n at step t >= 1: approaches
// 0.1 + 2 * mean((x_i - 0.7)^2) as t grows; a larger x1 starts worse and
// converges more slowly, so the best final configurations start slow.
// It is a state that each step moves toward the final value, so a trial
// resumed from a checkpoint (the state) with other parameters (PBT) carries
// on from where its parent got: CurveStep(x, v) is one step from v.
double CurveStart(const std::vector<double>& x);
double CurveStep(const std::vector<double>& x, double v);
double Curve(const std::vector<double>& x, int64_t t);  // t steps from the start

// Several objectives on [0, 1]^n, all minimised (synthetic_fronts.cc):
// ZDT1 (n >= 2; front f2 = 1 - sqrt(f1)), ZDT2 (n >= 2; f2 = 1 - f1^2) and
// DTLZ2 with three objectives (n >= 3; front: f1^2 + f2^2 + f3^2 = 1, f >= 0).
std::vector<double> Zdt1(const std::vector<double>& x);
std::vector<double> Zdt2(const std::vector<double>& x);
std::vector<double> Dtlz2(const std::vector<double>& x);

TaskResult RunSyntheticTask(const pb::Assign& assign, TaskContext* ctx);
// Whether the synthetic trial finishes in microseconds without waiting for
// the tuner: no sleep per step, no rung to wait at, no injected crash or
// hang, and at most kInstantMaxSteps reports.
constexpr int64_t kInstantMaxSteps = 100;
bool IsInstantSyntheticTask(const pb::Assign& assign);

}  // namespace sweep
