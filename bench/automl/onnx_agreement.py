#!/usr/bin/env python3
"""Runs exported sweep models with onnxruntime and compares them with `sweep predict`.

Usage: onnx_agreement.py SWEEP WORKDIR  (onnx_agreement.sh makes the virtual
environment with onnxruntime and calls this). For each case: a small `sweep
run`, `sweep export-model` of the best trial, `sweep predict` on raw rows
(for most cases the training file itself), and onnxruntime on the same rows. Prints one
line per case and exits 1 when any output differs by more than 1e-5 (relative
to the value's size where it is above 1).
"""
import csv
import gzip
import json
import math
import os
import subprocess
import sys

import numpy as np
import onnxruntime as ort

from bench_tables import SK


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stdout}\n{r.stderr}")
    return r.stdout


def npy(path, a):
    np.save(path, a)
    return path


def case(sweep, work, name, study, feed, predict_input):
    """Runs a study, exports and predicts; `feed` is the raw ONNX input (or a
    dict of inputs: "input" for numbers, "text" for text columns)."""
    path = os.path.join(work, name + ".yaml")
    with open(path, "w") as f:
        f.write(study)
    db = os.path.join(work, name + ".db")
    model = os.path.join(work, name + ".onnx")
    run([sweep, "run", path, "--db", db, "--local-runners", "2", "--progress", "plain"])
    run([sweep, "export-model", "--db", db, "-o", model])
    out = run([sweep, "predict", "--db", db, "--input", predict_input, "--format", "csv"])
    rows = list(csv.reader(out.splitlines()))
    header, rows = rows[0], rows[1:]
    sess = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    meta = sess.get_modelmeta().custom_metadata_map
    got = sess.run(None, feed if isinstance(feed, dict) else {"input": feed})
    worst = 0.0
    agree = 0
    if meta["problem"] == "regression":
        ours = np.array([float(r[0]) for r in rows])
        theirs = got[0][:, 0].astype(np.float64)
        for a, b in zip(ours, theirs):
            worst = max(worst, abs(a - b) / max(1.0, abs(b)))
        agree = len(rows)
    else:
        classes = json.loads(meta["classes"])
        ours = np.array([[float(x) for x in r[1:]] for r in rows])
        theirs = got[0].astype(np.float64)
        worst = float(np.max(np.abs(ours - theirs)))
        agree = sum(1 for r, k in zip(rows, got[1]) if r[0] == classes[int(k)])
    ok = worst <= 1e-5 and agree == len(rows)
    print(f"{name}: {len(rows)} rows, classes/predictions agree on {agree}, "
          f"largest difference {worst:.2e} -> {'ok' if ok else 'DIFFERENT'}")
    return ok


