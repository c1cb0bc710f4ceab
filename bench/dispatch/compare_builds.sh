#!/usr/bin/env bash
# bench/dispatch/compare_builds.sh: several sweep builds against Optuna 5 in
# memory on bench/dispatch's workload (N random Branin trials x 10 reports,
# 2 local runners), alternating within each round: Optuna first, then each
# build in the order given. Prints "round N tool seconds" lines; the whole
# `sweep run` command is timed, Optuna's create_study + optimize only.
# Usage: bench/dispatch/compare_builds.sh ROUNDS "N ..." SWEEP_BINARY...
# Env: OPTUNA5_VENV=bench/.venv-optuna5 (made by bench/dispatch/run.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=$1
sizes=$2
shift 2
OPTUNA5_VENV="${OPTUNA5_VENV:-bench/.venv-optuna5}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for r in $(seq "$rounds"); do
  for n in $sizes; do
    cat > "$work/study.yaml" <<YAML
name: dispatch
objective: {metric: value, goal: minimize}
task:
  synthetic: {function: branin, steps: 10}
algorithm: {type: random, max_trials: $n}
seed: 7
parameters:
  x1: {type: float, min: -5, max: 10}
  x2: {type: float, min: 0, max: 15}
YAML
    echo "$r $n optuna5 $("$OPTUNA5_VENV/bin/python" bench/dispatch/optuna_bench.py "$n" 10 memory | awk '{print $4}')"
    for b in "$@"; do
      rm -f "$work"/sweep.db*
      s=$(date +%s%N)
      "$b" run "$work/study.yaml" --db "$work/sweep.db" --local-runners 2 --progress plain \
        >/dev/null 2>"$work/sweep.log" || { echo "$b failed:" >&2; tail -5 "$work/sweep.log" >&2; exit 1; }
      e=$(date +%s%N)
      echo "$r $n $b $(python3 -c "import sys; print((int(sys.argv[2]) - int(sys.argv[1])) / 1e9)" "$s" "$e")"
    done
  done
done
