#!/usr/bin/env bash
# Sets everything up and runs the main job on a built-in default: generate an
# R-MAT graph (scale 18, 4M edges), ingest it out of core with a 64 MiB
# budget, verify and describe it, then run PageRank (10 iterations, 64 MiB)
# and print the top 10 vertices. Output goes to ./quickstart/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh" "$root/build" >/dev/null
sg="$root/build/shardgraph"
work=${QUICKSTART_DIR:-$PWD/quickstart}
mkdir -p "$work"
rm -rf "$work/rmat18"
[ -f "$work/rmat18.txt" ] || "$sg" generate rmat --scale 18 --edge-factor 16 --seed 1 -o "$work/rmat18.txt"
"$sg" ingest "$work/rmat18.txt" -o "$work/rmat18" --memory 64M
"$sg" verify "$work/rmat18"
"$sg" info "$work/rmat18"
"$sg" run pagerank "$work/rmat18" --iterations 10 --memory 64M --output "$work/rmat18.pagerank.txt"
