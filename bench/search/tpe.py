#!/usr/bin/python3
"""bench/search/tpe.py: sweep's TPE against Optuna 5's TPESampler (default
settings, PyPI, in bench/.venv-optuna5, made if missing) and against random
search, on the same objectives and trial counts, in one run.

Usage: bench/search/tpe.py [--seeds 20] [--trials 100] [--workers 1,4]
                           [--objectives branin,hartmann6,rosenbrock4] [--out DIR]
                           [--sweep-tpe "n_ei_candidates: 64, gamma: 0.125"] [--trial-ms 0]
--sweep-tpe: settings for sweep's TPE (the body of its `tpe:` map; default
none: sweep's defaults, which are Optuna's). Optuna keeps its defaults.
--trial-ms: each synthetic trial lasts that long in both tools (sweep: the
synthetic task's step_ms; Optuna: a sleep in the objective, which frees the
GIL). With 0 (the default) a synthetic trial takes microseconds, and
Optuna's n_jobs threads, which share the GIL, overlap much less than
sweep's runners (about 1.5 other trials in flight at a proposal against 2.1,
of 3, in a 4-worker Branin check). A few tens of milliseconds bring the two
closer (the summary's last column says how close).
Objectives: the synthetic branin, hartmann6 and rosenbrock4, and `mlp`, the
scheduler benchmark's Fashion-MNIST MLP space (bench/search/run.py; 9 epochs
on 10,000 images, scored on 50,000), minimising 1 - val_accuracy. For `mlp`
each Optuna trial trains the same network with sweep's own nn/, through a
one-trial `sweep run` (a grid of one point) whose seed is its trial's; it
is slow (run it as `--objectives mlp --seeds 10 --trials 40`).
sweep runs each study with `--local-runners W` (real runners over ZeroMQ);
Optuna runs study.optimize(n_jobs=W) on one shared in-memory storage (its
default constant liar applies). Both minimise. For each objective, number
of workers and tool: the best value after k trials (by trial number), over
the seeds: median and quartiles. Writes DIR/tpe-summary.md (for
bench/RESULTS.md), DIR/tpe-traces.json and one SVG plot per objective and
worker count (median best against trials).
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

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run import TASKS, fmt, quartiles  # noqa: E402  (the scheduler benchmark's)
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SWEEP = os.path.join(ROOT, "build", "cli", "sweep")
VENV = os.path.join(ROOT, "bench", ".venv-optuna5")

OBJECTIVES = {
    "branin": ("branin", [("x1", -5, 10), ("x2", 0, 15)]),
    "hartmann6": ("hartmann6", [(f"x{i}", 0, 1) for i in range(1, 7)]),
    "rosenbrock4": ("rosenbrock", [(f"x{i}", -5, 10) for i in range(1, 5)]),
}


def ensure_venv():
    py = os.path.join(VENV, "bin", "python")
    if not os.path.exists(py):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
        subprocess.run([os.path.join(VENV, "bin", "pip"), "install", "-q", "optuna>=5,<6"],
                       check=True)
    return py


TRIAL_MS = 0.0  # --trial-ms
IN_FLIGHT = {}  # tool: for each run, the trials in flight at a proposal, on average


def study_lines(objective, algo, trials, seed, tpe=""):
    algorithm = f"algorithm: {{type: {algo}, max_trials: {trials}"
    algorithm += f", tpe: {{{tpe}}}}}" if tpe and algo == "tpe" else "}"
    if objective == "mlp":  # maximises val_accuracy; read back as 1 - val_accuracy
        t = TASKS["mlp"]
        return [f"name: mlp-{algo}", f"objective: {{metric: {t['metric']}, goal: {t['goal']}}}",
                t["task"], algorithm, f"seed: {seed}",
                "parameters:", t["params"].rstrip("\n")]
    function, params = OBJECTIVES[objective]
    lines = [f"name: {objective}-{algo}", "objective: {metric: value, goal: minimize}",
             f"task: {{synthetic: {{function: {function}"
             + (f", step_ms: {TRIAL_MS:g}" if TRIAL_MS > 0 else "") + "}}",
             algorithm, f"seed: {seed}", "parameters:"]
    return lines + [f"  {n}: {{type: float, min: {lo}, max: {hi}}}" for n, lo, hi in params]


def run_sweep(objective, algo, trials, workers, seed, work, tpe=""):
    study = os.path.join(work, "study.yaml")
    with open(study, "w") as f:
        f.write("\n".join(study_lines(objective, algo, trials, seed, tpe)) + "\n")
    db = os.path.join(work, "s.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    subprocess.run([SWEEP, "run", study, "--db", db, "--local-runners", str(workers),
                    "--progress", "plain"], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    values = [None] * trials
    for number, value in con.execute("SELECT number, value FROM trials WHERE status = 'completed'"):
        if number < trials and value is not None:
            values[number] = 1 - value if objective == "mlp" else value
    # Other trials proposed and not yet ended when each trial was proposed.
    spans = con.execute("SELECT created_at, ended_at FROM trials WHERE ended_at IS NOT NULL"
                        ).fetchall()
    con.close()
    IN_FLIGHT.setdefault(f"sweep-{algo}", []).append(
        sum(sum(a < s < b for a, b in spans) for s, _ in spans) / max(1, len(spans)))
    return values


def run_optuna(py, objective, trials, workers, seeds):
    env = dict(os.environ, SWEEP_BIN=SWEEP, OPTUNA_TRIAL_MS=str(TRIAL_MS))
    out = subprocess.run([py, os.path.join(HERE, "optuna_tpe.py"), objective, str(trials),
                          str(workers)] + [str(s) for s in seeds], check=True,
                         capture_output=True, text=True, env=env).stdout
    runs = {}
    for line in out.splitlines():
        r = json.loads(line)
        runs[r["seed"]] = r["values"]
        if r.get("in_flight") is not None:
            IN_FLIGHT.setdefault("optuna5-tpe", []).append(r["in_flight"])
    return [runs[s] for s in seeds]


def best_curve(values):
    best, out = math.inf, []
    for v in values:
        if v is not None and v < best:
            best = v
        out.append(best if best < math.inf else None)
    return out


def svg(title, curves, path):
    """Median best over seeds against the trial count, one line per tool."""
    W, H, L, B = 640, 400, 80, 40
    colors = {"sweep-tpe": "#9467bd", "optuna5-tpe": "#1f77b4", "random": "#777",
              "sweep-auto": "#d62728", "sweep-gp": "#ff7f0e", "optuna-tpe": "#1f77b4",
              "optuna-gp": "#2ca02c"}
    med = {tool: [statistics.median([c[k] for c in runs if c[k] is not None])
                  for k in range(len(runs[0]))] for tool, runs in curves.items()}
    lo = min(min(m[len(m) // 10:]) for m in med.values())
    hi = max(max(m[len(m) // 10:]) for m in med.values())
    if hi <= lo:
        hi = lo + 1
    n = len(next(iter(med.values())))
    x = lambda k: L + (W - L - 10) * k / (n - 1)
    y = lambda v: 10 + (H - B - 10) * (min(max(v, lo), hi) - lo) / (hi - lo)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W/2}" y="{H-5}" text-anchor="middle">{title}: trials</text>',
           f'<text x="12" y="{H/2}" transform="rotate(-90 12 {H/2})" text-anchor="middle">'
           'median best (lower is better)</text>',
           f'<line x1="{L}" y1="{H-B}" x2="{W-10}" y2="{H-B}" stroke="black"/>',
           f'<line x1="{L}" y1="10" x2="{L}" y2="{H-B}" stroke="black"/>']
    for v in (lo, (lo + hi) / 2, hi):
        out.append(f'<text x="{L-5}" y="{y(v)+4}" text-anchor="end">{v:.4g}</text>')
    for k in range(0, n + 1, max(1, n // 5)):
        out.append(f'<text x="{x(min(k, n - 1))}" y="{H-B+15}" text-anchor="middle">{k}</text>')
    for i, (tool, m) in enumerate(med.items()):
        d = " ".join(f"{x(k):.1f},{y(v):.1f}" for k, v in enumerate(m) if k >= n // 10)
        c = colors.get(tool, "#000")
        out.append(f'<polyline fill="none" stroke="{c}" stroke-width="2" points="{d}"/>')
        out.append(f'<text x="{W-150}" y="{25+15*i}" fill="{c}">{tool}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--workers", default="1,4")
    ap.add_argument("--objectives", default="branin,hartmann6,rosenbrock4")
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--sweep-tpe", default="")
    ap.add_argument("--trial-ms", type=float, default=0.0,
                    help="how long each synthetic trial lasts, in both tools (default 0)")
    args = ap.parse_args()
    global TRIAL_MS
    TRIAL_MS = args.trial_ms
    if not os.access(SWEEP, os.X_OK):
        sys.exit(f"{SWEEP} is missing: build first (scripts/build.sh)")
    py = ensure_venv()
    os.makedirs(args.out, exist_ok=True)
    seeds = list(range(args.seeds))
    traces, rows = {}, []
    with tempfile.TemporaryDirectory() as work:
        for objective in args.objectives.split(","):
            for workers in map(int, args.workers.split(",")):
                key = f"{objective}/{workers}"
                curves = {}
                IN_FLIGHT.clear()
                # Alternate the tools' order from one configuration to the next.
                order = ["sweep-tpe", "optuna5-tpe", "random"]
                if workers > 1:
                    order.reverse()
                for tool in order:
                    if tool == "optuna5-tpe":
                        runs = run_optuna(py, objective, args.trials, workers, seeds)
                    else:
                        algo = "tpe" if tool == "sweep-tpe" else "random"
                        runs = [run_sweep(objective, algo, args.trials, workers, s, work,
                                          args.sweep_tpe) for s in seeds]
                    curves[tool] = [best_curve(v) for v in runs]
                traces[key] = curves
                svg(f"{objective}, {workers} worker(s)", curves,
                    os.path.join(args.out, f"tpe-{objective}-{workers}.svg"))
                finals = {t: quartiles([c[-1] for c in runs]) for t, runs in curves.items()}
                halves = {t: quartiles([c[len(c) // 2 - 1] for c in runs])
                          for t, runs in curves.items()}
                flight = {t: statistics.mean(v) for t, v in IN_FLIGHT.items() if v}
                rows.append((objective, workers, finals, halves, flight))
                print(objective, workers, {t: fmt(q) for t, q in finals.items()}, flush=True)
                # Written after every configuration: a long run that is cut
                # off keeps what it finished.
                write_results(args, traces, rows)
    with open(os.path.join(args.out, "tpe-summary.md")) as f:
        print(f.read(), end="")


def write_results(args, traces, rows):
    with open(os.path.join(args.out, "tpe-traces.json"), "w") as f:
        json.dump(traces, f)
    lines = [f"Best value (lower is better) over {args.seeds} seeds: median (quartiles), "
             f"after {args.trials // 2} and {args.trials} trials. sweep's TPE settings: "
             f"{args.sweep_tpe or 'its defaults'}; Optuna's: "
             f"{os.environ.get('OPTUNA_TPE') or 'its defaults'}. Each synthetic trial lasts "
             f"{args.trial_ms:g} ms.", "",
             "| objective | workers | sweep TPE | Optuna 5 TPE | random | "
             "sweep ≤ Optuna (median)? | sweep < random? | others in flight at a proposal "
             "(sweep / Optuna) |",
             "|---|---|---|---|---|---|---|---|"]
    for objective, workers, finals, halves, flight in rows:
        s, o, r = finals["sweep-tpe"], finals["optuna5-tpe"], finals["random"]
        hs, ho, hr = halves["sweep-tpe"], halves["optuna5-tpe"], halves["random"]
        lines.append(f"| {objective} | {workers} | {fmt(hs)} → **{fmt(s)}** | {fmt(ho)} → "
                     f"**{fmt(o)}** | {fmt(hr)} → {fmt(r)} | {'yes' if s[1] <= o[1] else 'NO'} | "
                     f"{'yes' if s[1] < r[1] else 'NO'} | "
                     f"{flight.get('sweep-tpe', 0):.2f} / {flight.get('optuna5-tpe', 0):.2f} |")
    with open(os.path.join(args.out, "tpe-summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
