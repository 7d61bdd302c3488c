#!/usr/bin/env bash
# Full-scan PageRank read rate (10 iterations, --io full --no-cache) of
# several builds side by side on emulated disks, the cases alternating
# round by round. One JSON record per run: bytes read over the steps'
# seconds (scan MB/s) and over the whole run, requests, I/O wait, bytes
# per device.
#   bench/full_scan_rate.sh "NAME=BINARY:GRAPH ..." MEMORY CGROUP_MB ROUNDS
# e.g. bench/full_scan_rate.sh "old=/tmp/sg-old:/data/g-old new=build/shardgraph:/data/g-new" 96M 256 5
set -euo pipefail
cases=$1; mem=$2; cgroup=$3; rounds=$4
emudisk=${EMUDISK:-$(cd "$(dirname "$0")/../.." && pwd)/shared/tools/emudisk.sh}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for round in $(seq 1 "$rounds"); do
  for c in $cases; do
    name=${c%%=*}; rest=${c#*=}; bin=${rest%%:*}; graph=${rest#*:}
    "$emudisk" run --mem "$cgroup" -- "$bin" run pagerank "$graph" --iterations 10 --io full --no-cache \
      --memory "$mem" --stats "$tmp/run.json" >/dev/null 2>&1
    python3 - "$tmp/run.json" "$name" "$round" "$mem" <<'PY'
import json, sys
run = json.load(open(sys.argv[1])); scan = sum(s["seconds"] for s in run["steps"])
print(json.dumps({"bench": "full-scan-rate", "case": sys.argv[2], "round": int(sys.argv[3]), "memory": sys.argv[4],
                  "graph": run["graph"], "bytes_read": run["bytes_read"], "requests": run["requests"],
                  "seconds": round(run["seconds"], 3), "scan_seconds": round(scan, 3),
                  "scan_mb_per_s": round(run["bytes_read"] / scan / 1e6, 1),
                  "run_mb_per_s": round(run["bytes_read"] / run["seconds"] / 1e6, 1),
                  "io_wait_seconds": round(run["io_wait_seconds"], 3), "device_bytes": [d["bytes"] for d in run["devices"]]}))
PY
  done
done
