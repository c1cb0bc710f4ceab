#!/usr/bin/env bash
# bench/search/mo_cost.sh: the cost of one proposal with two objectives as
# the study grows: sweep's MOTPE and NSGA-II (build/bench/mo_cost: the
# scheduler's NextTrial over a table of N finished ZDT1 trials) against
# Optuna 5's TPESampler and NSGAIISampler (ask() on a study of the same N
# trials), alternating, REPEAT rounds. Nothing else should run meanwhile.
# Usage: bench/search/mo_cost.sh [N ...]   (default: 1000)
# Env: REPEAT=3, PROPOSALS=10; the venv of bench/search/mo.py (bench/.venv-mo,
#      made if missing).
set -euo pipefail
cd "$(dirname "$0")/../.."
REPEAT="${REPEAT:-3}"
PROPOSALS="${PROPOSALS:-10}"
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1000)
[ -x build/bench/mo_cost ] || { echo "build/bench/mo_cost is missing: build first" >&2; exit 1; }
py=$(python3 -c "import sys; sys.path.insert(0, 'bench/search'); import mo; print(mo.ensure_venv())")
for n in "${sizes[@]}"; do
  for algo in tpe nsga2; do
    for r in $(seq 1 "$REPEAT"); do
      if [ $((r % 2)) -eq 1 ]; then
        s=$(build/bench/mo_cost "$algo" "$n" "$PROPOSALS"); o=$("$py" bench/search/optuna_mo.py cost "$algo" "$n" "$PROPOSALS")
      else
        o=$("$py" bench/search/optuna_mo.py cost "$algo" "$n" "$PROPOSALS"); s=$(build/bench/mo_cost "$algo" "$n" "$PROPOSALS")
      fi
      python3 -c "import sys; s=float(sys.argv[1].split()[2]); o=float(sys.argv[2].split()[2]); print(f'N={sys.argv[3]} {sys.argv[5]} round {sys.argv[4]}: sweep {s:.2f} ms, optuna5 {o:.2f} ms, ratio {o/s:.1f}x')" "$s" "$o" "$n" "$r" "$algo"
    done
  done
done
