#!/usr/bin/python3
"""bench/search/mo_asha.py: multi-objective ASHA against multi-objective
random search and MOTPE at equal resource. The task is a command task, a
learning curve with two objectives: `loss` (sweep's synthetic `curve` of x1
and x2: a larger x1 starts worse and converges more slowly; the final loss is
least at x1 = x2 = 0.7) and `cost` (x2: cheaper models lose more), reported at
each of 27 steps. Each study spends the same budget of steps
(`algorithm.budget`); ASHA stops trials at rungs 1, 3 and 9 and so finishes
fewer, shorter-lived trials in more numbers.

Reported: the normalised hypervolume of the trials that ran all 27 steps
(loss and cost, in the box 0.1..2.5 × 0..1) once half and all of the budget
is spent, median (quartiles) over seeds; higher is better.

Usage: bench/search/mo_asha.py [--seeds 10] [--budget 810]
Env: SWEEP_BIN (a copy of build/cli/sweep).
"""
import argparse
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

# Two families of curves: "crossing", sweep's `curve` (the best final
# configurations start slow: early stopping is misled by design), and
# "ranked" (every curve decays alike, so early ranks are the final ones).
PROGRAM = r'''
import json, math, sys
x1, x2, family = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
final = 0.1 + ((x1 - 0.7) ** 2 + (x2 - 0.7) ** 2)
for t in range(1, 28):
    if family == "crossing":
        loss = final + (0.2 + 2 * x1) * math.exp(-t / (2 + 10 * x1 * x1))
    else:
        loss = final * (1 + 2 * math.exp(-t / 4))
    print("SWEEP_REPORT " + json.dumps({"step": t, "loss": loss, "cost": x2}), flush=True)
'''
ALGORITHMS = {
    "asha": "{type: asha, max_trials: 100000, budget: %d, asha: {min_resource: 1, reduction_factor: 3}}",
    "random": "{type: random, max_trials: 100000, budget: %d}",
    "tpe": "{type: tpe, max_trials: 100000, budget: %d}",
}
IDEAL, REF = [0.1, 0.0], [2.5, 1.0]


def run(algo, budget, seed, work, family):
    program = os.path.join(work, "curve2.py")
    with open(program, "w") as f:
        f.write(PROGRAM)
    study = os.path.join(work, f"{algo}.yaml")
    with open(study, "w") as f:
        f.write(f"name: {algo}\nobjectives: [{{metric: loss, goal: minimize}}, "
                f"{{metric: cost, goal: minimize}}]\n"
                f"task: {{command: {{argv: [python3, {program}, '{{x1}}', '{{x2}}', {family}], "
                f"steps: 27}}}}\n"
                f"algorithm: {ALGORITHMS[algo] % budget}\nseed: {seed}\nparameters:\n"
                "  x1: {type: float, min: 0, max: 1}\n  x2: {type: float, min: 0, max: 1}\n")
    db = os.path.join(work, f"{algo}-{family}-{seed}.db")
    subprocess.run([mo.SWEEP, "run", study, "--db", db, "--local-runners", "1", "--progress",
                    "plain"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    # Each trial's steps and, where it ran all 27, its final values; in the
    # order the trials were made (steps are spent in about that order).
    rows = con.execute(
        "SELECT t.number, t.step, t.status, "
        "(SELECT value FROM trial_values v WHERE v.trial_id = t.id AND v.kind = 'objective' "
        " AND v.position = 0), "
        "(SELECT value FROM trial_values v WHERE v.trial_id = t.id AND v.kind = 'objective' "
        " AND v.position = 1) FROM trials t ORDER BY t.number").fetchall()
    con.close()
    return rows


def hypervolume_at(rows, spent):
    used, points = 0, []
    for _, step, status, loss, cost in rows:
        used += step or 0
        if used > spent:
            break
        if status == "completed" and step == 27 and loss is not None:
            points.append([loss, cost])
    return mop.normalised_hypervolume(points, IDEAL, REF)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--budget", type=int, default=810)
    ap.add_argument("--families", default="ranked,crossing")
    args = ap.parse_args()
    lines = ["| curves | algorithm | hypervolume at half the budget | at the whole budget | "
             "trials that ran all 27 steps |", "|---|---|---|---|---|"]
    for family in args.families.split(","):
        results = {a: {0.5: [], 1.0: []} for a in ALGORITHMS}
        finished = {a: [] for a in ALGORITHMS}
        with tempfile.TemporaryDirectory() as work:
            for seed in range(args.seeds):
                for algo in ALGORITHMS:
                    rows = run(algo, args.budget, seed, work, family)
                    for share in (0.5, 1.0):
                        results[algo][share].append(hypervolume_at(rows, share * args.budget))
                    finished[algo].append(
                        sum(1 for r in rows if r[2] == "completed" and r[1] == 27))
                print(f"done {family} seed {seed}", flush=True)
        for algo in ALGORITHMS:
            lines.append(f"| {family} | {algo} | {fmt(quartiles(results[algo][0.5]))} | "
                         f"{fmt(quartiles(results[algo][1.0]))} | "
                         f"{fmt(quartiles(finished[algo]), 3)} |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
