#!/usr/bin/env bash
# Side-by-side render benchmark: time to a complete render of a study's page,
# `sweep dashboard` vs optuna-dashboard 0.21, same trials (N trials of 50
# reports, written by a real sweep and copied into an Optuna 5 SQLite storage),
# same headless Chromium, a fresh browser per measurement (render.py).
# Per size: start both servers, one first render each (round 0: the server
# has answered nothing yet, so nothing is cached; shown on its own), then
# ROUNDS alternated renders (sweep, optuna, sweep, optuna, ...); prints a
# markdown table of the first renders, the medians and the ratio.
#
# Usage: bench/dashboard/run.sh [ROUNDS=5]
#   SIZES="1000 10000"  TIMEOUT=120 (s per render)  SIDES="sweep optuna"
#   OUT=DIR (keeps the databases and results there; default a temp dir, removed)
#   REUSE=1 (with OUT: keep databases already made there)
#   SWEEP_READY (default: document.body.dataset.ready === "1")
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/bench/dashboard
rounds=${1:-5}
sizes=${SIZES:-1000 10000}
timeout=${TIMEOUT:-120}
sides=${SIDES:-sweep optuna}
sweep_ready=${SWEEP_READY:-'document.body.dataset.ready === "1"'}
py=/usr/bin/python3; [ -x "$py" ] || py=python3
venv=$root/bench/.venv-dashboard
if [ -z "${OUT:-}" ]; then out=$(mktemp -d); keep=; else out=$OUT; keep=1; mkdir -p "$out"; fi

pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -n "$keep" ] || rm -rf "$out"
}
trap cleanup EXIT

if [ ! -x "$venv/bin/optuna-dashboard" ]; then
  "$py" -m venv "$venv"
  "$venv/bin/pip" install -q "optuna==5.0.*" "optuna-dashboard==0.21.*"
fi

free_port() { "$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_up() {  # URL PID: until the server answers (60 s)
  for _ in $(seq 600); do
    curl -s -o /dev/null "$1" && return 0
    kill -0 "$2" 2>/dev/null || { echo "server for $1 died" >&2; return 1; }
    sleep 0.1
  done
  echo "server for $1 did not come up" >&2; return 1
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
wait_idle() {  # PID: until it used no CPU for 1 s (at most 300 s), e.g. after an abandoned render
  local a b
  for _ in $(seq 300); do
    a=$(cpu_ticks "$1"); sleep 1; b=$(cpu_ticks "$1")
    [ "$a" = "$b" ] && return 0
  done
}

results=$out/results.jsonl
: >"$results"
load0=$(cut -d' ' -f1-3 /proc/loadavg)   # a busy machine (a build) skews both sides
for n in $sizes; do
  if [ -z "${REUSE:-}" ] || [ ! -s "$out/sweep-$n.db" ] || [ ! -s "$out/optuna-$n.db" ]; then
    "$here/make_db.sh" "$n" "$out/sweep-$n.db"
    rm -f "$out/optuna-$n.db"
    "$venv/bin/python" "$here/to_optuna.py" "$out/sweep-$n.db" "$out/optuna-$n.db"
  fi
  params=$(sqlite3 "$out/sweep-$n.db" "select count(*) from json_each((select spec_json from studies where id = 1), '$.parameters')")
  declare -A url pid
  for side in $sides; do
    port=$(free_port)
    if [ "$side" = sweep ]; then
      "$root/build/cli/sweep" dashboard --db "$out/sweep-$n.db" --bind "127.0.0.1:$port" >"$out/sweep-$n.log" 2>&1 &
      url[$side]="http://127.0.0.1:$port/#/study/1"
    else
      "$venv/bin/optuna-dashboard" "sqlite:///$out/optuna-$n.db" --host 127.0.0.1 --port "$port" >"$out/optuna-$n.log" 2>&1 &
      url[$side]="http://127.0.0.1:$port/dashboard/studies/1"
    fi
    pid[$side]=$!; pids+=($!)
    wait_up "http://127.0.0.1:$port/" "${pid[$side]}"
  done
  declare -A skip=()
  for r in $(seq 0 "$rounds"); do          # round 0: the first render, cold server
    for side in $sides; do
      [ -z "${skip[$side]:-}" ] || continue
      if [ "$side" = sweep ]; then ready=$sweep_ready; else ready="optuna:$n:$params"; fi
      t=$timeout; [ "$r" -gt 0 ] || t=$((timeout * 3))
      line=$("$py" "$here/render.py" "${url[$side]}" "$ready" --timeout "$t")
      echo "{\"side\": \"$side\", \"trials\": $n, \"round\": $r, \"timeout\": $t, \"r\": $line}" >>"$results"
      echo "$n trials, round $r, $side: $line" | cut -c1-300 >&2
      if [[ $line == '{"ms": null'* ]]; then  # timed out: stop timing this side at this size
        skip[$side]=1; wait_idle "${pid[$side]}"
      fi
      sleep 1
    done
  done
  for side in $sides; do kill "${pid[$side]}" 2>/dev/null || true; wait "${pid[$side]}" 2>/dev/null || true; done
  unset url pid skip
done

echo "load average at start $load0, at end $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
echo
"$py" - "$results" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("| trials | sweep first render ms | sweep median ms (runs) | optuna-dashboard first render ms | optuna-dashboard median ms (runs) | ratio of medians | ratio of first renders |")
print("|---:|---:|---:|---:|---:|---:|---:|")
for n in sorted({r["trials"] for r in rows}):
    med, first, cell = {}, {}, {}
    for side in ("sweep", "optuna"):
        rs = [r for r in rows if r["trials"] == n and r["side"] == side and r["round"] > 0]
        ms = [r["r"]["ms"] for r in rs if r["r"]["ms"] is not None]
        cold = [r for r in rows if r["trials"] == n and r["side"] == side and r["round"] == 0]
        if cold and cold[0]["r"]["ms"] is not None:
            first[side] = cold[0]["r"]["ms"]
            cell[side + "0"] = "%.0f" % first[side]
        elif cold:
            cell[side + "0"] = "none in %d s" % cold[0]["timeout"]
        else:
            cell[side + "0"] = "-"
        if ms:
            med[side] = statistics.median(ms)
            cell[side] = "%.0f (%d)" % (med[side], len(ms))
        elif rs or cold:
            cell[side] = "no complete render in %d s" % (rs or cold)[0]["timeout"]
        else:
            cell[side] = "-"
    ratio = "%.1f×" % (med["optuna"] / med["sweep"]) if len(med) == 2 else "-"
    ratio0 = "%.1f×" % (first["optuna"] / first["sweep"]) if len(first) == 2 else "-"
    print("| %d | %s | %s | %s | %s | %s | %s |" % (n, cell["sweep0"], cell["sweep"], cell["optuna0"],
                                                 cell["optuna"], ratio, ratio0))
errs = {(r["side"], r["trials"]): r["r"]["errors"] + r["r"]["offsite"] for r in rows if r["r"]["errors"] or r["r"]["offsite"]}
for k, v in errs.items():
    print("\n%s at %d trials: errors/off-site requests: %s" % (k[0], k[1], v[:5]))
EOF
