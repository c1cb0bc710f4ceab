#!/usr/bin/python3
"""bench/search: best value found against resource consumed (steps summed
over trials) for random search, Hyperband, ASHA, PBT and the median rule, on
the synthetic `curve` task and on a small Fashion-MNIST MLP space, over
several seeds; side by side with Optuna's HyperbandPruner on the same
synthetic objective and budget.

Usage: bench/search/run.py [--seeds 10] [--tasks curve,mlp] [--algos LIST] [--out DIR]
(--algos: random,hyperband,bohb,asha,pbt,median,optuna-hyperband by default)
Needs: the built sweep binary (scripts/build.sh) and, for the peer,
python3-optuna (Debian). Writes DIR/summary.md (the tables for RESULTS.md),
DIR/traces.json and one SVG plot per task.

"Best" is the best objective among trials that ran the full resource (a
configuration trained to the end), as in the Hyperband paper; the resource is
counted in steps (epochs) actually run, in commit order.
"""
import argparse
import json
import math
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SWEEP = os.path.join(ROOT, "build", "cli", "sweep")

# ---------------------------------------------------------------- tasks
# Each task: the study head, its max resource, the random-search trial count
# (its resource is the reference), and a budget of 1/5 of that for the rest.
TASKS = {
    "curve": {
        "R": 81,
        "goal": "minimize",
        "metric": "value",
        "task": "task: {synthetic: {function: curve, steps: 81}}",
        "params": "  x1: {type: float, min: 0, max: 1}\n"
        "  x2: {type: float, min: 0, max: 1}\n"
        "  x3: {type: float, min: 0, max: 1}\n",
        "random_trials": 100,
        "pbt": "population: 20, perturbation_interval: 9",
        "runners": 2,
    },
    "mlp": {
        "R": 9,
        "goal": "maximize",
        "metric": "val_accuracy",
        "task": "task:\n  train: {model: mlp, epochs: 9, validation: 50000, hidden_layers: 1, "
        "lr_schedule: constant, threads: 1}",
        "params": "  lr: {type: float, min: 1.0e-3, max: 0.5, log: true}\n"
        "  momentum: {type: float, min: 0.0, max: 0.95}\n"
        "  batch_size: {type: categorical, values: [32, 64, 128, 256, 512]}\n"
        "  hidden_units: {type: int, min: 16, max: 512, log: true}\n"
        "  dropout: {type: float, min: 0.0, max: 0.5}\n",
        "random_trials": 39,
        "pbt": "population: 8, perturbation_interval: 1",
        "runners": 2,
    },
}


BOHB_CONFIG = ""  # --bohb-config: the study's bohb: map, to compare settings


def study_yaml(task, algo, seed):
    t = TASKS[task]
    R = t["R"]
    budget = t["random_trials"] * R // 5
    algos = {
        "random": f"{{type: random, max_trials: {t['random_trials']}}}",
        "hyperband": f"{{type: hyperband, budget: {budget}, hyperband: {{reduction_factor: 3}}}}",
        "bohb": f"{{type: bohb, budget: {budget}, hyperband: {{reduction_factor: 3}}"
                + (f", bohb: {{{BOHB_CONFIG}}}" if BOHB_CONFIG else "") + "}",
        "asha": f"{{type: asha, max_trials: 100000, budget: {budget}, asha: {{reduction_factor: 3}}}}",
        "median": f"{{type: median, max_trials: 100000, budget: {budget}}}",
        "pbt": f"{{type: pbt, pbt: {{{t['pbt']}}}}}",
    }
    return (f"name: {task}-{algo}-{seed}\nobjective: {{metric: {t['metric']}, goal: {t['goal']}}}\n"
            f"{t['task']}\nalgorithm: {algos[algo]}\nseed: {seed}\nparameters:\n{t['params']}")


