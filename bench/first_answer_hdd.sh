#!/usr/bin/env bash
# Time to the first answer on an emulated disk: ingest, then BFS from SOURCE,
# for GridGraph (preprocess, then its bfs) and for each shardgraph build
# given, side by side in one run. Every process runs alone inside the disk
# emulator's throttle and a memory cgroup of CGROUP_MB (page cache dropped
# before each), with default options (shardgraph: --memory auto, the order
# and codec auto). One JSON record per system and round: ingest and BFS
# seconds, their sum, bytes read and written (the emulator's counts), and
# shardgraph's ingest phases.
#   bench/first_answer_hdd.sh EDGES VERTICES CGROUP_MB SOURCE [ROUNDS] [GG_BIN] [P] [WORKDIR]
# EDGES: a bin32 edge list on the emulated disk; GG_BIN: the bin/ directory
# of a GridGraph build made outside this repository ("" skips it); P its
# preprocess partitions. SG_BINS="name=path ..." runs several shardgraph
# builds (default: this tree's as "shardgraph"); those named in
# SG_NO_PROFILE run without the directory's stored device profile (moved
# aside and back), as on a disk never calibrated; SG_ARGS_NAME adds
# options to build NAME's ingest (SG_ARGS_degree="--order degree").
# WORKDIR defaults to the edge list's directory (the emulated disk).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
edges=$1; vertices=$2; cgroup_mb=$3; source=$4; rounds=${5:-1}; gg=${6:-}; parts=${7:-8}
work=${8:-$(dirname "$edges")}
emudisk=${EMUDISK:-$root/../shared/tools/emudisk.sh}
bins=${SG_BINS:-shardgraph=$root/build/shardgraph}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# Runs a command in the emulator; its wall seconds to $tmp/secs, the disk's
# counts to $tmp/NAME.json, its output to $tmp/NAME.out.
timed() {  # name command...
  local name=$1; shift
  local start end
  start=$(date +%s.%N)
  EMUDISK_JSON="$tmp/$name.json" "$emudisk" run --mem "$cgroup_mb" -- "$@" >"$tmp/$name.out" 2>&1 ||
    { cat "$tmp/$name.out" >&2; exit 1; }
  end=$(date +%s.%N)
  python3 -c "print(round($end - $start, 3))" >"$tmp/secs"
}
record() {  # system ingest_seconds bfs_seconds
  python3 - "$1" "$2" "$3" "$tmp" "$cgroup_mb" "$round" "$(basename "$edges")" <<'PY'
import json, re, sys
system, ingest, bfs, tmp, cgroup, rnd, edges = sys.argv[1:8]
def disk(name):
    d = json.load(open(f"{tmp}/{name}.json"))
    total = d["total"]
    return {"read_bytes": total["cg_read_bytes"], "written_bytes": total["cg_write_bytes"],
            "read_ios": total["cg_read_ios"], "peak_bytes": d["mem_max_usage_bytes"]}
out = open(f"{tmp}/ingest.out").read()
phases = re.search(r", [0-9.]+ s \((.*)\), peak RSS", out)
print(json.dumps({"bench": "first-answer-hdd", "system": system, "input": edges, "cgroup_mb": int(cgroup),
                  "round": int(rnd), "ingest_seconds": float(ingest), "bfs_seconds": float(bfs),
                  "first_answer_seconds": round(float(ingest) + float(bfs), 3),
                  "ingest_disk": disk("ingest"), "bfs_disk": disk("bfs"),
                  "phases": phases.group(1) if phases else ""}))
PY
}
for round in $(seq 1 "$rounds"); do
  if [ -n "$gg" ]; then
    rm -rf "$work/gg-grid"
    timed ingest "$gg/preprocess" -i "$edges" -o "$work/gg-grid" -v "$vertices" -p "$parts" -t 0
    ingest=$(cat "$tmp/secs")
    timed bfs "$gg/bfs" "$work/gg-grid" "$source" 1
    record "gridgraph P=$parts" "$ingest" "$(cat "$tmp/secs")"
    rm -rf "$work/gg-grid"
  fi
  for pair in $bins; do
    name=${pair%%=*}; bin=${pair#*=}
    rm -rf "$work/sg-graph"
    aside=0
    if [[ " ${SG_NO_PROFILE:-} " == *" $name "* ]] && [ -f "$work/shardgraph-device.json" ]; then
      mv "$work/shardgraph-device.json" "$tmp/profile.json"; aside=1
    fi
    args_var="SG_ARGS_$name"
    # shellcheck disable=SC2086  # the options split into words
    timed ingest "$bin" ingest "$edges" -o "$work/sg-graph" ${!args_var:-}
    [ $aside = 1 ] && mv "$tmp/profile.json" "$work/shardgraph-device.json"
    ingest=$(cat "$tmp/secs")
    timed bfs "$bin" run bfs "$work/sg-graph" --source "$source"
    record "$name" "$ingest" "$(cat "$tmp/secs")"
    rm -rf "$work/sg-graph"
  done
done
