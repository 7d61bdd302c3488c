#!/usr/bin/env bash
# Vertex state beyond memory: for each R-MAT scale, generate the
# edge list (kept if present), ingest it with shardgraph and preprocess it
# with GridGraph (P=16) inside the disk emulator's cgroup, then run
# PageRank (10 iterations), BFS from the hub and WCC on both, side by side.
# One JSON record per run on stdout (wall seconds, bytes read); the graphs
# are deleted after each scale.
#   bench/vertex_state.sh WORKDIR GG_BIN CGROUP_MB SCALE...
# WORKDIR: on the emulated disk (emudisk.sh up ...); GG_BIN: the bin/
# directory of a GridGraph build made outside this repository ("" skips it).
# INPUT_DIR (default WORKDIR) holds the edge lists; INGEST_DIR, when set,
# is where shardgraph ingests (its sort spill needs ~16 bytes an edge: R-MAT
# 26 does not fit a 16 GiB emulated disk), and the graph is then moved to
# WORKDIR, so the runs still read it from the emulated disk.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$1; gg=$2; cgroup_mb=$3; shift 3
emudisk=${EMUDISK:-$root/../shared/tools/emudisk.sh}
sg="$root/build/shardgraph"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
timed() {  # scale system task command...
  local scale=$1 system=$2 task=$3; shift 3
  local start end
  start=$(date +%s.%N)
  EMUDISK_JSON="$tmp/disk.json" "$emudisk" run --mem "$cgroup_mb" -- "$@" >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; exit 1; }
  end=$(date +%s.%N)
  grep -E '^(ingested|bfs from|wcc:|pagerank:)' "$tmp/out" | sed 's/^/# /' >&2 || true
  python3 - "$scale" "$system" "$task" "$start" "$end" "$tmp/disk.json" "$cgroup_mb" <<'PY'
import json, sys
scale, system, task, start, end, disk, cgroup = sys.argv[1:8]
d = json.load(open(disk))
print(json.dumps({"bench": "vertex-state", "scale": int(scale), "edges": 16 << int(scale), "system": system, "task": task,
                  "wall_seconds": round(float(end) - float(start), 3), "cgroup_mb": int(cgroup), "disk": d}), flush=True)
PY
}
for scale in "$@"; do
  edges="${INPUT_DIR:-$work}/r$scale.bin32"
  [ -f "$edges" ] || "$sg" generate rmat --scale "$scale" --edge-factor 16 --seed 1 -o "$edges" >/dev/null
  rm -rf "$work/sg$scale" "$work/gg$scale"
  if [ -n "${INGEST_DIR:-}" ]; then
    rm -rf "$INGEST_DIR/sg$scale"
    timed "$scale" shardgraph ingest "$sg" ingest "$edges" -o "$INGEST_DIR/sg$scale"
    cp -r "$INGEST_DIR/sg$scale" "$work/sg$scale" && sync && rm -rf "$INGEST_DIR/sg$scale"
  else
    timed "$scale" shardgraph ingest "$sg" ingest "$edges" -o "$work/sg$scale"
  fi
  source=$("$sg" run bfs "$work/sg$scale" --iterations 1 2>/dev/null | sed -n 's/^bfs from \([0-9]*\):.*/\1/p')
  if [ -n "$gg" ]; then
    timed "$scale" gridgraph ingest "$gg/preprocess" -i "$edges" -o "$work/gg$scale" -v $((1 << scale)) -p 16 -t 0
    timed "$scale" gridgraph pagerank "$gg/pagerank" "$work/gg$scale" 10 1
    timed "$scale" gridgraph bfs "$gg/bfs" "$work/gg$scale" "$source" 1
    timed "$scale" gridgraph wcc "$gg/wcc" "$work/gg$scale" 1
  fi
  timed "$scale" shardgraph pagerank "$sg" run pagerank "$work/sg$scale" --iterations 10
  timed "$scale" shardgraph bfs "$sg" run bfs "$work/sg$scale" --source "$source"
  timed "$scale" shardgraph wcc "$sg" run wcc "$work/sg$scale"
  rm -rf "$work/sg$scale" "$work/gg$scale"
done
