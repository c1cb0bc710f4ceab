#!/usr/bin/env bash
# bench/search/gp_cost.sh: the cost of one GP proposal as the study grows,
# sweep (build/bench/tpe_cost with ALGORITHM=gp: the scheduler's NextTrial
# over a table of N finished Hartmann-6 trials, uniform points) against
# Optuna 5's GPSampler (ask() on a study of the same N trials), alternating,
# REPEAT rounds. Nothing else should run meanwhile.
# Usage: bench/search/gp_cost.sh [N ...]   (default: 100 300 1000)
# Env: REPEAT=3, PROPOSALS=5 (per round; 2 at N >= 1000); the venv of
#      bench/search/gp.py (bench/.venv-gp, made if missing).
set -euo pipefail
cd "$(dirname "$0")/../.."
REPEAT="${REPEAT:-3}"
PROPOSALS="${PROPOSALS:-5}"
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(100 300 1000)
[ -x build/bench/tpe_cost ] || { echo "build/bench/tpe_cost is missing: build first" >&2; exit 1; }
py=$(python3 -c "import sys; sys.path.insert(0, 'bench/search'); import gp; print(gp.ensure_venv())")
for n in "${sizes[@]}"; do
  p=$PROPOSALS
  [ "$n" -ge 1000 ] && p=$(( PROPOSALS < 2 ? PROPOSALS : 2 ))
  for r in $(seq 1 "$REPEAT"); do
    if [ $((r % 2)) -eq 1 ]; then
      s=$(ALGORITHM=gp build/bench/tpe_cost cost "$n" "$p"); o=$("$py" bench/search/optuna_gp.py cost gp "$n" "$p" 2>/dev/null)
    else
      o=$("$py" bench/search/optuna_gp.py cost gp "$n" "$p" 2>/dev/null); s=$(ALGORITHM=gp build/bench/tpe_cost cost "$n" "$p")
    fi
    python3 -c "import sys; s=float(sys.argv[1].split()[2]); o=float(sys.argv[2].split()[2]); print(f'N={sys.argv[3]} round {sys.argv[4]}: sweep gp {s:.1f} ms, optuna5 GPSampler {o:.1f} ms, ratio {o/s:.1f}x')" "$s" "$o" "$n" "$r"
  done
done
