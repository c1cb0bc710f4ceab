"""Optuna 5's TPESampler: what one proposal costs on a study with N finished
Hartmann-6 trials (uniform points), timed as bench/search/tpe_cost.cc times
sweep's: the ask() that samples all six parameters, one by one.

Usage: optuna_tpe_cost.py N PROPOSALS   prints "optuna5-tpe-cost N ms_per_proposal"
"""
import os
import random
import sys
import time

import optuna
from optuna.distributions import FloatDistribution

optuna.logging.set_verbosity(optuna.logging.WARNING)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from optuna_tpe import hartmann6  # noqa: E402  (the same objective as the quality runs)


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
