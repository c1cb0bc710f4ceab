#!/usr/bin/env python3
"""sweep against Optuna 5 + scikit-learn on scikit-learn's own tables.

Usage: automl_bench.py SWEEP WORKDIR SECONDS REPEATS (run.sh makes the
virtual environment). For each data set (breast cancer, wine, digits,
diabetes, read where Debian's python3-sklearn installs them), one seeded
80/20 train/test split is written as CSV; then, alternating which goes first:

- sweep: one `sweep run` (TPE over MLP knobs, 2 local runners) stopped with
  `sweep stop` after SECONDS; the best trial by validation reports its test
  metric.
- Optuna 5: TPESampler over MLPClassifier/MLPRegressor (standardised inputs,
  and targets for regression), n_jobs=2, timeout=SECONDS, each trial scored
  on the same share (20%) of the training rows held out; the best trial by
  validation reports its test metric.
- HistGradientBoosting with its defaults, fit on all training rows: the bar a
  user would check first.

Fashion-MNIST (`fashion_mnist`, named explicitly) uses its own 60,000/10,000
split from Debian's dataset-fashion-mnist, and sweep runs the example study
examples/fashion_mnist_30min.yaml as it is (CNNs, 2 local runners) for the
same SECONDS; Optuna's MLPs train for 5 to 50 epochs there, and OpenBLAS
runs one thread in each of its 2 jobs so that the two tools share 2 cores.

Prints one JSON line per run and a summary table in Markdown.
"""
import gzip
import json
import os
import signal
import subprocess
import sys
import time
import warnings

if "fashion_mnist" in sys.argv[5:]:
    # Optuna's 2 jobs with one OpenBLAS thread each: 2 cores, as sweep's 2 runners.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
import numpy as np
import optuna
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import accuracy_score, mean_squared_error
from sklearn.neural_network import MLPClassifier, MLPRegressor
from sklearn.preprocessing import StandardScaler
from sklearn.compose import TransformedTargetRegressor
from sklearn.pipeline import make_pipeline

from bench_tables import SK, write_csv

FMNIST = "/usr/share/datasets/fashion-mnist"
FMNIST_STUDY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                            "fashion_mnist_30min.yaml")


def idx(path):
    with gzip.open(path) as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def load_fashion_mnist():
    """(train x, train y, test x, test y): pixels scaled to [0, 1], flattened."""
    f = lambda n: idx(os.path.join(FMNIST, n))
    tx = f("train-images-idx3-ubyte.gz").reshape(60000, -1).astype(np.float32) / 255
    ex = f("t10k-images-idx3-ubyte.gz").reshape(10000, -1).astype(np.float32) / 255
    return (tx, f("train-labels-idx1-ubyte.gz").astype(int), ex,
            f("t10k-labels-idx1-ubyte.gz").astype(int))


def load(name):
    if name == "diabetes":
        x = np.loadtxt(os.path.join(SK, "diabetes_data_raw.csv.gz"))
        y = np.loadtxt(os.path.join(SK, "diabetes_target.csv.gz"))
        return x, y, "regression"
    f = {"breast_cancer": "breast_cancer.csv", "wine": "wine_data.csv",
         "digits": "digits.csv.gz"}[name]
    skip = 0 if name == "digits" else 1
    d = np.loadtxt(os.path.join(SK, f), delimiter=",", skiprows=skip)
    return d[:, :-1], d[:, -1].astype(int), "classification"


def score(problem, y, p):
    if problem == "regression":
        return float(np.sqrt(mean_squared_error(y, p)))
    return float(accuracy_score(y, p))


def write_mlp_study(study, name, problem, rep):
    """TPE over MLP knobs on the CSV files `name`_train.csv and _test.csv."""
    metric = "val_rmse" if problem == "regression" else "val_accuracy"
    goal = "minimize" if problem == "regression" else "maximize"
    with open(study, "w") as f:
        f.write(f"""name: {name}
objective: {{metric: {metric}, goal: {goal}}}
task:
  train:
    problem: {problem}
    data: {{csv: {{train: {name}_train.csv, test: {name}_test.csv, label: label}}}}
    model: mlp
    optimizer: adam
    threads: 1
algorithm: {{type: tpe, max_trials: 100000}}
seed: {rep + 1}
parameters:
  lr: {{type: float, min: 1.0e-4, max: 3.0e-2, log: true}}
  epochs: {{type: int, min: 20, max: 200, log: true}}
  batch_size: {{type: categorical, values: [16, 32, 64, 128]}}
  hidden_layers: {{type: int, min: 1, max: 3}}
  hidden_units: {{type: int, min: 16, max: 256, log: true}}
  hidden_shape: {{type: categorical, values: [constant, funnel]}}
  dropout: {{type: float, min: 0.0, max: 0.5}}
  weight_decay: {{type: float, min: 1.0e-6, max: 1.0e-2, log: true}}
  batch_norm: {{type: categorical, values: [true, false]}}
""")


