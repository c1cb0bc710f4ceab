"""Optuna 5's TPESampler (default settings) on bench/search/tpe.py's
objectives, for side-by-side runs. Run by tpe.py in bench/.venv-optuna5.
For `mlp` each trial trains sweep's own nn/ MLP through a one-trial `sweep
run` (the binary in $SWEEP_BIN) and scores 1 - val_accuracy.

Usage: optuna_tpe.py OBJECTIVE TRIALS WORKERS SEED [SEED ...]
Prints one JSON line per seed: {"seed": s, "values": [v0, v1, ...]}, the
objective of each trial in trial-number order (null for a failed one).
WORKERS > 1 runs study.optimize(n_jobs=WORKERS) on one shared in-memory
storage, where the sampler's default constant liar applies.
OPTUNA_TPE (environment, optional): "n_ei_candidates=64,gamma=0.125" gives
the sampler those settings instead of its defaults (gamma as sweep reads
it: the good trials are min(ceil(gamma * n), 25)), for a control run with
the same settings as sweep's --sweep-tpe.
OPTUNA_TRIAL_MS (environment, optional): each synthetic trial sleeps that
many milliseconds (tpe.py --trial-ms), so n_jobs threads overlap.
OPTUNA_SIMULATE=1 (environment, optional): instead of study.optimize, ask and
tell in one thread with WORKERS trials in flight, one of them, chosen at
random, told before each next ask: the protocol of `build/bench/tpe_cost
simulate`, so both samplers can be compared under real parallelism over many
seeds (threads with n_jobs overlap much less on a cheap objective, as they
share the GIL).
"""
import json
import math
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time

import optuna

optuna.logging.set_verbosity(optuna.logging.WARNING)


def branin(x1, x2):
    a, b, c, r, s, t = 1, 5.1 / (4 * math.pi**2), 5 / math.pi, 6, 10, 1 / (8 * math.pi)
    return a * (x2 - b * x1**2 + c * x1 - r) ** 2 + s * (1 - t) * math.cos(x1) + s


# The same objectives as sweep's synthetic task (one copy for both benchmarks).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gp_problems import hartmann6, rosenbrock  # noqa: E402,F401



# bench/search/run.py's TASKS["mlp"], one point at a time.
MLP_TASK = ("task:\n  train: {model: mlp, epochs: 9, validation: 50000, hidden_layers: 1, "
            "lr_schedule: constant, threads: 1}")


def mlp(trial, seed):
    point = {"lr": trial.suggest_float("lr", 1e-3, 0.5, log=True),
             "momentum": trial.suggest_float("momentum", 0.0, 0.95),
             "batch_size": trial.suggest_categorical("batch_size", [32, 64, 128, 256, 512]),
             "hidden_units": trial.suggest_int("hidden_units", 16, 512, log=True),
             "dropout": trial.suggest_float("dropout", 0.0, 0.5)}
    with tempfile.TemporaryDirectory() as work:
        study, db = os.path.join(work, "s.yaml"), os.path.join(work, "s.db")
        with open(study, "w") as f:
            f.write("name: mlp-point\nobjective: {metric: val_accuracy, goal: maximize}\n"
                    f"{MLP_TASK}\nalgorithm: {{type: grid}}\n"
                    f"seed: {seed * 1000 + trial.number}\nparameters:\n")
            for k, v in point.items():
                f.write(f"  {k}: {{type: categorical, values: [{v!r}]}}\n")
        subprocess.run([os.environ["SWEEP_BIN"], "run", study, "--db", db, "--local-runners", "1",
                        "--progress", "plain"], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        row = con.execute("SELECT value FROM trials WHERE status = 'completed'").fetchone()
        con.close()
    if row is None or row[0] is None:
        raise RuntimeError(f"sweep trained no network for {point}")
    return 1 - row[0]


def lasting(f):
    """f, taking OPTUNA_TRIAL_MS milliseconds (a sleep, which frees the GIL)."""
    ms = float(os.environ.get("OPTUNA_TRIAL_MS") or 0)
    if ms <= 0:
        return f

    def slow(t):
        value = f(t)
        time.sleep(ms / 1000)
        return value
    return slow


# The same spaces as tpe.py's studies.
def objective_for(name, seed):
    if name == "mlp":
        return lambda t: mlp(t, seed)
    return lasting(synthetic_for(name))


def synthetic_for(name):
    if name == "branin":
        return lambda t: branin(t.suggest_float("x1", -5, 10), t.suggest_float("x2", 0, 15))
    if name == "hartmann6":
        return lambda t: hartmann6([t.suggest_float(f"x{i}", 0, 1) for i in range(1, 7)])
    if name == "rosenbrock4":
        return lambda t: rosenbrock([t.suggest_float(f"x{i}", -5, 10) for i in range(1, 5)])
    raise SystemExit(f"unknown objective {name}")


def sampler_settings():
    kw = {}
    for item in filter(None, os.environ.get("OPTUNA_TPE", "").split(",")):
        key, value = (part.strip() for part in item.split("="))
        if key == "n_ei_candidates":
            kw[key] = int(value)
        elif key == "gamma":
            kw[key] = lambda n, g=float(value): min(math.ceil(g * n), 25)
        else:
            raise SystemExit(f"OPTUNA_TPE: unknown setting {key}")
    return kw


def simulate(study, objective, trials, workers, seed):
    """WORKERS trials in flight; a random one of them is told before each ask."""
    order = random.Random(seed * 7919 + 7)
    running, asked = [], 0
    while asked < trials or running:
        while asked < trials and len(running) < workers:
            t = study.ask()
            running.append((t, objective(t)))  # suggest now, tell later
            asked += 1
        t, value = running.pop(order.randrange(len(running)))
        study.tell(t, value)


def in_flight(study):
    """Other trials running when a trial started, on average."""
    spans = [(t.datetime_start, t.datetime_complete) for t in study.trials
             if t.datetime_start and t.datetime_complete]
    if not spans:
        return None
    return sum(sum(a < s < b for a, b in spans) for s, _ in spans) / len(spans)


def main():
    name, trials, workers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    kw = sampler_settings()
    for seed in map(int, sys.argv[4:]):
        objective = objective_for(name, seed)
        study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=seed, **kw))
        if os.environ.get("OPTUNA_SIMULATE") == "1":
            simulate(study, objective, trials, workers, seed)
        else:
            study.optimize(objective, n_trials=trials, n_jobs=workers)
        values = [None] * trials
        for t in study.trials:
            if t.number < trials and t.value is not None:
                values[t.number] = t.value
        print(json.dumps({"seed": seed, "values": values, "in_flight": in_flight(study)}),
              flush=True)


if __name__ == "__main__":
    main()
