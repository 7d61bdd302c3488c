#!/usr/bin/env bash
# The power-cut simulator, longer than the test suite runs it: every
# writer's power-cut case (tests/test_powercut.cc) on graphs SCALE times
# larger, with SCALE*2 torn states a sync point. Prints each writer's crash
# states (new graph, old graph, refused); exits non-zero on any defect.
#   scripts/powercut.sh [SCALE] [BUILD_DIR]    (default 8, build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
scale=${1:-8}
build=${2:-$root/build}
if [ ! -x "$build/tests/shardgraph_tests" ]; then
  echo "powercut.sh: building shardgraph and its tests in $build" >&2
  SHARDGRAPH_BUILD_TARGETS="shardgraph shardgraph_tests" "$root/scripts/build.sh" "$build"
fi
SG_POWERCUT_SCALE=$scale "$build/tests/shardgraph_tests" -tc='power cuts*' 2>&1 |
  grep -E 'crash states|ERROR|lost|durable|neither|test cases|Status'
