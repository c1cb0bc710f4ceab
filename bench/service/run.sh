#!/usr/bin/env bash
# bench/service: `sweep serve` measured (issue 41).
#  1. shares: four studies with priorities 1, 1, 2 and 4 and trials of
#     0.2, 0.5, 1 and 2 s on 4 local runners for DURATION seconds: runner
#     utilisation while every study has work, and each study's busy time
#     against its weight;
#  2. latency: from `sweep submit` starting to the study's first trial
#     starting, on an idle service, and on one whose 4 runners all run
#     priority-1 trials (0.5 s steps, checkpointing when preempted) when a
#     priority-10 study arrives (REPEAT times each);
#  3. dispatch: bench/dispatch's workload (N instant trials x 10 reports, 2
#     runners) through `sweep serve` + `sweep submit` against `sweep run`,
#     alternating, REPEAT rounds: the loop's rate, first trial started to
#     last trial ended, from the database;
#  4. scale: RUNNERS simulated runners (build/bench/fake_runners: CURVE
#     DEALER sockets running instant trials) and STUDIES studies for
#     DURATION seconds, trials of TRIAL_MS (0: instant): the service's CPU and peak RSS, messages/s, p50/p99
#     from a runner asking to it holding a trial, and whether every trial
#     the service acknowledged is in the database.
# Usage: bench/service/run.sh
#   Env: DURATION=120 REPEAT=5 N=10000 RUNNERS=1000 STUDIES=20 TRIAL_MS=0 PARTS="1 2 3 4"
# Prints a report; paste it into bench/RESULTS.md with `lscpu`'s model.
set -euo pipefail
cd "$(dirname "$0")/../.."
DURATION="${DURATION:-120}"
REPEAT="${REPEAT:-5}"
N="${N:-10000}"
PARTS="${PARTS:-1 2 3 4}"
RUNNERS="${RUNNERS:-1000}"
STUDIES="${STUDIES:-20}"
TRIAL_MS="${TRIAL_MS:-0}"
scripts/build.sh >/dev/null
cmake --build build --target fake_runners >/dev/null
S="$PWD/build/cli/sweep"
work="$(mktemp -d)"
serve_pid=""
cleanup() {
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

study() {  # name trials steps step_ms [preemptible]
  cat > "$work/$1.yaml" <<YAML
name: $1
objective: {metric: value, goal: minimize}
task: {synthetic: {function: curve, steps: $3, step_ms: $4}}
algorithm: {type: random, max_trials: $2}
seed: 1
parameters:
  x1: {type: float, min: 0, max: 1}
  x2: {type: float, min: 0, max: 1}
YAML
  echo "$work/$1.yaml"
}

serve() {  # db runners
  "$S" serve --db "$1" --local-runners "$2" > "$work/serve.log" 2>&1 &
  serve_pid=$!
  until "$S" runners --db "$1" 2>/dev/null | grep -q "local-$(( $2 - 1 ))"; do sleep 0.1; done
}

stop_serve() {
  kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true; serve_pid=""
}

now() { python3 -c 'import time; print(time.time())'; }

echo "== sweep serve: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs"

if [[ " $PARTS " == *" 1 "* ]]; then
echo "-- 1. shares and utilisation: priorities 1, 1, 2, 4; trials 0.2, 0.5, 1, 2 s; 4 runners; ${DURATION} s"
db="$work/shares.db"
serve "$db" 4
"$S" submit "$(study p1a 100000 4 50)" --db "$db" --priority 1 >/dev/null
"$S" submit "$(study p1b 100000 5 100)" --db "$db" --priority 1 >/dev/null
"$S" submit "$(study p2 100000 5 200)" --db "$db" --priority 2 >/dev/null
"$S" submit "$(study p4 100000 10 200)" --db "$db" --priority 4 >/dev/null
t0=$(now)
sleep "$DURATION"
t1=$(now)
stop_serve
python3 - "$db" "$t0" "$t1" <<'PY'
import sqlite3, sys
db, t0, t1 = sys.argv[1], float(sys.argv[2]) + 5, float(sys.argv[3])  # 5 s to settle
c = sqlite3.connect(db)
weights = dict(c.execute("SELECT name, priority FROM studies"))
busy = {}
for name, s, e in c.execute("SELECT s.name, t.started_at, coalesce(t.ended_at, 1e18) FROM trials t "
                            "JOIN studies s ON s.id = t.study_id WHERE t.started_at IS NOT NULL"):
    busy[name] = busy.get(name, 0) + max(0, min(e, t1) - max(s, t0))
total = sum(busy.values()); window = t1 - t0; wsum = sum(weights.values())
print(f"window {window:.0f} s: utilisation {total / (4 * window):.4f} (busy runner-seconds / 4 runners x window)")
for n in sorted(weights, key=lambda n: (weights[n], n)):
    share = busy.get(n, 0) / total; want = weights[n] / wsum
    print(f"  {n}: priority {weights[n]:g}, busy {busy.get(n, 0):7.1f} s, share {share:.4f} "
          f"against {want:.4f} ({(share / want - 1) * 100:+.1f}%)")
pre = c.execute("SELECT count(*) FROM decisions WHERE decision='preempt'").fetchone()[0]
print(f"  preemptions: {pre}")
PY
fi

latency() {  # db study priority -> seconds from submit to its first trial
  local before; before=$(now)
  "$S" submit "$2" --db "$1" --priority "$3" >/dev/null
  local name; name=$(basename "$2" .yaml)
  until python3 - "$1" "$name" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
r = c.execute("SELECT min(t.started_at) FROM trials t JOIN studies s ON s.id = t.study_id "
              "WHERE s.name=?", (sys.argv[2],)).fetchone()[0]
sys.exit(0 if r is not None else 1)
PY
  do sleep 0.02; done
  python3 - "$1" "$name" "$before" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
first, created = c.execute("SELECT min(t.started_at), s.created_at FROM trials t JOIN studies s "
                           "ON s.id = t.study_id WHERE s.name=?", (sys.argv[2],)).fetchone()
print(f"{first - float(sys.argv[3]):.3f} {first - created:.3f}")
PY
}

if [[ " $PARTS " == *" 2 "* ]]; then
echo "-- 2. submit to first trial (s: from the command's start | from the study's creation)"
db="$work/idle.db"
serve "$db" 4
for i in $(seq "$REPEAT"); do
  echo "  idle service: $(latency "$db" "$(study idle$i 1 1 10)" 1)"
done
stop_serve
db="$work/busy.db"
serve "$db" 4
"$S" submit "$(study low 100000 20 500)" --db "$db" --priority 1 >/dev/null
sleep 3
for i in $(seq "$REPEAT"); do
  echo "  4 runners busy with 0.5 s steps, priority 10 arrives: $(latency "$db" "$(study high$i 2 2 10)" 10)"
  sleep 3
done
stop_serve
fi

[[ " $PARTS " == *" 3 "* ]] && echo "-- 3. dispatch: $N instant trials x 10 reports, 2 runners (trials/s, first start to last end)"
rate() {
  python3 - "$1" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
n, a, b = c.execute("SELECT count(*), min(started_at), max(ended_at) FROM trials WHERE status='completed'").fetchone()
print(f"{n / (b - a):.0f}")
PY
}
for i in $(seq "$REPEAT"); do
  [[ " $PARTS " == *" 3 "* ]] || break
  f="$(study d$i "$N" 10 0)"
  "$S" run "$f" --db "$work/run$i.db" --local-runners 2 --progress plain >/dev/null 2>&1
  serve "$work/serve$i.db" 2
  "$S" submit "$f" --db "$work/serve$i.db" >/dev/null
  until [ "$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"SELECT status FROM studies\").fetchone()[0])" "$work/serve$i.db")" = completed ]; do sleep 0.2; done
  stop_serve
  r=$(rate "$work/run$i.db"); s=$(rate "$work/serve$i.db")
  echo "  round $i: sweep run $r/s, sweep serve $s/s: $(python3 -c "print(f'{$s / $r:.3f}')")x"
done

if [[ " $PARTS " == *" 4 "* ]]; then
echo "-- 4. scale: $RUNNERS simulated runners (trials of $TRIAL_MS ms, one report each), $STUDIES studies, ${DURATION} s"
keys="$work/keys"
"$S" keys new tuner --dir "$keys" >/dev/null
list=""
for k in $(seq 0 $(( (RUNNERS + 199) / 200 - 1 ))); do  # a key holds 256 runners at most
  "$S" keys new "fake$k" --role runner --dir "$keys" >/dev/null
  list="$list${list:+,}$keys/runners/fake$k.key"
done
db="$work/scale.db"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$S" serve --db "$db" --local-runners 0 --keys "$keys" --bind "tcp://127.0.0.1:$port" \
  --max-connections $(( RUNNERS + 64 )) > "$work/serve.log" 2>&1 &
serve_pid=$!
until "$S" runners --db "$db" >/dev/null 2>&1; do sleep 0.1; done
for i in $(seq "$STUDIES"); do
  "$S" submit "$(study "s$i" 100000000 1 0)" --db "$db" --priority $(( i % 4 + 1 )) >/dev/null
done
ticks() { awk '{print $14 + $15}' "/proc/$serve_pid/stat"; }
cpu0=$(ticks)
build/bench/fake_runners --connect "tcp://127.0.0.1:$port" --server-key "$keys/tuner.pub" \
  --keys "$list" --runners "$RUNNERS" --seconds "$DURATION" --trial-ms "$TRIAL_MS" > "$work/fake.json"
cpu1=$(ticks)
rss=$(awk '/VmHWM/ {print $2}' "/proc/$serve_pid/status")
stop_serve
python3 - "$db" "$work/fake.json" "$cpu0" "$cpu1" "$rss" "$(getconf CLK_TCK)" <<'PY'
import json, sqlite3, sys
db, fake, cpu0, cpu1, rss, tck = sys.argv[1], json.load(open(sys.argv[2])), *map(float, sys.argv[3:])
c = sqlite3.connect(db)
by = dict(c.execute("SELECT status, count(*) FROM trials GROUP BY status"))
cpu = (cpu1 - cpu0) / tck / fake["seconds"]
print(f"  service: CPU {cpu:.2f} cores, peak RSS {rss / 1024:.0f} MiB")
print(f"  runners' side: {fake['messages_per_s']:.0f} messages/s, {fake['finals_acked'] / fake['seconds']:.0f} "
      f"trials/s acknowledged; asking to holding a trial p50 {fake['wait_ms_p50']:.2f} ms, "
      f"p99 {fake['wait_ms_p99']:.2f} ms, max {fake['wait_ms_max']:.1f} ms ({fake['waits']} waits); "
      f"joining (all at once) to the first trial p50 {fake['join_ms_p50']:.0f} ms, max {fake['join_ms_max']:.0f} ms "
      f"({fake['joins']} runners)")
print(f"  rejects {fake['rejects']}, reregisters {fake['reregisters']}, protocol errors {fake['protocol_errors']}")
done = by.get("completed", 0)
print(f"  database: {done} completed, by status {by}; acknowledged finals {fake['finals_acked']}: "
      + ("none lost" if done >= fake["finals_acked"] else "LOST"))
PY
fi
