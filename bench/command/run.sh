#!/usr/bin/env bash
# bench/command: N trials of a real program (bench/command/program.py: a
# standard-library Python script that prints 10 SWEEP_REPORT lines and exits,
# no sleeping) as a sweep command task, side by side with Optuna 5 (SQLite,
# n_jobs=2, in bench/.venv-optuna5) and Ray Tune (max_concurrent_trials=2, in
# bench/.venv-ray, which this script makes if missing), each running the same
# program as a subprocess, 2 at a time. A "baseline" row runs the program N
# times with `xargs -P 2` and nothing else: the program's own cost.
# Usage: bench/command/run.sh [N ...]   (default N: 1000; 2 runners/workers)
# Rates: sweep's row is the whole `sweep run` command (process start, database
# creation, runners, shutdown); Optuna's row times create_study + optimize,
# Ray's row times tuner.fit() only (ray.init excluded); the baseline row is
# the whole xargs command. "sweep-overhead" is what sweep costs per trial
# beyond the program itself: (sweep_s - baseline_s) * 2 / N, in ms (2
# runners in parallel, like the 2 baseline workers).
# Env: REPEAT=3 (rounds; the order of the tools rotates from round to round),
#      RAY=0 (skip Ray), OPTUNA5_VENV=bench/.venv-optuna5,
#      RAY_VENV=bench/.venv-ray, PROGRAM_PYTHON (the interpreter that runs
#      program.py for every tool; default: the real interpreter behind
#      `python3`, so that a pyenv shim's cost is not counted in every trial).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
REPEAT="${REPEAT:-3}"
RAY="${RAY:-1}"
OPTUNA5_VENV="${OPTUNA5_VENV:-bench/.venv-optuna5}"
RAY_VENV="${RAY_VENV:-bench/.venv-ray}"
PROGRAM_PYTHON="${PROGRAM_PYTHON:-$(python3 -c 'import sys; print(sys.executable)')}"
program="$root/bench/command/program.py"
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1000)

[ -x build/cli/sweep ] || { echo "build/cli/sweep is missing: build first (scripts/build.sh)" >&2; exit 1; }
if [ ! -x "$OPTUNA5_VENV/bin/python" ]; then
  python3 -m venv "$OPTUNA5_VENV"
  "$OPTUNA5_VENV/bin/pip" install -q "optuna>=5,<6"
fi
if [ "$RAY" != 0 ] && ! "$RAY_VENV/bin/python" -c "import ray.tune" 2>/dev/null; then
  python3 -m venv "$RAY_VENV"
  "$RAY_VENV/bin/pip" install -q "ray[tune]"
fi
"$PROGRAM_PYTHON" "$program" --x 0.5 | grep -q '^SWEEP_REPORT {"step": 10,' \
  || { echo "$program does not run under $PROGRAM_PYTHON" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
results="$work/results.txt"   # lines: round tool N seconds
: > "$results"
row() {  # round, tool, N, seconds: prints the row and keeps it
  echo "$1 $2 $3 $4" >> "$results"
  python3 -c "import sys; n,s=int(sys.argv[2]),float(sys.argv[3]); print(f'{sys.argv[1]} {n} {s:.3f} {n/s:.1f}')" "$2" "$3" "$4"
}

run_sweep() {  # round, N
  local r=$1 n=$2
  cat > "$work/study.yaml" <<YAML
name: command-bench
objective: {metric: loss, goal: minimize}
task:
  command:
    argv: ["$PROGRAM_PYTHON", "$program", --x, "{x}"]
    steps: 10
algorithm: {type: random, max_trials: $n}
seed: 7
parameters:
  x: {type: float, min: 0, max: 1}
YAML
  rm -rf "$work"/sweep.db*
  local start end
  start=$(date +%s.%N)
  build/cli/sweep run "$work/study.yaml" --db "$work/sweep.db" --local-runners 2 --progress plain >/dev/null 2>"$work/sweep.log" \
    || { echo "sweep run failed:" >&2; tail -20 "$work/sweep.log" >&2; exit 1; }
  end=$(date +%s.%N)
  local done reports
  done=$(build/cli/sweep query "SELECT count(*) FROM trials WHERE status = 'completed'" --db "$work/sweep.db" --format csv | tail -1)
  reports=$(build/cli/sweep query "SELECT count(*) FROM reports" --db "$work/sweep.db" --format csv | tail -1)
  [ "$done" = "$n" ] && [ "$reports" = "$((n * 10))" ] \
    || { echo "sweep: expected $n completed trials and $((n * 10)) reports, found $done and $reports" >&2; exit 1; }
  row "$r" sweep "$n" "$(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$start" "$end")"
}