def trace_from_db(db, R, maximize):
    """(resource, incumbent) after each report, in commit order."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    metric = con.execute("SELECT objective_metric FROM studies").fetchone()[0]
    rows = con.execute(
        "SELECT r.step, r.value FROM reports r WHERE r.metric = ? ORDER BY r.at, r.trial_id, r.step",
        (metric,)).fetchall()
    con.close()
    best, out = None, []
    for used, (step, value) in enumerate(rows, 1):
        if step == R and value is not None and (best is None or
                                                 (value > best if maximize else value < best)):
            best = value
        out.append((used, best))
    return out


def run_sweep(task, algo, seed, work):
    path = os.path.join(work, f"{task}-{algo}-{seed}")
    os.makedirs(path, exist_ok=True)
    study = os.path.join(path, "s.yaml")
    db = os.path.join(path, "r.db")
    t = TASKS[task]
    # A finished run of the same study (from an interrupted benchmark with
    # --work) is reused: sweep refuses a changed study, so it is the same.
    if os.path.exists(db) and open(study).read() == study_yaml(task, algo, seed):
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        done = con.execute("SELECT status FROM studies").fetchone()
        con.close()
        wall = os.path.join(path, "wall_s")
        if done and done[0] == "completed" and os.path.exists(wall):
            return trace_from_db(db, t["R"], t["goal"] == "maximize"), float(open(wall).read())
    with open(study, "w") as f:
        f.write(study_yaml(task, algo, seed))
    t0 = time.time()
    p = subprocess.run([SWEEP, "run", study, "--db", db, "--local-runners",
                        str(TASKS[task]["runners"]), "--progress", "plain"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"sweep failed on {task}/{algo}/{seed}:\n{p.stdout}\n{p.stderr}")
    secs = time.time() - t0
    with open(os.path.join(path, "wall_s"), "w") as f:
        f.write(str(secs))
    return trace_from_db(db, t["R"], t["goal"] == "maximize"), secs


# ------------------------------------------------- the peer: Optuna Hyperband
def curve_value(x, t):
    """The same curve as trial_runner/synthetic.cc, step by step."""
    mse = sum((v - 0.7) ** 2 for v in x) / len(x)
    final, gap, tau = 0.1 + 2 * mse, 0.2 + 2 * x[0], 2 + 10 * x[0] * x[0]
    decay = math.exp(-1.0 / tau)
    v = final + gap
    out = []
    for _ in range(t):
        v = final + (v - final) * decay
        out.append(v)
    return out


def run_optuna(seed, budget, R):
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(
        direction="minimize", sampler=optuna.samplers.RandomSampler(seed=seed),
        pruner=optuna.pruners.HyperbandPruner(min_resource=1, max_resource=R, reduction_factor=3))
    used, best, trace = 0, None, []

    def objective(trial):
        nonlocal used, best
        x = [trial.suggest_float(f"x{i}", 0, 1) for i in (1, 2, 3)]
        values = curve_value(x, R)
        for step, v in enumerate(values, 1):
            used += 1
            trial.report(v, step)
            if step == R and (best is None or v < best):
                best = v
            trace.append((used, best))
            if trial.should_prune():
                raise optuna.TrialPruned()
        return values[-1]

    t0 = time.time()
    while used < budget:
        study.optimize(objective, n_trials=1)
    return trace, time.time() - t0


# ------------------------------------------------------------- summaries
def best_at(trace, resource):
    best = None
    for used, b in trace:
        if used > resource:
            break
        best = b
    return best


def first_reaching(trace, target, maximize):
    for used, b in trace:
        if b is not None and (b >= target if maximize else b <= target):
            return used
    return None


def quartiles(xs):
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return None
    if len(xs) == 1:
        return xs[0], xs[0], xs[0]
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return q[0], statistics.median(xs), q[2]


def fmt(q, digits=4):
    if q is None:
        return "–"
    return f"{q[1]:.{digits}g} ({q[0]:.{digits}g}–{q[2]:.{digits}g})"


def svg_plot(task, traces, ref_resource, path, maximize):
    """Median incumbent over seeds against resource, one line per algorithm."""
    W, H, L, B = 640, 400, 70, 40
    colors = {"random": "#777", "hyperband": "#d62728", "asha": "#1f77b4", "pbt": "#2ca02c",
              "median": "#9467bd", "optuna-hyperband": "#ff7f0e", "bohb": "#8c564b"}
    grid = [ref_resource * k / 200 for k in range(1, 201)]
    lines, lo, hi = {}, math.inf, -math.inf
    for algo, runs in traces.items():
        pts = []
        for r in grid:
            vals = [best_at(t, r) for t in runs]
            vals = [v for v in vals if v is not None]
            if len(vals) * 2 >= len(runs):  # a median exists once half the seeds have one
                m = statistics.median(vals)
                pts.append((r, m))
                lo, hi = min(lo, m), max(hi, m)
        lines[algo] = pts
    if hi <= lo:
        hi = lo + 1
    x = lambda r: L + (W - L - 10) * math.log10(r) / math.log10(ref_resource)
    y = lambda v: 10 + (H - B - 10) * ((hi - v) / (hi - lo) if maximize else (v - lo) / (hi - lo))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W/2}" y="{H-5}" text-anchor="middle">resource (steps, log scale; '
           f'random search uses {ref_resource})</text>',
           f'<text x="12" y="{H/2}" transform="rotate(-90 12 {H/2})" text-anchor="middle">'
           f'median best {"(higher is better)" if maximize else "(lower is better)"}</text>',
           f'<line x1="{L}" y1="{H-B}" x2="{W-10}" y2="{H-B}" stroke="black"/>',
           f'<line x1="{L}" y1="10" x2="{L}" y2="{H-B}" stroke="black"/>']
    for v in (lo, (lo + hi) / 2, hi):
        out.append(f'<text x="{L-5}" y="{y(v)+4}" text-anchor="end">{v:.3g}</text>')
    for r in (1, 10, 100, 1000, 10000):
        if r <= ref_resource:
            out.append(f'<text x="{x(r)}" y="{H-B+15}" text-anchor="middle">{r}</text>')
    for i, (algo, pts) in enumerate(lines.items()):
        if not pts:
            continue
        d = " ".join(f"{x(r):.1f},{y(v):.1f}" for r, v in pts)
        c = colors.get(algo, "#000")
        out.append(f'<polyline fill="none" stroke="{c}" stroke-width="2" points="{d}"/>')
        out.append(f'<text x="{W-150}" y="{25+15*i}" fill="{c}">{algo}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--tasks", default="curve,mlp")
    ap.add_argument("--algos", default="random,hyperband,bohb,asha,pbt,median,optuna-hyperband",
                    help="comma-separated; random is the reference and always runs")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "search", "out"))
    ap.add_argument("--work", help="keep each run's study and database here (and reuse finished "
                    "ones); default: a temporary folder")
    ap.add_argument("--bohb-config", default="",
                    help='settings for bohb:, e.g. "random_fraction: 0.2" (default: none)')
    args = ap.parse_args()
    global BOHB_CONFIG
    BOHB_CONFIG = args.bohb_config
    os.makedirs(args.out, exist_ok=True)
    summary, all_traces = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or tmp
        os.makedirs(work, exist_ok=True)
        for task in args.tasks.split(","):
            t = TASKS[task]
            maximize = t["goal"] == "maximize"
            ref = t["random_trials"] * t["R"]
            algos = ["random"] + [a for a in args.algos.split(",")
                                  if a not in ("random", "optuna-hyperband")]
            traces, seconds = {a: [] for a in algos}, {a: 0.0 for a in algos}
            for seed in range(1, args.seeds + 1):
                for algo in algos:
                    tr, s = run_sweep(task, algo, seed, work)
                    traces[algo].append(tr)
                    seconds[algo] += s
                    print(f"{task} {algo} seed {seed}: {tr[-1][0]} steps, best {tr[-1][1]}, "
                          f"{s:.1f} s", flush=True)
                if task == "curve" and "optuna-hyperband" in args.algos.split(","):
                    tr, s = run_optuna(seed, ref // 5, t["R"])
                    traces.setdefault("optuna-hyperband", []).append(tr)
                    seconds["optuna-hyperband"] = seconds.get("optuna-hyperband", 0) + s
            all_traces[task] = traces
            random_best = [tr[-1][1] for tr in traces["random"]]
            summary.append(f"### {task}: R = {t['R']}, random search = {t['random_trials']} "
                           f"trials = {ref} steps; the others get {ref // 5} steps (1/5)\n")
            summary.append("| algorithm | steps used | best at 1/5 of random's resource | "
                           "best at the end | steps to reach random's final best (÷ random's) | "
                           "seeds that reach it | wall s (all seeds) |")
            summary.append("|---|---|---|---|---|---|---|")
            for algo, runs in traces.items():
                used = quartiles([tr[-1][0] for tr in runs])
                reach = [first_reaching(tr, rb, maximize) for tr, rb in zip(runs, random_best)]
                ratio = quartiles([r / ref for r in reach if r is not None])
                n = sum(r is not None for r in reach)
                summary.append(
                    f"| {algo} | {fmt(used, 5)} | {fmt(quartiles([best_at(tr, ref // 5) for tr in runs]))} | "
                    f"{fmt(quartiles([tr[-1][1] for tr in runs]))} | "
                    f"{fmt(ratio, 2) if ratio else '–'} | {n}/{len(runs)} | {seconds[algo]:.1f} |")
            summary.append("")
            svg_plot(task, traces, ref, os.path.join(args.out, f"{task}.svg"), maximize)
    text = ("Median (25th–75th percentile) over seeds 1.." + str(args.seeds) + ".\n\n" +
            "\n".join(summary))
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write(text)
    with open(os.path.join(args.out, "traces.json"), "w") as f:
        json.dump(all_traces, f)
    print(text)


if __name__ == "__main__":
    main()
