#!/usr/bin/env bash
# The kernels added for Graphalytics and GBBS users on a stored
# graph, each run inside the disk emulator's memory cgroup with the default
# budget: cdlp (10 iterations), lcc, kcore and betweenness from the hub; then
# lcc at each --memory of LCC_BUDGETS (cgroup 1.25x the budget) for its I/O
# volume against the budget. One JSON record per run on stdout (wall
# seconds, bytes read from --stats (graph, and scratch files the app
# spilled), the app's summary).
#   bench/graphalytics.sh GRAPH CGROUP_MB [LCC_BUDGETS...]
# GRAPH: a graph directory on the emulated disk (emudisk.sh up ...).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
graph=$1; cgroup_mb=$2; shift 2
emudisk=${EMUDISK:-$root/../shared/tools/emudisk.sh}
sg="$root/build/shardgraph"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
timed() {  # cgroup_mb memory app args...
  local cgroup=$1 memory=$2 app=$3; shift 3
  local start end
  start=$(date +%s.%N)
  "$emudisk" run --mem "$cgroup" -- "$sg" run "$app" "$graph" --memory "$memory" --stats "$tmp/stats.json" "$@" >"$tmp/out" 2>&1 ||
    { cat "$tmp/out" >&2; exit 1; }
  end=$(date +%s.%N)
  python3 - "$app" "$cgroup" "$memory" "$start" "$end" "$tmp/stats.json" "$tmp/out" <<'PY'
import json, sys
app, cgroup, memory, start, end, stats, out = sys.argv[1:8]
s = json.load(open(stats))
lines = [l for l in open(out) if not l.startswith("shardgraph:")]
print(json.dumps({"bench": "graphalytics", "app": app, "cgroup_mb": int(cgroup), "memory": memory,
                  "wall_seconds": round(float(end) - float(start), 3), "bytes_read": s["bytes_read"], "seconds": s["seconds"],
                  "scratch_bytes_read": s.get("scratch_bytes_read", 0),
                  "scratch_bytes_written": s.get("scratch_bytes_written", 0), "peak_rss_bytes": s["peak_rss_bytes"], "memory_bytes": s["memory_bytes"],
                  "summary": lines[0].strip() if lines else ""}), flush=True)
PY
}
timed "$cgroup_mb" auto cdlp --iterations 10
timed "$cgroup_mb" auto lcc
timed "$cgroup_mb" auto kcore
timed "$cgroup_mb" auto betweenness
for budget in "$@"; do
  mb=$(numfmt --from=iec "$budget")
  timed $((mb * 5 / 4 / 1048576)) "$budget" lcc
done
