#!/usr/bin/env bash
# bench/command/tuning_job.sh: a real tuning job. The PyTorch script
# examples/own_script/train.py (a small CNN on Fashion-MNIST, CPU) is tuned
# by three tools with the same epoch budget, 2 workers at a time:
#   sweep   Hyperband (examples/own_script/hyperband.yaml: reduction factor 3,
#           9 epochs at most, paused trials resume from checkpoints; random
#           sampling, or BOHB's proposals with SWEEP_ALGORITHM=bohb; one
#           iteration = 17 trials, 69 epochs: `sweep plan`),
#           `sweep run --local-runners 2`;
#   optuna  Optuna 5, TPESampler (its default sampler) + HyperbandPruner
#           (min_resource 1, max_resource 9, reduction factor 3), n_jobs=2,
#           in-memory storage (bench/command/tuning_optuna.py);
#   ray     Ray Tune, random search (its default) + ASHAScheduler (max_t 9,
#           grace_period 1, reduction factor 3), ray.init(num_cpus=2), 1 CPU
#           per trial, max_concurrent_trials=2 (bench/command/tuning_ray.py).
# Every tool runs train.py with the same interpreter (the venv's python),
# OMP_NUM_THREADS=1 and the same TRAIN_LIMIT, with the same search space.
# Budget: the epochs of one Hyperband iteration (69, read from `sweep plan`).
# sweep trains exactly that; the peers start no new trial once that many
# epochs are reported and let the running ones finish, so they may train a
# few more: the "epochs" column says how many each actually trained (the
# sum over all trials of the epochs they reported; an epoch cut short by a
# stop or a pause is not counted, for any tool).
# best_val: the highest final (epoch-9) val_accuracy among the trials that
# trained all 9 epochs; test_acc: that trial's test accuracy (train.py
# reports it only at the end of the 9th epoch). trials: trials that ran.
# Timed: each tool's whole command, wall clock, process start included
# (`sweep run`; `python tuning_optuna.py` with its imports; `python
# tuning_ray.py` with its imports, ray.init and ray.shutdown); inner_s is
# what the peer times itself (Optuna: create_study + optimize; Ray:
# tuner.fit()), "-" for sweep.
# work_s: what the programs themselves timed, summed over every process of
# the tool's run (train.py's start-up after the interpreter's own, imports
# and data; each finished epoch with its validation; checkpoint saves; the
# final test pass: its BENCH_TIMING_FILE lines); starts: how many train.py
# processes ran; busy: work_s / (workers * wall_s), the share of the two
# workers' time that went into the programs. A tool whose sampler chose
# cheaper configurations does less work_s for the same epochs; a tool that
# restarts programs pays start-ups (in work_s); what is left is scheduling,
# waiting, the interpreter's start and epochs cut short by a stop or pause.
# Each round runs the three tools one after another, rotating the order from
# round to round; round R uses seed R (sweep's study seed, Optuna's and Ray's
# sampler seeds, and train.py's torch seed: seed * 1000003 + trial id).
# Afterwards no train.py may be left running (checked after every tool).
# Usage: bench/command/tuning_job.sh
# Env: REPEAT=3 (rounds), TRAIN_LIMIT=10000 (training images per epoch; the
#      validation and test sets stay whole: 10,000 images each),
#      TOOLS="sweep optuna ray" (a subset to run),
#      SWEEP_ALGORITHM=hyperband (or bohb: the same brackets, with each new
#      configuration proposed by TPE once enough results are in),
#      TUNING_VENV=bench/.venv-tuning (made if missing: torch 2.15.0, numpy,
#      Optuna 5, Ray Tune).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
REPEAT="${REPEAT:-3}"
TRAIN_LIMIT="${TRAIN_LIMIT:-10000}"
TOOLS="${TOOLS:-sweep optuna ray}"
SWEEP_ALGORITHM="${SWEEP_ALGORITHM:-hyperband}"
case "$SWEEP_ALGORITHM" in hyperband|bohb) ;; *) echo "SWEEP_ALGORITHM must be hyperband or bohb" >&2; exit 2;; esac
TUNING_VENV="${TUNING_VENV:-bench/.venv-tuning}"
export TRAIN_LIMIT
read -r -a tools <<< "$TOOLS"
train="$root/examples/own_script/train.py"
example="$root/examples/own_script/hyperband.yaml"
steps=9
workers=2

