"""Optuna peer for bench/command: N random-search trials, each running
bench/command/program.py as a subprocess, 2 at a time (n_jobs=2, threads).

Usage: optuna_bench.py N [PYTHON]   (PYTHON: the interpreter that runs
program.py; default python3)
Storage: SQLite, a fresh file in a temporary folder. Every step of the
program's output is stored with trial.report (sweep stores every step too);
the objective is the last report's loss.
Timed: create_study + optimize only (no interpreter start, no import).
Prints one line: optuna5-sqlite N seconds trials_per_s
"""
import shutil
import sys
import tempfile
import time

from peer_program import run_program

import optuna

n = int(sys.argv[1])
python = sys.argv[2] if len(sys.argv) > 2 else "python3"
optuna.logging.set_verbosity(optuna.logging.WARNING)


def objective(trial):
    x = trial.suggest_float("x", 0, 1)
    reports = run_program(python, x)
    for step, loss in reports:
        trial.report(loss, step)
    return reports[-1][1]


tmp = tempfile.mkdtemp(prefix="optuna_command_")
try:
    storage = f"sqlite:///{tmp}/optuna.db"
    start = time.perf_counter()
    study = optuna.create_study(
        storage=storage,
        sampler=optuna.samplers.RandomSampler(seed=7),
        direction="minimize",
    )
    study.optimize(objective, n_trials=n, n_jobs=2)
    secs = time.perf_counter() - start
    done = sum(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
    assert done == n, f"expected {n} completed trials, found {done}"
finally:
    shutil.rmtree(tmp, ignore_errors=True)
print(f"optuna5-sqlite {n} {secs:.3f} {n / secs:.1f}")
