#!/usr/bin/env bash
# Fuzzes each target for SECONDS with libFuzzer (clang, AddressSanitizer and
# UndefinedBehaviorSanitizer) in its own build, build-fuzz/. The corpus of
# each target grows in bench/fuzz/corpus/NAME (not committed), starting from
# the committed seeds in bench/fuzz/seeds/NAME. What crashes is written to
# build-fuzz/artifacts/NAME/ (crash-*, oom-*, timeout-*); copy a crash to
# tests/fuzz/NAME/ (one per bug: -fork writes one per job) and commit it,
# and ctest replays it from then on. Prints, per target, the executions, the
# corpus and the new crash files; exits 1 when a target crashed.
# Usage: bench/fuzz/run.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(wire study checkpoint idx checkpoint_folder report_line)
# libclang-rt-14-dev holds the sanitizer and libFuzzer runtimes, libomp-14-dev
# clang's OpenMP (both only recommended by clang, which install-deps skips).
scripts/install-deps.sh clang libclang-rt-14-dev libomp-14-dev >/dev/null
if [ ! -f build-fuzz/build.ninja ]; then
  rm -rf build-fuzz
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSWEEP_CUDA=OFF -DSWEEP_FUZZ=ON -DBUILD_TESTING=OFF \
    -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fsanitize=fuzzer-no-link" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
fi
cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]/%/_fuzz}"
failed=0
printf '%-18s %12s %10s %8s %8s\n' target executions exec/s corpus new
for t in "${targets[@]}"; do
  corpus="bench/fuzz/corpus/$t"
  crashes="build-fuzz/artifacts/$t"
  mkdir -p "$corpus" "$crashes"
  log="build-fuzz/$t.log"
  before=$(ls "$crashes" | grep -c '^crash-' || true)
  # -fork keeps going after a crash.
  ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "build-fuzz/bench/fuzz/${t}_fuzz" "$corpus" "bench/fuzz/seeds/$t" \
    -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 \
    -fork=1 -ignore_crashes=1 -artifact_prefix="$crashes/" -print_final_stats=1 \
    $( [ -f "bench/fuzz/$t.dict" ] && echo "-dict=bench/fuzz/$t.dict" ) \
    >"$log" 2>&1 || true
  # The last status line of the fork mode: "#N: cov: ... oom/timeout/crash: a/b/c".
  last=$(grep -E '^#[0-9]+: .*oom/timeout/crash' "$log" | tail -1 || true)
  execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"${last:-#0:}")
  found=$(sed -E 's/.*oom\/timeout\/crash: ([0-9\/]+).*/\1/' <<<"${last:-oom/timeout/crash: 0/0/0 }")
  rate=$(( execs / (seconds > 0 ? seconds : 1) ))
  after=$(ls "$crashes" | grep -c '^crash-' || true)
  [ "$after" -gt "$before" ] && failed=1
  printf '%-18s %12s %10s %8s %8s  %s\n' "$t" "$execs" "$rate" "$(ls "$corpus" | wc -l)" \
    "$((after - before))" "(oom/timeout/crash $found)"
done
# The checkpoint_folder target's scratch folders (a job that crashed leaves its own).
rm -rf /tmp/sweep-fuzz-folder-*
[ "$failed" -eq 0 ] || echo "crashes: see build-fuzz/artifacts/ and build-fuzz/NAME.log" >&2
exit "$failed"
