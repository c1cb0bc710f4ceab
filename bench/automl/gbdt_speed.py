#!/usr/bin/env python3
"""model: gbdt (sweep calls XGBoost's C API) against XGBoost's Python package.

Usage: gbdt_speed.py SWEEP WORKDIR REPEATS ROWS [DEBIAN_PYTHON]
(gbdt_speed.sh makes the venvs). One generated table (ROWS rows, 20 numeric
features, 3 classes) as CSV. For each thread count (1, 2) and each repeat,
rotating which goes first:

- sweep: `sweep run` of a one-trial study (model gbdt, rounds 200, epochs 10,
  max_depth 6, eta 0.3, the fifth of the rows sweep carves for validation)
  on one local runner. `boost` is the sum of its steps' epoch_seconds (the
  boosting only); `trial` its start to end in the database (reading and
  encoding the table, boosting, the validation and training predictions and
  the checkpoint at each of the 10 steps, the test predictions).
- xgboost: the same rows and knobs through xgboost.train on a DMatrix:
  `boost` is xgboost.train with no evaluation set; `trial` adds reading the
  CSV with numpy, making the matrices, evaluating the validation rows at
  every round (XGBoost's way to watch a model) and predicting the test rows.
  Run in a fresh interpreter each time, with the PyPI wheel's library (and
  the libgomp it bundles).
- xgboost-debian (when DEBIAN_PYTHON is given): the same Python code on
  Debian's libxgboost.so.0, the very library sweep calls (a venv whose
  xgboost/lib/libxgboost.so links to it), so that sweep / xgboost-debian is
  sweep's own overhead and xgboost-debian / xgboost is the library build's.

Prints one JSON line per run and a Markdown table of medians and ratios.
"""
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import time

import numpy as np
import xgboost as xgb

ROUNDS, STEPS, DEPTH, ETA = 200, 10, 6, 0.3


def make_table(path, rows, seed=7):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, 20))
    score = x[:, :5] @ np.array([1.5, -2.0, 1.0, 0.5, -1.0]) + np.sin(3 * x[:, 5]) + 0.5 * rng.normal(size=rows)
    y = np.digitize(score, np.quantile(score, [1 / 3, 2 / 3]))
    with open(path, "w") as f:
        f.write(",".join("x%d" % i for i in range(20)) + ",y\n")
        for r, c in zip(x, y):
            f.write(",".join("%.6f" % v for v in r) + ",c%d\n" % c)


def run_sweep(sweep, work, table, threads, k):
    study = os.path.join(work, "s%d.yaml" % k)
    db = os.path.join(work, "s%d.db" % k)
    with open(study, "w") as f:
        f.write("name: g\nobjective: {metric: val_loss, goal: minimize}\n"
                "task:\n  train:\n    data:\n      csv: {train: %s, label: y}\n"
                "    model: gbdt\n    rounds: %d\n    epochs: %d\n    max_depth: %d\n"
                "    eta: %g\n    threads: %d\n"
                "algorithm: {type: random, max_trials: 1}\nseed: 1\n"
                "parameters:\n  subsample: {type: constant, value: 1}\n"
                % (table, ROUNDS, STEPS, DEPTH, ETA, threads))
    subprocess.run([sweep, "run", study, "--db", db, "--local-runners", "1",
                    "--progress", "plain"], check=True, capture_output=True)
    con = sqlite3.connect(db)
    boost = con.execute("SELECT sum(value) FROM reports WHERE metric='epoch_seconds'").fetchone()[0]
    trial, acc = con.execute(
        "SELECT ended_at - started_at, json_extract(metrics, '$.test_accuracy') FROM trials").fetchone()
    return {"boost": boost, "trial": trial, "test_accuracy": acc}


def run_xgb(table, threads):
    start = time.perf_counter()
    data = np.genfromtxt(table, delimiter=",", skip_header=1, usecols=range(20), dtype=np.float32)
    y = np.array([int(line.rsplit(",", 1)[1][1:]) for line in open(table).read().split("\n")[1:] if line])
    n = len(y)
    test = n // 5  # sweep holds out a fifth for test and a fifth of the rest for validation
    tr_end = n - test
    val = tr_end // 5
    dtrain = xgb.DMatrix(data[:tr_end - val], label=y[:tr_end - val], nthread=threads)
    dval = xgb.DMatrix(data[tr_end - val:tr_end], label=y[tr_end - val:tr_end], nthread=threads)
    params = {"objective": "multi:softprob", "num_class": 3, "tree_method": "hist",
              "nthread": threads, "max_depth": DEPTH, "eta": ETA, "seed": 1, "verbosity": 0}
    b0 = time.perf_counter()
    xgb.train(params, dtrain, ROUNDS)
    boost = time.perf_counter() - b0
    booster = xgb.train(params, dtrain, ROUNDS, evals=[(dval, "val")], verbose_eval=False)
    p = booster.predict(xgb.DMatrix(data[tr_end:], nthread=threads))
    acc = float((p.argmax(1) == y[tr_end:]).mean())
    trial = time.perf_counter() - start - boost  # the evaluated run, not the bare one
    return {"boost": boost, "trial": trial, "test_accuracy": acc}


def run_python(python, table, threads):
    out = subprocess.run([python, os.path.abspath(__file__), "--xgb", table, str(threads)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    if sys.argv[1] == "--xgb":
        print(json.dumps(run_xgb(sys.argv[2], int(sys.argv[3]))))
        return
    sweep, work, repeats, rows = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    pythons = {"xgboost": sys.executable}
    if len(sys.argv) > 5:
        pythons["xgboost-debian"] = sys.argv[5]
    tools = ["sweep"] + list(pythons)
    table = os.path.join(work, "table.csv")
    make_table(table, rows)
    results = {}
    k = 0
    for threads in (1, 2):
        for r in range(repeats):
            order = tools[r % len(tools):] + tools[:r % len(tools)]
            for tool in order:
                k += 1
                if tool == "sweep":
                    out = run_sweep(sweep, work, table, threads, k)
                else:
                    out = run_python(pythons[tool], table, threads)
                out.update({"tool": tool, "threads": threads, "repeat": r, "rows": rows})
                print(json.dumps(out), flush=True)
                results.setdefault((threads, tool), []).append(out)
    med = lambda rs, key: statistics.median(r[key] for r in rs)
    for key in ("boost", "trial"):
        cols = ["threads"] + ["%s %s s" % (t, key) for t in tools] + ["sweep / " + t for t in pythons]
        print("\n| " + " | ".join(cols) + " |\n|" + "---|" * len(cols))
        for threads in (1, 2):
            m = {t: med(results[(threads, t)], key) for t in tools}
            print("| %d | " % threads + " | ".join("%.3f" % m[t] for t in tools) + " | " +
                  " | ".join("%.2f" % (m["sweep"] / m[t]) for t in pythons) + " |")


if __name__ == "__main__":
    main()
