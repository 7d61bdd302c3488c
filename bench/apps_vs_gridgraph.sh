#!/usr/bin/env bash
# PageRank (10 iterations), BFS and WCC side by side with GridGraph, each run
# inside the disk emulator's throttle and memory cgroup (page cache dropped
# before every run). shardgraph runs with its default --memory (auto: from
# the cgroup limit) unless MEMORY is given. One JSON record per run.
#   bench/apps_vs_gridgraph.sh GRAPH GG_GRID GG_BIN CGROUP_MB SOURCE [MEMORY] [ROUNDS]
# GG_GRID: a GridGraph grid made by its preprocess outside this repository
# ("" skips GridGraph); GG_BIN its bin/ directory; SOURCE the BFS source
# (an original id; GridGraph takes the same id: R-MAT ids are dense).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
graph=$1; grid=$2; gg=$3; cgroup_mb=$4; source=$5; mem=${6:-auto}; rounds=${7:-1}
emudisk=${EMUDISK:-$root/../shared/tools/emudisk.sh}
sg="$root/build/shardgraph"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
timed() {  # system app command...
  local system=$1 app=$2; shift 2
  local start end
  start=$(date +%s.%N)
  EMUDISK_JSON="$tmp/disk.json" "$emudisk" run --mem "$cgroup_mb" -- "$@" >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; exit 1; }
  end=$(date +%s.%N)
  python3 - "$system" "$app" "$start" "$end" "$tmp/disk.json" "$cgroup_mb" "$mem" "$round" <<'PY'
import json, sys
system, app, start, end, disk, cgroup, mem, rnd = sys.argv[1:9]
d = json.load(open(disk))
print(json.dumps({"bench": "apps-vs-gridgraph", "system": system, "app": app, "wall_seconds": round(float(end) - float(start), 3),
                  "cgroup_mb": int(cgroup), "memory": mem if system == "shardgraph" else "1G", "round": int(rnd), "disk": d}))
PY
}
for round in $(seq 1 "$rounds"); do
  for app in pagerank bfs wcc; do
    if [ -n "$grid" ]; then
      case $app in
        pagerank) timed gridgraph pagerank "$gg/pagerank" "$grid" 10 1 ;;
        bfs) timed gridgraph bfs "$gg/bfs" "$grid" "$source" 1 ;;
        wcc) timed gridgraph wcc "$gg/wcc" "$grid" 1 ;;
      esac
    fi
    case $app in
      pagerank) timed shardgraph pagerank "$sg" run pagerank "$graph" --iterations 10 --memory "$mem" ;;
      bfs) timed shardgraph bfs "$sg" run bfs "$graph" --source "$source" --memory "$mem" ;;
      wcc) timed shardgraph wcc "$sg" run wcc "$graph" --memory "$mem" ;;
    esac
  done
done
