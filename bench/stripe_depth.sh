#!/usr/bin/env bash
# Full-scan PageRank throughput against device count and stripe depth on an
# emulated array (scripts/emulate_array.sh up 4 ... first). GRAPH must be
# ingested with its data on /mnt/sg-array/d0..; it is restriped for each
# case. One JSON record per case on stdout.
#   bench/stripe_depth.sh GRAPH "DEVICES:STRIPE ..." [MEMORY] [CGROUP_MB]
#   e.g. bench/stripe_depth.sh /var/tmp/g "1:auto 2:auto 4:auto 2:512K 4:512K 2:64M 4:64M"
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
graph=$1; cases=$2; mem=${3:-160M}; cgroup=${4:-192}
sg="$root/build/shardgraph"; array="$root/scripts/emulate_array.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for c in $cases; do
  n=${c%%:*}; stripe=${c#*:}
  devs=(); for ((i = 0; i < n; i++)); do devs+=(--device "/mnt/sg-array/d$i"); done
  "$sg" restripe "$graph" "${devs[@]}" --stripe-bytes "$stripe" >/dev/null
  "$array" run --mem "$cgroup" -- "$sg" run pagerank "$graph" --iterations 10 --memory "$mem" --no-cache \
    --stats "$tmp/run.json" >/dev/null 2>&1
  python3 - "$tmp/run.json" "$n" "$stripe" "$(python3 -c "import json; print(json.load(open('$graph/manifest.json'))['stripe_bytes'])")" <<'PY'
import json, sys
run = json.load(open(sys.argv[1])); n = int(sys.argv[2]); steps = run["steps"]
scan = sum(s["seconds"] for s in steps); per_device = [d["bytes"] for d in run["devices"]]
rate = run["bytes_read"] / scan / 1e6
print(json.dumps({"bench": "stripe_depth", "devices": n, "stripe": sys.argv[3], "stripe_bytes": int(sys.argv[4]),
                  "bytes_read": run["bytes_read"], "scan_seconds": round(scan, 3), "scan_mb_per_s": round(rate, 1),
                  "fraction_of_n_x_150": round(rate / (150 * n), 3), "device_bytes": per_device,
                  "device_bytes_spread": round((max(per_device) - min(per_device)) / max(per_device), 4),
                  "requests": run["requests"], "io_wait_seconds": round(sum(s["io_wait_seconds"] for s in steps), 3),
                  "cpu_seconds": round(sum(s["decode_seconds"] + s["compute_seconds"] for s in steps), 3),
                  "peak_rss_bytes": run["peak_rss_bytes"]}))
PY
done