[ -x build/cli/sweep ] || { echo "build/cli/sweep is missing: build first (scripts/build.sh)" >&2; exit 1; }
if ! "$TUNING_VENV/bin/python" -c "import torch, numpy, optuna, ray.tune, yaml; assert optuna.__version__.startswith('5.')" 2>/dev/null; then
  /usr/bin/python3 -m venv "$TUNING_VENV"
  "$TUNING_VENV/bin/pip" install -q torch==2.15.0 numpy "optuna>=5,<6" "ray[tune]"
fi
py="$root/$TUNING_VENV/bin/python"
budget=$(build/cli/sweep plan "$example" | sed -n 's/^hyperband: .*, \([0-9]*\) steps in total.*/\1/p')
[ -n "$budget" ] || { echo "cannot read the epoch budget from 'sweep plan $example'" >&2; exit 1; }
if pgrep -f -- "$train" >/dev/null; then
  echo "train.py is already running; the orphan check would not be meaningful:" >&2
  pgrep -af -- "$train" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
results="$work/results.txt"   # lines: round tool best_val test_acc wall_s epochs trials inner_s work_s starts
: > "$results"

now() { date +%s.%N; }
elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.3f}')" "$1" "$2"; }
timing() {  # file -> "work_s starts" (see the header)
  python3 -c "
import sys
rows = [l.split() for l in open(sys.argv[1])]
print(f'{sum(float(v) for _, v in rows):.1f}', sum(1 for k, _ in rows if k == 'start_s'))" "$1"
}
row() {  # round tool best_val test_acc wall_s epochs trials inner_s work_s starts
  echo "$*" >> "$results"
  python3 -c "import sys; a = sys.argv[1:]; print(f'{a[0]:>5} {a[1]:<7} {float(a[2]):>8.4f} {float(a[3]):>8.4f} {float(a[4]):>8.1f} {a[5]:>6} {a[6]:>6} {a[7]:>8} {float(a[8]):>7.1f} {a[9]:>6} {float(a[8]) / ($workers * float(a[4])):>5.2f}')" "$@"
}
no_orphans() {  # tool: no train.py may outlive the tool's command
  for _ in $(seq 50); do
    pgrep -f -- "$train" >/dev/null || return 0
    sleep 0.1
  done
  echo "$1 left train.py processes running:" >&2
  pgrep -af -- "$train" >&2
  exit 1
}

run_sweep() {  # round
  local r=$1 db="$work/sweep-$1.db" times="$work/timing-sweep-$1.txt"
  : > "$times"
  "$py" - "$example" "$work/study-$r.json" "$py" "$train" "$TRAIN_LIMIT" "$r" "$times" "$SWEEP_ALGORITHM" <<'PY'
import json, sys, yaml
src, dst, python, train, limit, seed, times, algorithm = sys.argv[1:]
study = yaml.safe_load(open(src))
study["algorithm"]["type"] = algorithm
study["task"]["command"]["argv"] = [python, train]
study["task"]["command"]["env"] = {"OMP_NUM_THREADS": "1", "TRAIN_LIMIT": limit,
                                   "BENCH_TIMING_FILE": times}
study["seed"] = int(seed)
json.dump(study, open(dst, "w"), indent=1)
PY
  local start end
  start=$(now)
  build/cli/sweep run "$work/study-$r.json" --db "$db" --local-runners "$workers" --progress plain >"$work/sweep.log" 2>&1 \
    || { echo "sweep run failed:" >&2; tail -20 "$work/sweep.log" >&2; exit 1; }
  end=$(now)
  no_orphans sweep
  q() { build/cli/sweep query "$1" --db "$db" --format csv | tail -n +2; }
  local bad best epochs trials
  bad=$(q "SELECT count(*) FROM trials WHERE status NOT IN ('completed', 'stopped')")
  [ "$bad" = 0 ] || { echo "sweep: $bad trial(s) neither completed nor stopped" >&2; q "SELECT number, status, failure FROM trials" >&2; exit 1; }
  best=$(q "SELECT value, json_extract(metrics, '\$.test_accuracy') FROM trials WHERE status = 'completed' AND step = $steps AND json_extract(metrics, '\$.test_accuracy') IS NOT NULL ORDER BY value DESC LIMIT 1" | tr ',' ' ')
  [ -n "$best" ] || best="nan nan"
  epochs=$(q "SELECT count(*) FROM reports WHERE metric = 'val_accuracy' AND step > 0")
  trials=$(q "SELECT count(*) FROM trials")
  local spent
  spent=$(timing "$times")
  # shellcheck disable=SC2086
  row "$r" sweep $best "$(elapsed "$start" "$end")" "$epochs" "$trials" - $spent
}

