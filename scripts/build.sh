#!/usr/bin/env bash
# Configures and builds one build directory.
#   [SHARDGRAPH_BUILD_TARGETS="t1 t2"] scripts/build.sh [BUILD_DIR] [extra cmake args...]
# Default: build/ (Release, warnings are errors).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build}
shift || true
cmake -S "$root" -B "$dir" -G Ninja -DSHARDGRAPH_WERROR=ON "$@" >/dev/null
# SHARDGRAPH_BUILD_TARGETS="a b": only those targets (default: all).
targets=()
for t in ${SHARDGRAPH_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$dir" -j "$(nproc)" "${targets[@]}"
