#!/usr/bin/env bash
# The first render of a study's page by a dashboard that has just started
# (nothing cached, every answer read from the database), N times, each with
# a fresh server and a fresh Chromium (render.py); prints each and the
# median. run.sh measures one such render per size (its round 0) next to
# optuna-dashboard; this repeats it for sweep alone.
# Usage: bench/dashboard/cold.sh DB [N=5]  (DB: e.g. OUT/sweep-10000.db from run.sh)
set -euo pipefail
db=${1:?usage: cold.sh DB [N]}; n=${2:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
py=/usr/bin/python3; [ -x "$py" ] || py=python3
pid=
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null || true' EXIT
ms=()
for i in $(seq "$n"); do
  port=$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "$root/build/cli/sweep" dashboard --db "$db" --bind "127.0.0.1:$port" >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 300); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
  line=$("$py" "$root/bench/dashboard/render.py" "http://127.0.0.1:$port/#/study/1" \
    'document.body.dataset.ready === "1"' --timeout 60)
  echo "first render $i: $line" >&2
  ms+=("$("$py" -c 'import json, sys; print(json.loads(sys.argv[1])["ms"])' "$line")")
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
  sleep 1
done
"$py" -c 'import statistics, sys; v = sorted(float(x) for x in sys.argv[1:]); print("first renders (ms): %s; median %.0f" % (", ".join("%.0f" % x for x in v), statistics.median(v)))' "${ms[@]}"
