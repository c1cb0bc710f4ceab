#!/usr/bin/env bash
# bench/json: sweep's own JSON reader (common/json_reader.cc, what parses the
# SWEEP_REPORT lines untrusted programs print) and writer against the JSON
# libraries Debian 12 ships: simdjson 3.0 (on-demand), nlohmann-json 3.11 and
# RapidJSON 1.1 (issue 40's "pick one by measurement"). Prints parse speed
# (thread CPU time per line, 1e6 parses, median of 5 rotated repeats), write
# speed, the edge-case table (acceptance, messages, depth limit, number round
# trips) and the two number bugs found (simdjson 3.0.1, RapidJSON 1.1.0).
# Results and the decision: bench/RESULTS.md, "bench/json, session 25".
# Usage: bench/json/run.sh [OUT_DIR]   (default: a temporary folder)
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/install-deps.sh libsimdjson-dev nlohmann-json3-dev rapidjson-dev >/dev/null
out="${1:-$(mktemp -d)}"
mkdir -p "$out"
CXX=(g++ -std=c++20 -O2 -Wall -Wno-unused-parameter -I. -Ibench/json)
objs=()
for f in common/json_reader.cc common/status.cc common/json.cc bench/json/p_simdjson.cc \
         bench/json/p_nlohmann.cc bench/json/p_rapidjson.cc bench/json/specials.cc; do
  o="$out/$(basename "$f" .cc).o"
  "${CXX[@]}" -c "$f" -o "$o"
  objs+=("$o")
done
"${CXX[@]}" -march=haswell -DParseSimdjson=ParseSimdjsonHaswell \
  -DParseSimdjsonSkip=ParseSimdjsonSkipHaswell -c bench/json/p_simdjson.cc -o "$out/p_simdjson_haswell.o"
objs+=("$out/p_simdjson_haswell.o")
"${CXX[@]}" bench/json/bench_parse.cc "${objs[@]}" -lsimdjson -o "$out/bench_parse"
"${CXX[@]}" bench/json/checks.cc "${objs[@]}" -lsimdjson -o "$out/checks"
"${CXX[@]}" bench/json/bench_write.cc "$out/json.o" -o "$out/bench_write"
"${CXX[@]}" bench/json/simdjson_number_bug.cc -lsimdjson -o "$out/simdjson_number_bug"
"${CXX[@]}" bench/json/rapidjson_noprec.cc -o "$out/rapidjson_noprec"
lscpu | grep -E 'Model name|^CPU\(s\)'
echo "== parse"; "$out/bench_parse"
echo "== write"; "$out/bench_write"
echo "== edge cases"; "$out/checks"
echo "== simdjson 3.0.1 numbers"; "$out/simdjson_number_bug" || true
echo "== RapidJSON 1.1.0 numbers"; "$out/rapidjson_noprec" || true
