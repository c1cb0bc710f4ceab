#!/usr/bin/env bash
# Makes a sweep database with N trials of 50 reports each, for the dashboard
# render benchmark (bench/dashboard/run.sh), by running a real sweep: random
# search over the synthetic learning curve (50 steps, 4 parameters), 2 local
# runners. Usage: bench/dashboard/make_db.sh N OUT.db
set -euo pipefail
n=${1:?usage: make_db.sh N OUT.db}; out=${2:?usage: make_db.sh N OUT.db}
root=$(cd "$(dirname "$0")/../.." && pwd)
sweep=${SWEEP:-$root/build/cli/sweep}
study=$(mktemp --suffix=.yaml); log=$(mktemp); trap 'rm -f "$study" "$log"' EXIT
cat >"$study" <<YAML
name: curve-random-$n
objective: {metric: value, goal: minimize}
task:
  synthetic: {function: curve, steps: 50, noise: 0.01}
algorithm: {type: random, max_trials: $n}
seed: 11
parameters:
  x1: {type: float, min: 0, max: 1}
  x2: {type: float, min: 0, max: 1}
  x3: {type: float, min: 0, max: 1}
  x4: {type: float, min: 0, max: 1}
YAML
rm -f "$out" "$out-wal" "$out-shm" "$out.lock"
start=$(date +%s.%N)
"$sweep" run "$study" --db "$out" --local-runners 2 --progress plain >"$log" 2>&1 ||
  { tail -20 "$log" >&2; exit 1; }
end=$(date +%s.%N)
trials=$(sqlite3 "$out" "select count(*) from trials where status = 'completed'")
reports=$(sqlite3 "$out" "select count(*) from reports")
printf '%s: %s completed trials, %s reports (want %s) in %.1f s\n' \
  "$out" "$trials" "$reports" $((n * 50)) "$(echo "$end - $start" | bc)"
if [ "$trials" -ne "$n" ] || [ "$reports" -lt $((n * 50)) ]; then echo "make_db.sh: short database" >&2; exit 1; fi
