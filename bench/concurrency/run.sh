#!/usr/bin/env bash
# Trials per hour for example studies with 1, 2 and 4 local runners (trials
# at once) on this machine's cores, and the same with idle cores lent to
# running trials (the default) and not lent (`threads: 1`, each trial on one
# core, as before lending; with one runner the two are the same). Alternates the two for each runner count, ROUNDS
# times. Prints one JSON line per run.
# Usage: bench/concurrency/run.sh [ROUNDS] [STUDY...]   (default: 1 round of
# examples/fashion_mnist_mlp.yaml); RUNNERS="2 4" picks the runner counts
# (default "1 2 4").
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=1
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then rounds=$1; shift; fi
studies=("$@")
[ ${#studies[@]} -eq 0 ] && studies=(examples/fashion_mnist_mlp.yaml)
scripts/build.sh >/dev/null
sweep=$PWD/build/cli/sweep
work=$(mktemp -d /tmp/sweep-concurrency-XXXXXX)
trap 'rm -rf "$work"' EXIT
for study in "${studies[@]}"; do
  name=$(basename "$study" .yaml)
  # The study as it will run, in protobuf text; the copy that does not lend
  # fixes one thread (one model replica) a trial.
  "$sweep" validate --print "$study" > "$work/$name.pbtxt"
  sed '0,/^  train {$/s//  train {\n    threads: 1/' "$work/$name.pbtxt" > "$work/$name-fixed.pbtxt"
  grep -q "threads: 1" "$work/$name-fixed.pbtxt" || { echo "cannot fix threads in $study" >&2; exit 1; }
  for r in $(seq "$rounds"); do
    for n in ${RUNNERS:-1 2 4}; do
      for mode in lent fixed; do
        # One runner has every core to itself either way.
        [ "$n" = 1 ] && [ $mode = fixed ] && continue
        file=$work/$name.pbtxt
        [ $mode = fixed ] && file=$work/$name-fixed.pbtxt
        db=$work/$name-$n-$mode-$r.db
        start=$(date +%s.%N)
        "$sweep" run "$file" --db "$db" --local-runners "$n" --progress plain > "$db.log" 2>&1
        end=$(date +%s.%N)
        done_trials=$("$sweep" trials --db "$db" --format csv | tail -n +2 | grep -c ',completed,' || true)
        best=$("$sweep" best --db "$db" --format json | /usr/bin/python3 -c \
          'import json,sys; t=json.load(sys.stdin); m=t.get("metrics",{}); print(m.get("test_accuracy", m.get("test_rmse", "null")))')
        /usr/bin/python3 -c "import sys; n,mode,s,e,d,b,st=sys.argv[1:]; w=float(e)-float(s); \
print('{\"study\": \"%s\", \"runners\": %s, \"cores\": \"%s\", \"wall_s\": %.1f, \"trials\": %s, \"trials_per_hour\": %.1f, \"best_test\": %s}' % (st, n, mode, w, d, int(d)*3600/w, b))" \
          "$n" "$mode" "$start" "$end" "$done_trials" "$best" "$name"
      done
    done
  done
done
