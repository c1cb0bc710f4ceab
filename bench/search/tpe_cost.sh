#!/usr/bin/env bash
# bench/search/tpe_cost.sh: the cost of one TPE proposal as the study grows,
# sweep (build/bench/tpe_cost: the scheduler's NextTrial over a trial table
# of N finished Hartmann-6 trials) against Optuna 5's TPESampler (ask() on a
# study of the same N trials), alternating, REPEAT rounds.
# Usage: bench/search/tpe_cost.sh [N ...]   (default: 1000 10000)
# Env: REPEAT=3, PROPOSALS=20 (per round; Optuna at 10,000 gets 5),
#      OPTUNA5_VENV=bench/.venv-optuna5 (made if missing)
set -euo pipefail
cd "$(dirname "$0")/../.."
REPEAT="${REPEAT:-3}"
PROPOSALS="${PROPOSALS:-20}"
OPTUNA5_VENV="${OPTUNA5_VENV:-bench/.venv-optuna5}"
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1000 10000)
[ -x build/bench/tpe_cost ] || { echo "build/bench/tpe_cost is missing: build first" >&2; exit 1; }
if [ ! -x "$OPTUNA5_VENV/bin/python" ]; then
  python3 -m venv "$OPTUNA5_VENV"
  "$OPTUNA5_VENV/bin/pip" install -q "optuna>=5,<6"
fi
for n in "${sizes[@]}"; do
  p=$PROPOSALS
  [ "$n" -ge 10000 ] && p=$(( PROPOSALS < 5 ? PROPOSALS : 5 ))
  for r in $(seq 1 "$REPEAT"); do
    if [ $((r % 2)) -eq 1 ]; then
      s=$(build/bench/tpe_cost cost "$n" "$p"); o=$("$OPTUNA5_VENV/bin/python" bench/search/optuna_tpe_cost.py "$n" "$p")
    else
      o=$("$OPTUNA5_VENV/bin/python" bench/search/optuna_tpe_cost.py "$n" "$p"); s=$(build/bench/tpe_cost cost "$n" "$p")
    fi
    python3 -c "import sys; s=float(sys.argv[1].split()[2]); o=float(sys.argv[2].split()[2]); print(f'N={sys.argv[3]} round {sys.argv[4]}: sweep {s:.2f} ms, optuna5 {o:.2f} ms, ratio {o/s:.1f}x')" "$s" "$o" "$n" "$r"
  done
done
