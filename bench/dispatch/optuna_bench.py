"""Optuna peer for bench/dispatch: N random-search trials x R reports of Branin.

Usage: optuna_bench.py N R (sqlite:///path.db | memory)
Prints one line: optuna-<storage> N R seconds trials_per_s reports_per_s
"""
import math
import sys
import time

import optuna

n, r, storage = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
optuna.logging.set_verbosity(optuna.logging.WARNING)


def branin(x1, x2):
    b, c, t = 5.1 / (4 * math.pi ** 2), 5 / math.pi, 1 / (8 * math.pi)
    return (x2 - b * x1 * x1 + c * x1 - 6) ** 2 + 10 * (1 - t) * math.cos(x1) + 10


def objective(trial):
    x1 = trial.suggest_float("x1", -5, 10)
    x2 = trial.suggest_float("x2", 0, 15)
    v = 0.0
    for step in range(1, r + 1):
        v = branin(x1, x2)
        trial.report(v, step)
    return v


start = time.perf_counter()
study = optuna.create_study(
    storage=None if storage == "memory" else storage,
    sampler=optuna.samplers.RandomSampler(seed=7),
    direction="minimize",
)
study.optimize(objective, n_trials=n)
secs = time.perf_counter() - start
name = "optuna-memory" if storage == "memory" else "optuna-sqlite"
print(f"{name} {n} {r} {secs:.3f} {n / secs:.1f} {n * r / secs:.1f}")
