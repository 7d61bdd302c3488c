#!/usr/bin/env bash
# Sets everything up and runs the test suite: the release build (warnings are
# errors), the Python package and its pytest suite, the ASan+UBSan build, the engine and BVGraph tests under ThreadSanitizer, and a
# short run of every fuzz target.
# SHARDGRAPH_SKIP_SANITIZERS=1 runs only the first.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# Each stage's line says how long the command has run so far.
stage() { printf '== %s (at %d:%02d)\n' "$1" $((SECONDS / 60)) $((SECONDS % 60)) >&2; }
stage "setup (Debian packages)"
"$root/scripts/setup.sh" --mpi --format --ccache

# ctest splits names at ';' and would then run no case at all.
if grep -n 'TEST_CASE("[^"]*;' "$root"/tests/*.cc; then
  echo "test.sh: a TEST_CASE name above contains ';'" >&2
  exit 1
fi

# The release build and the Python package compile most sources with the
# same command, so the second takes the first's objects from ccache. The
# cache lives in the tree (build-ccache/): a fresh clone starts cold, and
# the times CI reports are those of one build, not of earlier runs.
export CCACHE_DIR="$root/build-ccache"
cached_compiler=(CMAKE_CXX_COMPILER="$(readlink -f "$(command -v c++)")" CMAKE_CXX_COMPILER_LAUNCHER=ccache)

stage "release build"
"$root/scripts/build.sh" "$root/build" "${cached_compiler[@]/#/-D}"
(cd "$root/build" && ctest --output-on-failure -j 2)

stage "Python package (build-venv/)"
SHARDGRAPH_PYTHON_CMAKE_DEFINES="${cached_compiler[*]}" \
  "$root/scripts/python_package.sh" --test "$root/build-venv"
ccache --show-stats | grep -iE '^(cacheable calls|  hits|  misses)' | sed 's/^ */ccache: /' >&2 || true

if [ "${SHARDGRAPH_SKIP_SANITIZERS:-0}" != 1 ]; then
  # The sanitizer and fuzz builds compile each target's sources in batches
  # of 8 (CMake's unity build): the headers and the templates they share
  # are compiled once a batch, not once a file (ASan build on the 2-core
  # host: 13:01 -> 9:33). The release build above stays one file at a
  # time, so that a source missing an include still fails there.
  unity=-DCMAKE_UNITY_BUILD=ON
  stage "ASan+UBSan build"
  "$root/scripts/build.sh" "$root/build-asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHARDGRAPH_SANITIZE=address,undefined "$unity"
  # The mpirun test (about 4 minutes in release, several times that here)
  # runs in the release stage; its processes run the same engine code that
  # the other cases check here. So do the LDBC validation graphs (the
  # kernels they run are checked here against the in-memory reference) and
  # the format and layer checks, which run no engine code. The longest
  # runs-over-updates case (its six graphs in nine io setups, about 90 s
  # here) runs in the release stage too; the update tests kept here run
  # the same merge, before and after a compaction, in both io modes.
  (cd "$root/build-asan" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --output-on-failure -j 2 \
      -E '^(distributed runs|LDBC Graphalytics validation|format:|layers:|runs over a graph with updates )')
  stage "ThreadSanitizer build (engine and app tests)"
  # Only what those tests run: the test binary and the CLI it calls.
  SHARDGRAPH_BUILD_TARGETS="shardgraph_tests shardgraph" \
    "$root/scripts/build.sh" "$root/build-tsan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHARDGRAPH_SANITIZE=thread "$unity"
  # Vertex arrays loaded by range on io_uring take 8 minutes here, the
  # stage's longest case: TSan runs the ranges on pread and io_uring
  # without them (the release and ASan stages run every combination), and
  # the app tests run half their random cases here (tests/test_apps.cc).
  # The windowed permutation's cases read a window's next half on a thread
  # of its own while the translation reads the lower half; the degree
  # order in one route, and an out-only first pass, count degrees beside
  # the routing thread; a batch's counting scatter runs in two halves; a
  # bfds order's second level is found by the sort's encoding threads; a
  # router's lanes route at once on threads of their own, and a lane's
  # background flushes overlap its own.
  (cd "$root/build-tsan" && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -j 2 \
    -R '^(apps|run|chunk cache|decoded cache|read-ahead|selective push|vertex orderings|webgraph|ingest distributed|ingest: the degree order written out of core|ingest: the degree order in one route|ingest: an out-only first pass counts in-degrees|ingest: a batch.s counting scatter|ingest: a bfds order.s first two levels|permutation|spill: lanes|spill, direct: a bucket.s records)[ :,]' \
    -E 'loaded by range: io_uring')
  stage "fuzzing, 15 s per target (clang, libFuzzer, ASan+UBSan)"
  SHARDGRAPH_FUZZ_CMAKE_ARGS="$unity" "$root/scripts/fuzz.sh" 15
fi
stage "all passed"
