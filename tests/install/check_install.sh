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
# The public headers are shardgraph/*.h only, include none but each other
# and the standard library's, and name nothing of the engine's sg::.
headers=$(find "$work/prefix/include" -type f)
test "$(echo "$headers" | sed "s#^$work/prefix/include/##" | sort | tr '\n' ' ')" = "shardgraph/shardgraph.h shardgraph/status.h "
if grep -n '#include "' $headers | grep -v '#include "shardgraph/'; then echo "a public header includes a private one" >&2; exit 1; fi
if grep -n 'sg::\|SG_' $headers; then echo "a public header names the engine's internals" >&2; exit 1; fi
cmake -S "$here/consumer" -B "$work/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null
LD_LIBRARY_PATH="$work/prefix/lib:${LD_LIBRARY_PATH:-}" "$work/consumer/consumer" "$work/data"
"$work/prefix/bin/shardgraph" --version
