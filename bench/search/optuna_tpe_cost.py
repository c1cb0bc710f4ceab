"""Optuna 5's TPESampler: what one proposal costs on a study with N finished
Hartmann-6 trials (uniform points), timed as bench/search/tpe_cost.cc times
sweep's: the ask() that samples all six parameters, one by one.

Usage: optuna_tpe_cost.py N PROPOSALS   prints "optuna5-tpe-cost N ms_per_proposal"
"""
import math
import random
import sys
import time

import optuna
from optuna.distributions import FloatDistribution

optuna.logging.set_verbosity(optuna.logging.WARNING)

ALPHA = [1.0, 1.2, 3.0, 3.2]
A = [[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14], [3, 3.5, 1.7, 10, 17, 8],
     [17, 8, 0.05, 10, 0.1, 14]]
P = [[1312, 1696, 5569, 124, 8283, 5886], [2329, 4135, 8307, 3736, 1004, 9991],
     [2348, 1451, 3522, 2883, 3047, 6650], [4047, 8828, 8732, 5743, 1091, 381]]


def hartmann6(x):
    return -sum(ALPHA[i] * math.exp(-sum(A[i][j] * (x[j] - P[i][j] * 1e-4) ** 2 for j in range(6)))
                for i in range(4))


def main():
    n, proposals = int(sys.argv[1]), int(sys.argv[2])
    space = {f"x{i}": FloatDistribution(0, 1) for i in range(1, 7)}
    rng = random.Random(42)
    trials = []
    for _ in range(n):
        params = {k: rng.random() for k in space}
        trials.append(optuna.trial.create_trial(params=params, distributions=space,
                                                value=hartmann6(list(params.values()))))
    study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=1))
    study.add_trials(trials)
    total = 0.0
    for _ in range(proposals):
        start = time.perf_counter()
        t = study.ask(space)
        total += time.perf_counter() - start
        # Failed trials are left out of the model: the history stays N trials.
        study.tell(t, state=optuna.trial.TrialState.FAIL)
    print(f"optuna5-tpe-cost {n} {total / proposals * 1000:.4f}")


main()
