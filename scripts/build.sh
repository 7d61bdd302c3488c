#!/usr/bin/env bash
# Configures and builds one build directory.
#   scripts/build.sh [BUILD_DIR] [extra cmake args...]
# Default: build/ (Release, warnings are errors).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build}
shift || true
cmake -S "$root" -B "$dir" -G Ninja -DSHARDGRAPH_WERROR=ON "$@" >/dev/null
cmake --build "$dir" -j "$(nproc)"