run_peer() {  # round, tool, script
  local r=$1 tool=$2 script=$3 start end line times="$work/timing-$2-$1.txt"
  : > "$times"
  start=$(now)
  BENCH_TIMING_FILE="$times" PYTHONPATH="$root/bench/command${PYTHONPATH:+:$PYTHONPATH}" "$py" "bench/command/$script" \
    --python "$py" --seed "$r" --budget "$budget" --steps "$steps" --workers "$workers" >"$work/$tool.out" 2>"$work/$tool.log" \
    || { echo "$script failed:" >&2; tail -30 "$work/$tool.log" >&2; exit 1; }
  end=$(now)
  no_orphans "$tool"
  line=$(grep "^RESULT $tool " "$work/$tool.out") || { echo "$script printed no RESULT line" >&2; cat "$work/$tool.out" >&2; exit 1; }
  local spent
  spent=$(timing "$times")
  # shellcheck disable=SC2086
  set -- $line $spent  # RESULT tool best test epochs trials inner work starts (split on purpose)
  row "$r" "$tool" "$3" "$4" "$(elapsed "$start" "$end")" "$5" "$6" "$7" "$8" "$9"
}
run_optuna() { run_peer "$1" optuna tuning_optuna.py; }
run_ray() { run_peer "$1" ray tuning_ray.py; }

echo "train.py: $py $train; TRAIN_LIMIT=$TRAIN_LIMIT; sweep: $SWEEP_ALGORITHM; $steps epochs at most, budget $budget epochs, $workers workers; REPEAT=$REPEAT"
echo "round tool    best_val test_acc   wall_s epochs trials  inner_s  work_s starts  busy"
for round in $(seq "$REPEAT"); do
  k=${#tools[@]}
  for i in $(seq 0 $((k - 1))); do   # rotate the order: round 2 starts with the second tool, ...
    "run_${tools[$(( (i + round - 1) % k ))]}" "$round"
  done
done

echo "# medians over $REPEAT round(s)"
python3 - "$results" "$workers" <<'PY'
import math, statistics, sys
WORKERS = int(sys.argv[2])
rows = [l.split() for l in open(sys.argv[1])]
print("tool    best_val test_acc   wall_s epochs trials  work_s starts  busy")
for tool in ["sweep", "optuna", "ray"]:
    mine = [r for r in rows if r[1] == tool]
    if not mine:
        continue
    med = lambda i: statistics.median(float(r[i]) for r in mine)
    busy = statistics.median(float(r[8]) / (WORKERS * float(r[4])) for r in mine)
    print(f"{tool:<7} {med(2):>8.4f} {med(3):>8.4f} {med(4):>8.1f} {med(5):>6g} {med(6):>6g} "
          f"{med(8):>7.1f} {med(9):>6g} {busy:>5.2f}")
PY