run_baseline() {  # round, N: the program alone, N times, 2 at a time
  local r=$1 n=$2
  python3 -c "import random, sys; rng = random.Random(7); print('\n'.join(repr(rng.random()) for _ in range(int(sys.argv[1]))))" "$n" > "$work/xs.txt"
  local start end
  start=$(date +%s.%N)
  # Through a pipe: writes of a line are atomic there, as they are on the
  # runners' pipes, so the two workers' lines never mix.
  xargs -P 2 -n 1 "$PROGRAM_PYTHON" "$program" --x < "$work/xs.txt" | cat > "$work/baseline.out"
  end=$(date +%s.%N)
  local lines
  lines=$(grep -c '^SWEEP_REPORT ' "$work/baseline.out")
  [ "$lines" = "$((n * 10))" ] || { echo "baseline: expected $((n * 10)) report lines, found $lines" >&2; exit 1; }
  row "$r" baseline "$n" "$(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$start" "$end")"
}

run_optuna() {  # round, N
  local line
  line=$("$OPTUNA5_VENV/bin/python" bench/command/optuna_bench.py "$2" "$PROGRAM_PYTHON" | grep '^optuna5-sqlite ')
  set -- "$1" $line
  row "$1" "$2" "$3" "$4"
}

run_ray() {  # round, N
  local line
  # Ray's worker processes import peer_program too: put its folder on their path.
  line=$(PYTHONPATH="$root/bench/command${PYTHONPATH:+:$PYTHONPATH}" "$RAY_VENV/bin/python" bench/command/ray_bench.py "$2" "$PROGRAM_PYTHON" 2>"$work/ray.log" | grep '^ray-tune ') \
    || { echo "ray_bench.py failed:" >&2; tail -20 "$work/ray.log" >&2; exit 1; }
  set -- "$1" $line
  row "$1" "$2" "$3" "$4"
}

tools=(sweep baseline optuna)
[ "$RAY" != 0 ] && tools+=(ray)
echo "program: $PROGRAM_PYTHON $program; REPEAT=$REPEAT"
echo "tool N seconds trials/s"
for round in $(seq "$REPEAT"); do
  echo "# round $round"
  for n in "${sizes[@]}"; do
    k=${#tools[@]}
    for i in $(seq 0 $((k - 1))); do   # rotate the order: round 2 starts with the second tool, ...
      "run_${tools[$(( (i + round - 1) % k ))]}" "$round" "$n"
    done
    python3 - "$results" "$round" "$n" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1])]
s = {t: float(sec) for r, t, n, sec in rows if r == sys.argv[2] and n == sys.argv[3]}
n = int(sys.argv[3])
print(f"sweep-overhead {n} {(s['sweep'] - s['baseline']) * 2 / n * 1000:.2f} ms/trial beyond the program's own cost ((sweep_s - baseline_s) * 2 / N)")
PY
  done
done

echo "# medians over $REPEAT round(s)"
python3 - "$results" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
order = ["sweep", "baseline", "optuna5-sqlite", "ray-tune"]
for n in sorted({int(r[2]) for r in rows}):
    secs = {}
    for r, t, nn, sec in rows:
        if int(nn) == n:
            secs.setdefault(t, []).append(float(sec))
    rate = {t: statistics.median(n / s for s in v) for t, v in secs.items()}
    for t in order:
        if t in secs:
            print(f"{t} {n} {statistics.median(secs[t]):.3f} {rate[t]:.1f} (median)")
    rounds = sorted({r for r, t, nn, sec in rows if int(nn) == n})
    per = {}
    for r, t, nn, sec in rows:
        if int(nn) == n:
            per[(r, t)] = float(sec)
    over = [(per[(r, "sweep")] - per[(r, "baseline")]) * 2 / n * 1000 for r in rounds]
    print(f"sweep-overhead {n} {statistics.median(over):.2f} ms/trial beyond the program's own cost (median)")
    for peer in ["optuna5-sqlite", "ray-tune"]:
        if peer in rate:
            print(f"ratio sweep/{peer} {n} {rate['sweep'] / rate[peer]:.2f}x trials/s (median rates)")
PY
