#!/usr/bin/env bash
# cmake --install of a build into a scratch prefix, then a program outside
# the tree (consumer/) found through find_package(shardgraph), built and run.
#   tests/install/check_install.sh BUILD_DIR WORK_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$1; work=$2
rm -rf "$work"; mkdir -p "$work/data"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
test -x "$work/prefix/bin/shardgraph"
test -f "$work/prefix/include/shardgraph/shardgraph.h"
cmake -S "$here/consumer" -B "$work/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null
LD_LIBRARY_PATH="$work/prefix/lib:${LD_LIBRARY_PATH:-}" "$work/consumer/consumer" "$work/data"
"$work/prefix/bin/shardgraph" --version