def run_sweep(sweep, work, name, problem, seconds, rep):
    study = os.path.join(work, f"{name}_{rep}.yaml")
    db = os.path.join(work, f"{name}_{rep}.db")
    if name == "fashion_mnist":
        study, runners = FMNIST_STUDY, []  # the example as it is: one local runner a core
    else:
        write_mlp_study(study, name, problem, rep)
        runners = ["--local-runners", "2"]
    start = time.monotonic()
    p = subprocess.Popen([sweep, "run", study, "--db", db, "--progress", "plain"] + runners,
                         stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, cwd=work)
    while time.monotonic() - start < seconds and p.poll() is None:
        time.sleep(0.2)
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
    p.wait()
    out = subprocess.run([sweep, "best", "--db", db, "--format", "json"], capture_output=True,
                         text=True, check=True).stdout
    best = json.loads(out)
    trials = int(subprocess.run([sweep, "query", "--db", db, "--format", "csv",
                                 "SELECT count(*) FROM trials WHERE status='completed'"],
                                capture_output=True, text=True).stdout.split()[-1])
    key = "test_rmse" if problem == "regression" else "test_accuracy"
    return best["metrics"][key], trials, time.monotonic() - start


def run_optuna(x, y, problem, seconds, rep, max_iter=(20, 200)):
    rng = np.random.default_rng(rep + 1)
    order = rng.permutation(len(x))
    n_val = max(1, len(x) // 5)
    val, tr = order[:n_val], order[n_val:]
    test_x, test_y = run_optuna.test

    def objective(trial):
        layers = trial.suggest_int("hidden_layers", 1, 3)
        units = trial.suggest_int("hidden_units", 16, 256, log=True)
        kw = dict(hidden_layer_sizes=(units,) * layers,
                  alpha=trial.suggest_float("alpha", 1e-6, 1e-2, log=True),
                  learning_rate_init=trial.suggest_float("lr", 1e-4, 3e-2, log=True),
                  batch_size=trial.suggest_categorical("batch_size", [16, 32, 64, 128]),
                  max_iter=trial.suggest_int("max_iter", *max_iter, log=True),
                  random_state=rep)
        if problem == "regression":
            model = TransformedTargetRegressor(
                regressor=make_pipeline(StandardScaler(), MLPRegressor(**kw)),
                transformer=StandardScaler())
        else:
            model = make_pipeline(StandardScaler(), MLPClassifier(**kw))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            warnings.simplefilter("ignore", UserWarning)  # batch_size clipped to the rows
            model.fit(x[tr], y[tr])
        trial.set_user_attr("test", score(problem, test_y, model.predict(test_x)))
        return score(problem, y[val], model.predict(x[val]))

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(
        direction="minimize" if problem == "regression" else "maximize",
        sampler=optuna.samplers.TPESampler(seed=rep + 1))
    study.optimize(objective, timeout=seconds, n_jobs=2)
    done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    return study.best_trial.user_attrs["test"], len(done), seconds


def main():
    sweep, work, seconds, repeats = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
    names = sys.argv[5:] or ["breast_cancer", "wine", "digits", "diabetes"]
    results = {}
    tools = os.environ.get("AUTOML_TOOLS", "sweep,optuna,hgb").split(",")
    for name in names:
        max_iter = (20, 200)
        if name == "fashion_mnist":
            train_x, train_y, test_x, test_y = load_fashion_mnist()
            problem, max_iter = "classification", (5, 50)
        else:
            x, y, problem = load(name)
            order = np.random.default_rng(12345).permutation(len(x))
            n_test = len(x) // 5
            te, tr = order[:n_test], order[n_test:]
            train_x, train_y, test_x, test_y = x[tr], y[tr], x[te], y[te]
            write_csv(os.path.join(work, f"{name}_train.csv"), train_x, train_y)
            write_csv(os.path.join(work, f"{name}_test.csv"), test_x, test_y)
        run_optuna.test = (test_x, test_y)
        hgb_score = float("nan")
        if "hgb" in tools:
            hgb = (HistGradientBoostingRegressor() if problem == "regression"
                   else HistGradientBoostingClassifier()).fit(train_x, train_y)
            hgb_score = score(problem, test_y, hgb.predict(test_x))
        print(json.dumps({"data": name, "tool": "hist_gradient_boosting", "test": hgb_score}),
              flush=True)
        r = results.setdefault(name, {"problem": problem, "sweep": [], "optuna": [],
                                      "hgb": hgb_score, "sweep_trials": [], "optuna_trials": []})
        for rep in range(repeats):
            order_tools = ["sweep", "optuna"] if rep % 2 == 0 else ["optuna", "sweep"]
            for tool in [t for t in order_tools if t in tools]:
                if tool == "sweep":
                    s, n, wall = run_sweep(sweep, work, name, problem, seconds, rep)
                else:
                    s, n, wall = run_optuna(train_x, train_y, problem, seconds, rep, max_iter)
                r[tool].append(s)
                r[tool + "_trials"].append(n)
                print(json.dumps({"data": name, "tool": tool, "repeat": rep, "test": s,
                                  "trials": n, "wall_s": round(wall, 1)}), flush=True)
    print(f"\n| data set | metric | sweep (median) | Optuna 5 + sklearn MLP (median) | "
          f"HistGradientBoosting | trials in {seconds:g} s: sweep / Optuna |")
    print("|---|---|---|---|---|---|")
    for name, r in results.items():
        metric = "test RMSE (lower is better)" if r["problem"] == "regression" else "test accuracy"
        med = lambda v, f="{:.4f}": f.format(np.median(v)) if v else "not run"
        print(f"| {name} | {metric} | {med(r['sweep'])} | {med(r['optuna'])} "
              f"| {r['hgb']:.4f} | {med(r['sweep_trials'], '{:.0f}')} / "
              f"{med(r['optuna_trials'], '{:.0f}')} |")


main()
