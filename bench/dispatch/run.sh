#!/usr/bin/env bash
# bench/dispatch: N synthetic trials x R reports (no sleeping) through real
# runner processes and a real database, side by side with Optuna (SQLite and
# in-memory storage; Debian's 3.1 and PyPI's 5.x in a virtual environment
# this script makes) and Ray Tune on the same objective and counts. sweep runs
# twice per N: with the study's defaults and with max_concurrent: 8.
# Usage: bench/dispatch/run.sh [N ...]   (default N: 1000 10000; R=10; 2 runners)
# Rates: sweep's row is the whole `sweep run` command (process start, database
# creation, runners, shutdown); the peers' rows time their in-process loop
# (create_study + optimize; no interpreter start or import), as the issue
# measures them. Two extra rows show each side the other way: "sweep-loop"
# (first trial started to last trial ended, from the database) and
# "optuna5-command" (the whole python command, import included).
# Env: R=10, REPEAT=1 (rounds, alternating the tools within each),
#      PEERS="optuna-sqlite optuna-memory optuna5-memory ray" (subset to skip
#      some), RAY_MAX_N=10000 (skip Ray above this N),
#      OPTUNA5_VENV=bench/.venv-optuna5, AUTH_COMPARE=1 (adds a sweep run with
#      --insecure: the cost of runner authentication), BASELINE_SWEEP=PATH
#      (another build's sweep binary, run in the same rounds as
#      "sweep-baseline" and "sweep-baseline-max8": the cost of a change),
#      SERVE=1 (adds "sweep-serve": the same study through `sweep serve` with
#      2 local runners and `sweep submit`, from the service's start to its
#      stop, and "serve-loop", first trial started to last ended).
set -euo pipefail
cd "$(dirname "$0")/../.."
R="${R:-10}"
PEERS="${PEERS:-optuna-sqlite optuna-memory optuna5-memory ray}"
REPEAT="${REPEAT:-1}"
OPTUNA5_VENV="${OPTUNA5_VENV:-bench/.venv-optuna5}"
RAY_MAX_N="${RAY_MAX_N:-10000}"
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1000 10000)

scripts/install-deps.sh python3-optuna
scripts/build.sh >/dev/null
if [[ " $PEERS " == *" optuna5-memory "* ]] && [ ! -x "$OPTUNA5_VENV/bin/python" ]; then
  python3 -m venv "$OPTUNA5_VENV"
  "$OPTUNA5_VENV/bin/pip" install -q "optuna>=5,<6"
fi
if [[ " $PEERS " == *" ray "* ]] && ! python3 -c "import ray.tune" 2>/dev/null; then
  python3 -m pip install -q "ray[tune]"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "tool N R seconds trials/s reports/s"
write_study() {  # N, extra algorithm fields
  local n=$1 extra=$2
  cat > "$work/study.yaml" <<YAML
name: dispatch
objective: {metric: value, goal: minimize}
task:
  synthetic: {function: branin, steps: $R}
algorithm: {type: random, max_trials: $n$extra}
seed: 7
parameters:
  x1: {type: float, min: -5, max: 10}
  x2: {type: float, min: 0, max: 15}
YAML
}
sweep_once() {  # N, label, extra algorithm fields, extra `sweep run` flags, binary
  local n=$1 label=$2 extra=$3 flags=${4:-} bin=${5:-build/cli/sweep}
  write_study "$n" "$extra"
  rm -f "$work"/sweep.db*
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$bin" run "$work/study.yaml" --db "$work/sweep.db" --local-runners 2 --progress plain $flags >/dev/null 2>"$work/sweep.log"
  end=$(date +%s.%N)
  reports=$(build/cli/sweep query "SELECT count(*) FROM reports" --db "$work/sweep.db" --format csv | tail -1)
  loop=$(build/cli/sweep query "SELECT max(ended_at) - min(started_at) FROM trials" --db "$work/sweep.db" --format csv | tail -1)
  python3 - "$label" "$n" "$R" "$start" "$end" "$reports" "$loop" <<'PY'
import sys
label, n, r, s, e, reps, loop = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6]), float(sys.argv[7])
assert reps == n * r, f"expected {n*r} durable reports, found {reps}"
secs = e - s
print(f"{label} {n} {r} {secs:.3f} {n/secs:.1f} {n*r/secs:.1f}")
if label in ("sweep", "sweep-baseline"):
    print(f"{label.replace('sweep', 'sweep-loop')} {n} {r} {loop:.3f} {n/loop:.1f} {n*r/loop:.1f}")
