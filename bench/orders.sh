#!/usr/bin/env bash
# Vertex orders compared: ingest INPUT once per order onto DATA_DIR (an
# emulated disk: ../shared/tools/emudisk.sh up ...), then run each app inside
# the emulator's throttle and memory cgroup. One JSON record per ingest and
# per run on stdout (seconds, bytes/edge, bytes read, requests, selective
# efficiency = active-list bytes / bytes read by selective push steps).
#   bench/orders.sh INPUT DATA_DIR MEMORY CGROUP_MB "ORDERS" "APPS" [INGEST_MEMORY]
# e.g. bench/orders.sh r22.bin32 /mnt/emudisk/d0 192M 256 "none bfds bfs degree" "bfs wcc pagerank"
# A device profile (shardgraph-device.json) in DATA_DIR is copied into each
# graph; otherwise the runs use the hdd preset.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
input=$1; data=$2; mem=$3; cgroup_mb=$4; orders=$5; apps=$6; ingest_mem=${7:-$3}
emudisk=${EMUDISK:-$root/../shared/tools/emudisk.sh}
sg="$root/build/shardgraph"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for order in $orders; do
  graph="$data/g-$order"
  rm -rf "$graph"
  line=$("$sg" ingest "$input" -o "$graph" --memory "$ingest_mem" --order "$order")
  [ -f "$data/shardgraph-device.json" ] && cp "$data/shardgraph-device.json" "$graph/"
  python3 - "$line" "$order" "$("$sg" info --json "$graph")" <<'PY'
import json, re, sys
line, order, info = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
print(json.dumps({"bench": "orders-ingest", "order": order, "seconds": float(re.search(r"sort batches, ([\d.]+) s", line).group(1)),
                  "bytes": info["bytes"], "bytes_per_edge": info["bytes_per_edge"], "summary": line}))
PY
  for app in $apps; do
    EMUDISK_JSON="$tmp/disk.json" "$emudisk" run --mem "$cgroup_mb" -- \
      "$sg" run "$app" "$graph" --memory "$mem" --stats "$tmp/run.json" >/dev/null 2>"$tmp/err" ||
      { cat "$tmp/err" >&2; exit 1; }
    python3 - "$tmp/run.json" "$order" "$cgroup_mb" <<'PY'
import json, sys
run = json.load(open(sys.argv[1])); steps = run["steps"]
sel = [s for s in steps if s["mode"] == "push" and s["selective_intervals"] > 0]
read = sum(s["bytes_read"] for s in sel)
useful = sum(min(s["useful_bytes"], s["bytes_read"]) for s in sel)
print(json.dumps({"bench": "orders-run", "order": sys.argv[2], "app": run["app"], "memory": run["memory_bytes"],
                  "cgroup_mb": int(sys.argv[3]), "seconds": round(run["seconds"], 3), "bytes_read": run["bytes_read"],
                  "requests": run["requests"], "peak_rss_bytes": run["peak_rss_bytes"],
                  "selective_efficiency": round(useful / read, 3) if read else None, "result": run["result"]}))
PY
  done
done
