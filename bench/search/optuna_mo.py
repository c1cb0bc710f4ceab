"""Optuna 5's default TPESampler (MOTPE with several objectives) and its
NSGAIISampler on bench/search/mo.py's problems (mo_problems.py), in
bench/.venv-mo.

Usage: optuna_mo.py run PROBLEM SAMPLER TRIALS WORKERS SEED
         prints {"seed": s, "values": [[f1, f2, ...], ...]}: each trial's
         objectives in trial order. WORKERS = 1: study.optimize. WORKERS > 1:
         ask and tell in one thread with WORKERS trials in flight, one of
         them, chosen at random, told before each next ask (as gp.py), so
         each proposal sees WORKERS - 1 running trials.
       optuna_mo.py cost SAMPLER N PROPOSALS
         the time of one ask() on a study of N finished ZDT1 trials
         (uniform points, seeded): prints "optuna5-SAMPLER-cost N ms"
SAMPLER: tpe or nsga2 (default settings, seeded). MO_TABLES (environment):
the folder hpolib_export_mo.py wrote.
"""
import json
import os
import random
import sys
import time

import optuna
from optuna.distributions import FloatDistribution

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mo_problems as mop  # noqa: E402

optuna.logging.set_verbosity(optuna.logging.WARNING)


def make_sampler(name, seed):
    if name == "nsga2":
        return optuna.samplers.NSGAIISampler(seed=seed)
    return optuna.samplers.TPESampler(seed=seed)


def objective_of(problem):
    if problem in mop.SYNTHETIC:
        f = mop.FUNCTIONS[problem]

        def objective(trial):
            return tuple(f([trial.suggest_float(f"x{i}", 0, 1) for i in range(1, mop.INPUTS + 1)]))
        return objective
    table = mop.load_table(os.environ["MO_TABLES"], problem)

    def objective(trial):
        key = ""
        for name, choices, categorical in mop.HPOLIB_SPACE:
            v = (trial.suggest_categorical(name, list(range(choices))) if categorical
                 else trial.suggest_int(name, 0, choices - 1))
            key += str(v)
        return table[key]
    return objective


def run(problem, sampler, trials, workers, seed):
    objective = objective_of(problem)
    study = optuna.create_study(sampler=make_sampler(sampler, seed),
                                directions=["minimize"] * len(mop.objectives(problem)))
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
    values = [list(t.values) for t in sorted(study.trials, key=lambda t: t.number)]
    print(json.dumps({"seed": seed, "values": values}), flush=True)


def cost(sampler, n, proposals):
    space = {f"x{i}": FloatDistribution(0, 1) for i in range(1, mop.INPUTS + 1)}
    rng = random.Random(42)
    study = optuna.create_study(sampler=make_sampler(sampler, 1),
                                directions=["minimize", "minimize"])
    for _ in range(n):
        params = {k: rng.random() for k in space}
        study.add_trial(optuna.trial.create_trial(
            params=params, distributions=space,
            values=mop.FUNCTIONS["zdt1"]([params[f"x{i}"] for i in range(1, mop.INPUTS + 1)])))
    start = time.perf_counter()
    for _ in range(proposals):
        t = study.ask(space)
        study.tell(t, state=optuna.trial.TrialState.FAIL)
    print(f"optuna5-{sampler}-cost {n} {(time.perf_counter() - start) * 1000 / proposals:.3f} ms")


if __name__ == "__main__":
    if sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]))
    else:
        cost(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