PY
}

serve_once() {  # N: the study of sweep_once through a service
  local n=$1
  rm -f "$work"/serve.db*
  start=$(date +%s.%N)
  build/cli/sweep serve --db "$work/serve.db" --local-runners 2 >/dev/null 2>"$work/serve.log" &
  local pid=$!
  until build/cli/sweep runners --db "$work/serve.db" 2>/dev/null | grep -q local-1; do sleep 0.02; done
  build/cli/sweep submit "$work/study.yaml" --db "$work/serve.db" --wait >/dev/null
  build/cli/sweep stop --db "$work/serve.db" >/dev/null
  wait "$pid"
  end=$(date +%s.%N)
  reports=$(build/cli/sweep query "SELECT count(*) FROM reports" --db "$work/serve.db" --format csv | tail -1)
  loop=$(build/cli/sweep query "SELECT max(ended_at) - min(started_at) FROM trials" --db "$work/serve.db" --format csv | tail -1)
  python3 - "$n" "$R" "$start" "$end" "$reports" "$loop" <<'PY'
import sys
n, r, s, e, reps, loop = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
assert reps == n * r, f"expected {n*r} durable reports, found {reps}"
print(f"sweep-serve {n} {r} {e - s:.3f} {n/(e - s):.1f} {n*r/(e - s):.1f}")
print(f"serve-loop {n} {r} {loop:.3f} {n/loop:.1f} {n*r/loop:.1f}")
PY
}

for round in $(seq "$REPEAT"); do
for n in "${sizes[@]}"; do
  sweep_once "$n" sweep ""
  for peer in $PEERS; do
    case "$peer" in
      optuna-sqlite) rm -f "$work/optuna.db"; /usr/bin/python3 bench/dispatch/optuna_bench.py "$n" "$R" "sqlite:///$work/optuna.db" ;;
      optuna-memory) /usr/bin/python3 bench/dispatch/optuna_bench.py "$n" "$R" memory ;;
      optuna5-memory)
        start=$(date +%s.%N)
        "$OPTUNA5_VENV/bin/python" bench/dispatch/optuna_bench.py "$n" "$R" memory | sed 's/^optuna-memory/optuna5-memory/'
        end=$(date +%s.%N)
        python3 -c "import sys; n,r,s,e=int(sys.argv[1]),int(sys.argv[2]),float(sys.argv[3]),float(sys.argv[4]); t=e-s; print(f'optuna5-command {n} {r} {t:.3f} {n/t:.1f} {n*r/t:.1f}')" "$n" "$R" "$start" "$end" ;;
      ray) if [ "$n" -le "$RAY_MAX_N" ]; then python3 bench/dispatch/ray_bench.py "$n" "$R" 2>/dev/null | grep '^ray-tune'; fi ;;
    esac
  done
  sweep_once "$n" sweep-max8 ", max_concurrent: 8"
  if [ "${SERVE:-0}" = 1 ]; then
    write_study "$n" ""
    serve_once "$n"
  fi
  if [ -n "${BASELINE_SWEEP:-}" ]; then
    sweep_once "$n" sweep-baseline "" "" "$BASELINE_SWEEP"
    sweep_once "$n" sweep-baseline-max8 ", max_concurrent: 8" "" "$BASELINE_SWEEP"
  fi
  # What CURVE authentication costs: the same run without it.
  if [ "${AUTH_COMPARE:-0}" = 1 ]; then sweep_once "$n" sweep-insecure "" --insecure; fi
done
done
