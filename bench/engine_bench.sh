#!/usr/bin/env bash
# Engine benchmark: runs apps on an ingested graph and prints one JSON record
# per run (time, bytes read, requests, peak RSS, time split, and the scan
# throughput next to the device's sequential O_DIRECT read bandwidth measured
# with dd on the same files in the same session).
#   bench/engine_bench.sh GRAPH [MEMORY] [APP...]     (default apps: pagerank bfs wcc)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
graph=$1; mem=${2:-256M}; shift $(( $# >= 2 ? 2 : 1 ))
apps=("$@"); [ ${#apps[@]} -gt 0 ] || apps=(pagerank bfs wcc)
sg="$root/build/shardgraph"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# Sequential bandwidth of the device holding the graph's data (first space file).
data=$(python3 -c "import json,sys; m=json.load(open('$graph/manifest.json')); d=m['devices'][0]; print(('$graph' if d=='.' else d)+'/'+m['spaces'][0]['device_files'][0])")
dd_mbps=$(dd if="$data" of=/dev/null bs=4M iflag=direct 2>&1 | python3 -c "
import re,sys; t=sys.stdin.read(); m=re.search(r'(\d+) bytes.*copied, ([\d.]+) s', t); print(round(int(m.group(1))/float(m.group(2))/1e6,1))")

for app in "${apps[@]}"; do
  extra=(); [ "$app" = pagerank ] && extra=(--iterations 10)
  [ "$app" = sssp ] && extra=(--unit-weights)
  "$sg" run "$app" "$graph" --memory "$mem" "${extra[@]}" --stats "$tmp/$app.json" >/dev/null
  python3 - "$tmp/$app.json" "$dd_mbps" "$mem" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); steps = j["steps"]
scan = sum(s["seconds"] for s in steps)
rec = {"bench": "engine", "app": j["app"], "graph": j["graph"], "memory": sys.argv[3],
       "vertices": j["vertices"], "edges": j["edges"], "backend": j["io_backend"],
       "seconds": round(j["seconds"], 3), "steps": len(steps), "bytes_read": j["bytes_read"],
       "requests": j["requests"], "peak_rss_bytes": j["peak_rss_bytes"],
       "io_wait_seconds": round(sum(s["io_wait_seconds"] for s in steps), 3),
       "decode_cpu_seconds": round(sum(s["decode_seconds"] for s in steps), 3),
       "compute_cpu_seconds": round(sum(s["compute_seconds"] for s in steps), 3),
       "scan_mb_per_s": round(j["bytes_read"] / scan / 1e6, 1) if scan > 0 else 0,
       "device_dd_mb_per_s": float(sys.argv[2])}
rec["scan_to_device_ratio"] = round(rec["scan_mb_per_s"] / rec["device_dd_mb_per_s"], 3)
print(json.dumps(rec))
PY
done
