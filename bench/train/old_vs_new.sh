#!/usr/bin/env bash
# bench/train/old_vs_new.sh OLD_TRAIN_BENCH NEW_TRAIN_BENCH: one-epoch
# samples/s of two train_bench builds (e.g. the commit before a change and
# after it), alternating which runs first, 5 pairs for the MLP and 2 for the
# CNN at 1 and 2 threads; prints new/old per pair.
set -euo pipefail
old=$1 new=$2
run() { "$1" --model "$2" --threads "$3" 2>/dev/null | sed -n 's/.*"samples_per_s": \([0-9.]*\).*/\1/p'; }
for cfg in "mlp 1" "mlp 2" "cnn 1" "cnn 2"; do
  rounds=5; [[ $cfg == cnn* ]] && rounds=2
  for r in $(seq "$rounds"); do
    # shellcheck disable=SC2086
    if (( r % 2 )); then o=$(run "$old" $cfg); n=$(run "$new" $cfg); else n=$(run "$new" $cfg); o=$(run "$old" $cfg); fi
    echo "$cfg round $r old $o new $n ratio $(python3 -c "print(round($n/$o, 3))")"
  done
done