def main():
    sweep, work = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(0)
    ok = True

    # Wine (classification, scikit-learn's CSV): predict on the file itself.
    wine = os.path.join(SK, "wine_data.csv")
    x = np.loadtxt(wine, delimiter=",", skiprows=1, dtype=np.float32)[:, :13]
    ok &= case(sweep, work, "wine", f"""name: wine
objective: {{metric: val_accuracy, goal: maximize}}
task:
  train:
    data: {{csv: {{train: {wine}, header: false, skip_rows: 1, label: c14}}}}
    model: mlp
    epochs: 20
    batch_size: 16
    optimizer: adam
    batch_norm: true
algorithm: {{type: random, max_trials: 3}}
seed: 1
parameters:
  lr: {{type: float, min: 0.001, max: 0.01, log: true}}
  activation: {{type: categorical, values: [relu, gelu, tanh]}}
""", x, wine)

    # Diabetes (regression; space-separated, the target in its own file).
    raw = os.path.join(SK, "diabetes_data_raw.csv.gz")
    with gzip.open(raw, "rt") as f:
        x = np.loadtxt(f, dtype=np.float32)
    plain = os.path.join(work, "diabetes_x.csv")
    np.savetxt(plain, x, delimiter=" ", fmt="%.9g")
    ok &= case(sweep, work, "diabetes", f"""name: diabetes
objective: {{metric: val_rmse, goal: minimize}}
task:
  train:
    problem: regression
    data:
      csv:
        train: {raw}
        train_labels: {os.path.join(SK, "diabetes_target.csv.gz")}
        delimiter: " "
        header: false
        label: progression
    model: mlp
    epochs: 20
    batch_size: 32
    optimizer: adam
algorithm: {{type: random, max_trials: 3}}
seed: 1
parameters:
  lr: {{type: float, min: 0.001, max: 0.01, log: true}}
""", x, plain)

    # A table with missing cells (missing: mean adds indicator features).
    n = 400
    a, b = rng.random(n), rng.random(n)
    b_missing = rng.random(n) < 0.15
    with open(os.path.join(work, "gaps.csv"), "w") as f:
        f.write("a,b,y\n")
        for i in range(n):
            bb = "" if b_missing[i] else f"{b[i]:.6f}"
            f.write(f"{a[i]:.6f},{bb},{'up' if a[i] + (0.5 if b_missing[i] else b[i]) > 1 else 'down'}\n")
    feed = np.array([[float(a[i]), math.nan if b_missing[i] else float(f"{b[i]:.6f}")]
                     for i in range(n)], dtype=np.float32)
    feed[:, 0] = np.array([float(f"{v:.6f}") for v in a], dtype=np.float32)
    ok &= case(sweep, work, "gaps", """name: gaps
objective: {metric: val_accuracy, goal: maximize}
task:
  train:
    data: {csv: {train: gaps.csv, label: y, missing: mean}}
    model: mlp
    epochs: 15
    batch_size: 16
    optimizer: adam
    lr: 0.01
algorithm: {type: random, max_trials: 2}
seed: 2
parameters:
  hidden_units: {type: int, min: 8, max: 32}
""", feed, os.path.join(work, "gaps.csv"))

    # Text columns (a string input, one-hot encoded inside): scikit-learn's
    # diabetes rows with sex written as a word and age as a decade ("40s"),
    # predicting the progression from them and the other eight columns.
    with gzip.open(raw, "rt") as f:
        x = np.loadtxt(f, dtype=np.float64)
    target = np.loadtxt(os.path.join(SK, "diabetes_target.csv.gz"))
    sex = np.where(x[:, 1] == 1, "female", "male")
    decade = np.array([f"{int(v // 10) * 10}s" for v in x[:, 0]])
    # Predicted on the same rows, but every tenth with a sex training never
    # saw (all zeros, in both).
    unseen = np.where(np.arange(len(x)) % 10 == 0, "other", sex)
    for name, sexes in (("diabetes_text.csv", sex), ("diabetes_text_predict.csv", unseen)):
        with open(os.path.join(work, name), "w") as f:
            f.write("age,sex,bmi,bp,s1,s2,s3,s4,s5,s6,progression\n")
            for i in range(len(x)):
                nums = ",".join(f"{v:.9g}" for v in x[i, 2:])
                f.write(f"{decade[i]},{sexes[i]},{nums},{target[i]:.9g}\n")
    feed = {"input": np.array([[float(f"{v:.9g}") for v in row] for row in x[:, 2:]],
                              dtype=np.float32),
            "text": np.array([[d, s] for d, s in zip(decade, unseen)], dtype=object)}
    ok &= case(sweep, work, "diabetes_text", """name: diabetes-text
objective: {metric: val_rmse, goal: minimize}
task:
  train:
    problem: regression
    data: {csv: {train: diabetes_text.csv, label: progression}}
    model: mlp
    epochs: 20
    batch_size: 32
    optimizer: adam
algorithm: {type: random, max_trials: 2}
seed: 4
parameters:
  lr: {type: float, min: 0.001, max: 0.01, log: true}
""", feed, os.path.join(work, "diabetes_text_predict.csv"))

    # Trees (model: gbdt, one TreeEnsembleRegressor): wine's three classes,
    # the diabetes regression with text columns, and the gaps table twice:
    # mean-filled cells, and missing: native (NaN goes where each split learned).
    wine_x = np.loadtxt(wine, delimiter=",", skiprows=1, dtype=np.float32)[:, :13]
    trees = """
    model: gbdt
    epochs: 4
    rounds: 60
algorithm: {type: random, max_trials: 2}
seed: 5
parameters:
  max_depth: {type: int, min: 2, max: 6}
  subsample: {type: float, min: 0.6, max: 1}
"""
    ok &= case(sweep, work, "wine_trees", f"""name: wine-trees
objective: {{metric: val_accuracy, goal: maximize}}
task:
  train:
    data: {{csv: {{train: {wine}, header: false, skip_rows: 1, label: c14}}}}""" + trees,
               wine_x, wine)
    ok &= case(sweep, work, "diabetes_text_trees", """name: diabetes-text-trees
objective: {metric: val_rmse, goal: minimize}
task:
  train:
    problem: regression
    data: {csv: {train: diabetes_text.csv, label: progression}}""" + trees,
               feed, os.path.join(work, "diabetes_text_predict.csv"))
    gaps_feed = np.array([[float(f"{a[i]:.6f}"), math.nan if b_missing[i] else float(f"{b[i]:.6f}")]
                          for i in range(len(a))], dtype=np.float32)
    for missing in ("mean", "native"):
        ok &= case(sweep, work, f"gaps_trees_{missing}", f"""name: gaps-trees-{missing}
objective: {{metric: val_accuracy, goal: maximize}}
task:
  train:
    data: {{csv: {{train: gaps.csv, label: y, missing: {missing}}}}}""" + trees,
                   gaps_feed, os.path.join(work, "gaps.csv"))

    # A CNN on 16x16x3 float images (channels last) and one on uint8 images.
    for dtype in ("float32", "uint8"):
        n = 300
        y = rng.integers(0, 3, n)
        imgs = rng.random((n, 16, 16, 3)) * 0.2
        for i in range(n):
            r, c = rng.integers(0, 10, 2)
            imgs[i, r:r + 6, c:c + 6, y[i]] += 0.8
        x = (imgs * 255).astype(np.uint8) if dtype == "uint8" else imgs.astype(np.float32)
        xs = npy(os.path.join(work, f"img_{dtype}_x.npy"), x)
        npy(os.path.join(work, f"img_{dtype}_y.npy"), y.astype(np.int64))
        ok &= case(sweep, work, f"cnn_{dtype}", f"""name: cnn-{dtype}
objective: {{metric: val_accuracy, goal: maximize}}
task:
  train:
    data: {{npy: {{train_x: img_{dtype}_x.npy, train_y: img_{dtype}_y.npy}}}}
    model: cnn
    conv_blocks: 2
    channels: 8
    dense_units: 32
    epochs: 3
    batch_size: 32
    batch_norm: true
algorithm: {{type: random, max_trials: 2}}
seed: 3
parameters:
  pool: {{type: categorical, values: [max, avg]}}
  lr: {{type: float, min: 0.01, max: 0.05, log: true}}
""", x.astype(np.float32), xs)
    sys.exit(0 if ok else 1)


main()
