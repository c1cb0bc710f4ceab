#!/usr/bin/python3
"""bench/search/tpe_sim.py: sweep's TPE against Optuna 5's over many seeds,
both in-process, at the same parallelism.

Usage: bench/search/tpe_sim.py [--seeds 200] [--trials 100] [--workers 1,4]
                               [--objectives branin,hartmann6,rosenbrock4]

sweep: `build/bench/tpe_cost simulate` (the tuner's scheduler over a trial
table, no runners). Optuna: bench/search/optuna_tpe.py with
OPTUNA_SIMULATE=1 (ask and tell in one thread). Both keep W trials in flight
and tell one of them, chosen at random, before each next proposal, so with
W = 4 each proposal sees 3 running trials in both tools (the constant liar
applies in both), which tpe.py's real runs cannot promise: there Optuna's
n_jobs threads share the GIL and overlap less than sweep's runners (its
"others in flight" column). TPE_CONFIG and OPTUNA_TPE (environment) give
either side other settings, as in tpe.py.

For each objective and W: the best value after TRIALS trials, median
(quartiles) over seeds 0..SEEDS-1, and a bootstrap 90% interval of the
difference of the medians (sweep - Optuna; lower is better for both), so a
difference can be told from the seeds' spread. Prints a Markdown table.
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run import fmt, quartiles  # noqa: E402
from tpe import ensure_venv  # noqa: E402
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
TPE_COST = os.path.join(ROOT, "build", "bench", "tpe_cost")


def sweep_bests(objective, trials, seeds, workers):
    out = subprocess.run([TPE_COST, "simulate", objective, str(trials), str(seeds),
                          str(workers)], check=True, capture_output=True, text=True).stdout
    return [float(line.split()[1]) for line in out.splitlines()]


def optuna_bests(py, objective, trials, seeds, workers):
    env = dict(os.environ, OPTUNA_SIMULATE="1")
    out = subprocess.run([py, os.path.join(HERE, "optuna_tpe.py"), objective, str(trials),
                          str(workers)] + [str(s) for s in range(seeds)], check=True,
                         capture_output=True, text=True, env=env).stdout
    return [min(v for v in json.loads(line)["values"] if v is not None)
            for line in out.splitlines()]


def median_gap(a, b, rounds=2000):
    """Bootstrap 5th and 95th percentiles of median(a) - median(b)."""
    rng = random.Random(0)
    gaps = sorted(statistics.median(rng.choices(a, k=len(a))) -
                  statistics.median(rng.choices(b, k=len(b))) for _ in range(rounds))
    return gaps[int(0.05 * rounds)], gaps[int(0.95 * rounds)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=200)
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--workers", default="1,4")
    ap.add_argument("--objectives", default="branin,hartmann6,rosenbrock4")
    args = ap.parse_args()
    if not os.access(TPE_COST, os.X_OK):
        sys.exit(f"{TPE_COST} is missing: build first (scripts/build.sh)")
    py = ensure_venv()
    print(f"Best value after {args.trials} trials over seeds 0..{args.seeds - 1} "
          f"(lower is better); sweep's settings: {os.environ.get('TPE_CONFIG') or 'defaults'}, "
          f"Optuna's: {os.environ.get('OPTUNA_TPE') or 'defaults'}.\n")
    print("| objective | workers | sweep TPE | Optuna 5 TPE | sweep − Optuna, median "
          "(90% bootstrap) | sweep ≤ Optuna? |")
    print("|---|---|---|---|---|---|")
    for objective in args.objectives.split(","):
        for workers in map(int, args.workers.split(",")):
            s = sweep_bests(objective, args.trials, args.seeds, workers)
            o = optuna_bests(py, objective, args.trials, args.seeds, workers)
            lo, hi = median_gap(s, o)
            gap = statistics.median(s) - statistics.median(o)
            verdict = ("yes" if hi <= 0 else "NO" if lo > 0 else
                       "yes (within noise)" if gap <= 0 else "no (within noise)")
            print(f"| {objective} | {workers} | {fmt(quartiles(s))} | {fmt(quartiles(o))} | "
                  f"{gap:+.4g} ({lo:+.3g} to {hi:+.3g}) | {verdict} |", flush=True)


if __name__ == "__main__":
    main()
