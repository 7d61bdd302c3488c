#!/usr/bin/env bash
# Ingest side by side with GridGraph's preprocess, in one run, on the same
# bin32 edge list: for each round, GridGraph (P given), then shardgraph with
# each order. One JSON record per run on stdout: wall seconds, user and
# system CPU seconds and peak RSS (VmHWM), from GNU time, and bytes on disk.
#   bench/ingest_vs_gridgraph.sh EDGES.bin32 VERTICES MEMORY [ROUNDS] [GRIDGRAPH_BIN] [P] [ORDERS] [WORKDIR]
# GRIDGRAPH_BIN: the bin/ directory of a GridGraph build made outside this
# repository (never commit its code); "" skips it. ORDERS default "none bfds".
# SG_BIN runs another shardgraph build (an older commit, side by side),
# recorded under the name SG_NAME (default shardgraph); SG_BINS="NAME=BIN
# ..." runs several, each in every round (alternating).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
edges=$1; vertices=$2; mem=$3; rounds=${4:-3}; gg=${5:-}; parts=${6:-8}
orders=${7:-none bfds}; work=${8:-$(dirname "$edges")}
builds=${SG_BINS:-${SG_NAME:-shardgraph}=${SG_BIN:-$root/build/shardgraph}}
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (apt-get install time)" >&2; exit 2; }
record() {  # name order seconds rss_kib bytes [phases_json]; user and sys from $user $sys
  printf '{"bench":"ingest-vs-gridgraph","system":"%s","order":"%s","input":"%s","memory":"%s","seconds":%s,"user_seconds":%s,"sys_seconds":%s,"peak_rss_bytes":%s,"bytes":%s,"round":%s,"phases":%s}\n' \
    "$1" "$2" "$(basename "$edges")" "$mem" "$3" "$user" "$sys" "$(($4 * 1024))" "$5" "$round" "${6:-{\}}"
}
# Seconds per phase, as {"unordered route": 1.93, ...}: how the time
# splits against GridGraph's.
phases() { python3 "$root/bench/ingest_phases.py" < "$1"; }
for round in $(seq 1 "$rounds"); do
  if [ -n "$gg" ]; then
    rm -rf "$work/gg-grid"
    /usr/bin/time -f "%e %M %U %S" -o "$work/time.txt" "$gg/preprocess" -i "$edges" -o "$work/gg-grid" -v "$vertices" -p "$parts" -t 0 >/dev/null
    read -r secs rss user sys < "$work/time.txt"
    record gridgraph "P=$parts" "$secs" "$rss" "$(du -sb "$work/gg-grid" | cut -f1)"
    rm -rf "$work/gg-grid"
  fi
  for order in $orders; do
    for build in $builds; do
      sg_name=${build%%=*}; sg=${build#*=}
      rm -rf "$work/sg-graph"
      /usr/bin/time -f "%e %M %U %S" -o "$work/time.txt" "$sg" ingest "$edges" -o "$work/sg-graph" --memory "$mem" --order "$order" >"$work/sg.txt"
      read -r secs rss user sys < "$work/time.txt"
      echo "# $(cat "$work/sg.txt")" >&2
      record "$sg_name" "$order" "$secs" "$rss" "$(du -sb "$work/sg-graph" | cut -f1)" "$(phases "$work/sg.txt")"
      rm -rf "$work/sg-graph"
    done
  done
done
rm -f "$work/time.txt" "$work/sg.txt"
