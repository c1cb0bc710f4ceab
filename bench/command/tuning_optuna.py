"""Optuna peer of bench/command/tuning_job.sh: tunes examples/own_script/train.py
with Optuna 5's default sampler (TPESampler, seeded) and its HyperbandPruner
(min_resource=1, max_resource=STEPS, reduction_factor=3), 2 trials at a time
(n_jobs=2, threads), in-memory storage, within a budget of epochs.

Usage: tuning_optuna.py --python PY --seed S [--budget 69] [--steps 9] [--workers 2]

Each trial writes its parameters, runs train.py as a subprocess (see
tuning_trial.py) and reports every epoch's val_accuracy with trial.report;
when trial.should_prune() says so, the program's process group is killed
and the trial is pruned. A completed trial returns its last val_accuracy and
keeps the test accuracy as a user attribute.
Budget: epochs are counted as they are reported; once BUDGET are, no new
trial starts (study.stop() from a callback, and a trial that begins anyway
ends at once without running anything, and is not counted); the running
trials go on to their end, so the epochs actually trained may exceed BUDGET.
Best: the completed trial (all STEPS epochs) with the highest final val_accuracy.
Prints one line: RESULT optuna BEST_VAL TEST_ACC EPOCHS TRIALS INNER_S
(INNER_S: create_study + optimize, without the interpreter start and imports).
"""
import shutil
import tempfile
import threading
import time

import optuna

from tuning_trial import TrainProcess, parse_args

args = parse_args()
optuna.logging.set_verbosity(optuna.logging.WARNING)

lock = threading.Lock()
epochs = 0  # reported epochs, all trials


def exhausted():
    with lock:
        return epochs >= args.budget


def objective(trial, workdir):
    global epochs
    if exhausted():
        trial.study.stop()
        trial.set_user_attr("skipped", True)
        raise optuna.TrialPruned("epoch budget used up before it started")
    params = {
        "lr": trial.suggest_float("lr", 0.005, 0.3, log=True),
        "momentum": trial.suggest_float("momentum", 0.5, 0.99),
        "batch_size": trial.suggest_categorical("batch_size", [64, 128, 256]),
        "channels": trial.suggest_categorical("channels", [8, 16, 32]),
        "dropout": trial.suggest_float("dropout", 0.0, 0.5),
    }
    proc = TrainProcess(args.python, params, seed=args.seed, trial_id=trial.number + 1,
                        steps=args.steps, workdir=workdir, study="optuna")
    value = None
    try:
        for report in proc:
            with lock:
                epochs += 1
            trial.set_user_attr("epochs", report["step"])
            value = report["val_accuracy"]
            trial.report(value, report["step"])
            if trial.should_prune():
                raise optuna.TrialPruned()
    finally:
        proc.kill()
    if "test_accuracy" not in proc.final:
        raise RuntimeError("train.py ended without a test_accuracy")
    trial.set_user_attr("test_accuracy", proc.final["test_accuracy"])
    return value


def stop_when_spent(study, trial):
    if exhausted():
        study.stop()


workdir = tempfile.mkdtemp(prefix="tuning_optuna_")
try:
    start = time.perf_counter()
    study = optuna.create_study(
        direction="maximize",
        sampler=optuna.samplers.TPESampler(seed=args.seed),
        pruner=optuna.pruners.HyperbandPruner(min_resource=1, max_resource=args.steps, reduction_factor=3),
    )
    study.optimize(lambda t: objective(t, workdir), n_jobs=args.workers, callbacks=[stop_when_spent])
    inner = time.perf_counter() - start
finally:
    shutil.rmtree(workdir, ignore_errors=True)

S = optuna.trial.TrialState
ran = [t for t in study.trials if not t.user_attrs.get("skipped")]
bad = [t for t in ran if t.state not in (S.COMPLETE, S.PRUNED)]
assert not bad, f"{len(bad)} trial(s) neither completed nor pruned"
trained = sum(t.user_attrs.get("epochs", 0) for t in ran)
assert trained == epochs, (trained, epochs)
done = [t for t in ran if t.state == S.COMPLETE]
best = max(done, key=lambda t: t.value) if done else None
print(f"# optuna: {len(done)} completed, {len(ran) - len(done)} pruned; "
      f"best params {best.params if best else None}", flush=True)
print(f"RESULT optuna {best.value if best else 'nan'} {best.user_attrs['test_accuracy'] if best else 'nan'} "
      f"{trained} {len(ran)} {inner:.3f}")
