#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) with clang, ASan and UBSan in
# build-fuzz/ and runs each for SECONDS (default 60), starting from the
# committed seed corpus plus what earlier runs found (build-fuzz/corpus).
# Prints one JSON line per target: executions, seconds, crashes; exits 1 if
# any target crashed (its reproducer is saved under build-fuzz/crashes/:
# add it to tests/fuzz/corpus/<target>/ once fixed, so the replay test keeps it).
# The seed is fixed (FUZZ_SEED, default 1) so that a CI run's inputs can be
# replayed on another machine: the same binary and corpus try the same inputs.
# SHARDGRAPH_FUZZ_CMAKE_ARGS adds cmake arguments (test.sh: a unity build).
#   scripts/fuzz.sh [SECONDS] [TARGET...]   (targets: varint chunk manifest edge_reader bvgraph delta_run)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}; shift || true
targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=(varint chunk manifest edge_reader bvgraph delta_run)
if ! command -v clang++ >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "fuzz.sh: installing clang libclang-rt-dev" >&2
  $sudo apt-get update -qq  # a machine whose other packages were present never fetched the lists
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q clang libclang-rt-dev >/dev/null
fi
build=$root/build-fuzz
CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHARDGRAPH_FUZZ=ON -DSHARDGRAPH_WERROR=ON \
  -DSHARDGRAPH_SANITIZE=address,undefined,fuzzer-no-link ${SHARDGRAPH_FUZZ_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "$(nproc)" --target $(printf 'fuzz_%s ' "${targets[@]}") >/dev/null
status=0
for target in "${targets[@]}"; do
  mkdir -p "$build/corpus/$target" "$build/crashes/$target"
  log=$build/fuzz_$target.log
  set +e
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 "$build/tests/fuzz_$target" -max_total_time="$seconds" \
    -seed="${FUZZ_SEED:-1}" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -artifact_prefix="$build/crashes/$target/" \
    "$build/corpus/$target" "$root/tests/fuzz/corpus/$target" >"$log" 2>&1
  rc=$?
  set -e
  runs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -1)
  crashes=$(find "$build/crashes/$target" -type f | wc -l)
  printf '{"bench":"fuzz","target":"%s","seconds":%s,"executions":%s,"exit_code":%s,"crash_files":%s}\n' \
    "$target" "$seconds" "${runs:-0}" "$rc" "$crashes"
  if [ "$rc" != 0 ]; then
    status=1
    grep -m 5 -E 'ERROR|SUMMARY|runtime error' "$log" >&2 || true
  fi
done
exit $status
