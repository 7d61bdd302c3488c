#!/usr/bin/env bash
# Sets everything up and runs the main job on a built-in default: generate an
# R-MAT graph (scale 18, 4M edges), ingest it out of core with a 64 MiB
# budget, verify and describe it, then run PageRank (10 iterations, 64 MiB)
# and print the top 10 vertices. Output goes to ./quickstart/. One line per
# phase, and the build's progress every tenth of the way (3 to 4 minutes on
# 2 cores; a fresh machine adds the package install).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
step() { echo "quickstart: [$1/7] $2" >&2; }
step 1 "packages (scripts/setup.sh; installs what is missing)"
"$root/scripts/setup.sh"
step 2 "building build/shardgraph (scripts/build.sh; 3 to 4 minutes on 2 cores)"
log=$(mktemp); trap 'rm -f "$log"' EXIT
# Ninja prints "[done/total] ..." a line: one line every tenth of the way.
# Only the command line: the tests are scripts/test.sh's to build.
if ! SHARDGRAPH_BUILD_TARGETS=shardgraph "$root/scripts/build.sh" "$root/build" 2>&1 | tee "$log" |
    awk -F'[][/]' '/^\[[0-9]+\/[0-9]+\]/ { p = int(10 * $2 / $3); if (p > last) { last = p; printf "quickstart: build %d%% (%d of %d steps)\n", 10 * p, $2, $3 > "/dev/stderr" } }'; then
  cat "$log" >&2
  exit 1
fi
sg="$root/build/shardgraph"
work=${QUICKSTART_DIR:-$PWD/quickstart}
mkdir -p "$work"
rm -rf "$work/rmat18"
step 3 "generating R-MAT scale 18 ($work/rmat18.txt)"
[ -f "$work/rmat18.txt" ] || "$sg" generate rmat --scale 18 --edge-factor 16 --seed 1 -o "$work/rmat18.txt"
step 4 "ingesting it with a 64 MiB budget"
"$sg" ingest "$work/rmat18.txt" -o "$work/rmat18" --memory 64M
step 5 "verifying every chunk"
"$sg" verify "$work/rmat18"
step 6 "describing it"
"$sg" info "$work/rmat18"
step 7 "PageRank, 10 iterations in 64 MiB (values in $work/rmat18.pagerank.txt)"
"$sg" run pagerank "$work/rmat18" --iterations 10 --memory 64M --output "$work/rmat18.pagerank.txt"
