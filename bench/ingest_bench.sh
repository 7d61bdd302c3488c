#!/usr/bin/env bash
# Ingest benchmark: generate R-MAT (text and bin32), ingest each with a memory
# budget, verify, and print one JSON record per input on stdout.
#   bench/ingest_bench.sh [SCALE] [EDGE_FACTOR] [MEMORY] [WORKDIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
scale=${1:-20}; ef=${2:-16}; mem=${3:-64M}; work=${4:-$(mktemp -d)}
sg="$root/build/shardgraph"
mkdir -p "$work"
for ext in txt bin32; do
  edges="$work/rmat$scale.$ext"
  [ -f "$edges" ] || "$sg" generate rmat --scale "$scale" --edge-factor "$ef" --seed 1 -o "$edges"
  rm -rf "$work/g-$ext"
  line=$("$sg" ingest "$edges" -o "$work/g-$ext" --memory "$mem")
  "$sg" verify "$work/g-$ext" >/dev/null
  python3 - "$line" "$edges" "$mem" "$("$sg" info --json "$work/g-$ext")" <<'PY'
import json, os, re, sys
line, path, mem, info = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
secs = float(re.search(r"([\d.]+) s,", line).group(1))
rss = int(re.search(r"peak RSS (\d+) KiB", line).group(1)) * 1024
print(json.dumps({"bench": "ingest", "input": os.path.basename(path), "input_bytes": os.path.getsize(path),
                  "memory": mem, "vertices": info["vertices"], "edges": info["edges"],
                  "seconds": secs, "edges_per_second": info["edges"] / secs, "peak_rss_bytes": rss,
                  "sorted_runs": info["sorted_runs"], "bytes": info["bytes"],
                  "bytes_per_edge": info["bytes_per_edge"]}))
PY
done
