"""Optuna 5's default TPESampler and its GPSampler on bench/search/gp.py's
problems (gp_problems.py), run in bench/.venv-gp (which has torch, which
GPSampler needs).

Usage: optuna_gp.py run PROBLEM SAMPLER TRIALS WORKERS SEED [SEED ...]
         prints one JSON line per seed: {"seed": s, "values": [...]}, each
         trial's objective in trial order. WORKERS = 1: study.optimize.
         WORKERS > 1: ask and tell in one thread with WORKERS trials in
         flight, one of them, chosen at random, told before each next ask
         (the protocol of `build/bench/tpe_cost simulate`, which runs sweep's
         side), so both see WORKERS - 1 running trials at every proposal.
       optuna_gp.py cost SAMPLER N PROPOSALS
         the time of one ask() on a study of N finished Hartmann-6 trials
         (uniform points, seeded): prints "optuna5-SAMPLER-cost N ms"
SAMPLER: tpe or gp (default settings, seeded). HPOLIB_TABLES (environment):
the folder hpolib_export.py wrote.
"""
import json
import os
import random
import sys
import time

import optuna
from optuna.distributions import FloatDistribution

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gp_problems as gpp  # noqa: E402

optuna.logging.set_verbosity(optuna.logging.WARNING)


def make_sampler(name, seed):
    if name == "gp":
        return optuna.samplers.GPSampler(seed=seed)
    return optuna.samplers.TPESampler(seed=seed)


def objective_of(problem):
    if problem in gpp.SYNTHETIC:
        function, inputs, _ = gpp.SYNTHETIC[problem]
        f = gpp.FUNCTIONS[function]

        def objective(trial):
            return f([trial.suggest_float(n, lo, hi) for n, lo, hi in inputs])
        return objective
    table, _ = gpp.load_table(os.environ["HPOLIB_TABLES"], problem)

    def objective(trial):
        key = ""
        for name, choices, categorical in gpp.HPOLIB_SPACE:
            v = (trial.suggest_categorical(name, list(range(choices))) if categorical
                 else trial.suggest_int(name, 0, choices - 1))
            key += str(v)
        return table[key]
    return objective


def run(problem, sampler, trials, workers, seeds):
    objective = objective_of(problem)
    for seed in seeds:
        study = optuna.create_study(sampler=make_sampler(sampler, seed))
        if workers == 1:
            study.optimize(objective, n_trials=trials)
        else:
            rng = random.Random(seed * 7 + 1)
            running, asked = [], 0
            while asked < trials or running:
                while asked < trials and len(running) < workers:
                    running.append(study.ask())
                    asked += 1
                t = running.pop(rng.randrange(len(running)))
                study.tell(t, objective(t))
        values = [t.value for t in sorted(study.trials, key=lambda t: t.number)]
        print(json.dumps({"seed": seed, "values": values}), flush=True)


def cost(sampler, n, proposals):
    space = {f"x{i}": FloatDistribution(0, 1) for i in range(1, 7)}
    rng = random.Random(42)
    trials = []
    for _ in range(n):
        params = {k: rng.random() for k in space}
        trials.append(optuna.trial.create_trial(params=params, distributions=space,
                                                value=gpp.hartmann6(list(params.values()))))
    study = optuna.create_study(sampler=make_sampler(sampler, 1))
    study.add_trials(trials)
    total = 0.0
    for _ in range(proposals):
        start = time.perf_counter()
        t = study.ask(space)
        total += time.perf_counter() - start
        # Failed trials are left out of the model: the history stays N trials.
        study.tell(t, state=optuna.trial.TrialState.FAIL)
    print(f"optuna5-{sampler}-cost {n} {total / proposals * 1000:.4f}")


if __name__ == "__main__":
    if sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]),
            [int(s) for s in sys.argv[6:]])
    else:
        cost(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
