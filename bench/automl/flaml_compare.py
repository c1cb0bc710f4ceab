#!/usr/bin/env python3
"""`sweep automl` against FLAML 2 at equal time on the development tables.

Usage: flaml_compare.py SWEEP WORKDIR SECONDS SEEDS [DATA SET...]
(flaml_compare.sh makes the virtual environment). Development tables only:
scikit-learn's (breast cancer, wine, digits, iris, diabetes) and generated
ones (gen_classes: make_classification; friedman1: make_friedman1).
statsmodels' tables are kept for an independent comparison: not here.

For each table and seed, one seeded 80/20 train/test split (stratified for
classes) is written as CSV; then, alternating which goes first:
- sweep: `sweep automl train.csv --label label --test test.csv
  --time-limit SECONDS --seed SEED` (its defaults: 2 local runners here),
  the best trial's test metric read with `sweep best --format json`;
- FLAML: AutoML().fit(time_budget=SECONDS, n_jobs=2, seed=SEED) with
  accuracy or r2 as its metric, scored on the same test rows.
Prints one JSON line per run and a Markdown table: test accuracy or R²,
mean and each seed, and the wall time each took. AUTOML_TOOLS=sweep (or
flaml) runs one side only; SWEEP_AUTOML_ARGS adds flags to `sweep automl`
(how its defaults were chosen: e.g. "--metric val_loss").
"""
import json
import os
import subprocess
import sys
import time
import warnings

import numpy as np
from sklearn import datasets
from sklearn.metrics import accuracy_score, r2_score
from sklearn.model_selection import train_test_split

from bench_tables import SK, write_csv

warnings.filterwarnings("ignore")
TOOLS = os.environ.get("AUTOML_TOOLS", "sweep,flaml").split(",")
TABLES = ["breast_cancer", "wine", "digits", "iris", "diabetes", "gen_classes", "friedman1"]


def load(name):
    if name == "diabetes":
        x = np.loadtxt(os.path.join(SK, "diabetes_data_raw.csv.gz"))
        y = np.loadtxt(os.path.join(SK, "diabetes_target.csv.gz"))
        return x, y, "regression"
    if name == "gen_classes":
        x, y = datasets.make_classification(n_samples=3000, n_features=20, n_informative=8,
                                            n_redundant=4, n_classes=3, flip_y=0.03,
                                            random_state=0)
        return x, y, "classification"
    if name == "friedman1":
        x, y = datasets.make_friedman1(n_samples=3000, noise=1.0, random_state=0)
        return x, y, "regression"
    if name == "iris":
        d = np.loadtxt(os.path.join(SK, "iris.csv"), delimiter=",", skiprows=1)
        return d[:, :-1], d[:, -1].astype(int), "classification"
    f = {"breast_cancer": "breast_cancer.csv", "wine": "wine_data.csv",
         "digits": "digits.csv.gz"}[name]
    d = np.loadtxt(os.path.join(SK, f), delimiter=",", skiprows=0 if name == "digits" else 1)
    return d[:, :-1], d[:, -1].astype(int), "classification"


def run_sweep(sweep, work, name, seed, seconds, problem):
    tag = f"{name}_{seed}"
    start = time.monotonic()
    r = subprocess.run([sweep, "automl", os.path.join(work, f"{tag}_train.csv"), "--label",
                        "label", "--test", os.path.join(work, f"{tag}_test.csv"), "--time-limit",
                        f"{seconds}s", "--seed", str(seed), "--db", os.path.join(work, tag + ".db"),
                        "--study", os.path.join(work, tag + ".yaml"), "-o",
                        os.path.join(work, tag + ".onnx"), "--progress", "plain"] +
                       os.environ.get("SWEEP_AUTOML_ARGS", "").split(),
                       capture_output=True, text=True, cwd=work)
    wall = time.monotonic() - start
    if r.returncode != 0:
        sys.exit(f"sweep automl failed on {tag}:\n{r.stdout}\n{r.stderr}")
    best = json.loads(subprocess.run([sweep, "best", "--db", os.path.join(work, tag + ".db"),
                                      "--format", "json"], capture_output=True, text=True,
                                     check=True).stdout)
    key = "test_r2" if problem == "regression" else "test_accuracy"
    n = subprocess.run([sweep, "query", "--db", os.path.join(work, tag + ".db"), "--format",
                        "csv", "SELECT json_extract(params, '$.model') AS model, count(*) AS n "
                        "FROM trials WHERE status = 'completed' GROUP BY 1"],
                       capture_output=True, text=True).stdout.splitlines()[1:]
    return best["metrics"][key], wall, best["params"].get("model"), \
        ", ".join(line.replace(",", " ") for line in n)


def run_flaml(x, y, xt, yt, problem, seconds, seed):
    from flaml import AutoML
    a = AutoML()
    start = time.monotonic()
    a.fit(x, y, task=problem, time_budget=seconds, n_jobs=2, seed=seed, verbose=0,
          metric="r2" if problem == "regression" else "accuracy")
    wall = time.monotonic() - start
    p = a.predict(xt)
    s = r2_score(yt, p) if problem == "regression" else accuracy_score(yt, p)
    return float(s), wall, a.best_estimator


def main():
    sweep, work, seconds, seeds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    names = sys.argv[5:] or TABLES
    rows = {}
    for name in names:
        x, y, problem = load(name)
        for seed in range(seeds):
            tx, ex, ty, ey = train_test_split(x, y, test_size=0.2, random_state=seed,
                                              stratify=y if problem == "classification" else None)
            write_csv(os.path.join(work, f"{name}_{seed}_train.csv"), tx, ty)
            write_csv(os.path.join(work, f"{name}_{seed}_test.csv"), ex, ey)
            order = ["sweep", "flaml"] if seed % 2 == 0 else ["flaml", "sweep"]
            for tool in [t for t in order if t in TOOLS]:
                if tool == "sweep":
                    s, wall, best, families = run_sweep(sweep, work, name, seed, seconds, problem)
                else:
                    s, wall, best = run_flaml(tx, ty, ex, ey, problem, seconds, seed)
                    families = ""
                line = {"table": name, "seed": seed, "tool": tool, "score": s, "wall_s": wall,
                        "best": best, "completed": families}
                print(json.dumps(line), flush=True)
                rows.setdefault((name, tool), []).append(line)
    print("\n| table | metric | sweep automl (mean; per seed) | FLAML (mean; per seed) | "
          "sweep − FLAML | wall s (sweep / FLAML) |")
    print("|---|---|---|---|---|---|")
    for name in names:
        s, f = rows.get((name, "sweep"), []), rows.get((name, "flaml"), [])
        metric = "R²" if load(name)[2] == "regression" else "accuracy"
        ms = np.mean([r["score"] for r in s]) if s else float("nan")
        mf = np.mean([r["score"] for r in f]) if f else float("nan")
        fmt = lambda rs: ", ".join(f"{r['score']:.4f}" for r in rs)
        print(f"| {name} | {metric} | {ms:.4f}; {fmt(s)} | {mf:.4f}; {fmt(f)} | {ms - mf:+.4f} | "
              f"{np.mean([r['wall_s'] for r in s] or [0]):.0f} / "
              f"{np.mean([r['wall_s'] for r in f] or [0]):.0f} |")


if __name__ == "__main__":
    main()
