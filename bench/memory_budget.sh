#!/usr/bin/env bash
# Does a run stay inside --memory? Every app at each budget on GRAPH; one
# JSON record per run: peak RSS (VmHWM) / budget, the process's idle RSS,
# seconds, bytes read, cache bytes. A budget below the graph's minimum is
# recorded as refused (with the minimum shardgraph names).
#   bench/memory_budget.sh GRAPH "BUDGETS" ["APPS"]
# e.g. bench/memory_budget.sh /data/g21 "32M 64M 128M 256M"
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
graph=$1; budgets=$2; apps=${3:-pagerank pagerank-delta spmv bfs wcc sssp}
sg="$root/build/shardgraph"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
idle=$(SHARDGRAPH_REPORT_RSS=1 "$sg" --help | sed -n 's/^peak RSS \([0-9]*\) KiB$/\1/p')
for budget in $budgets; do
  for app in $apps; do
    extra=(); [ "$app" = sssp ] && extra=(--unit-weights)
    if "$sg" run "$app" "$graph" --memory "$budget" --stats "$tmp/run.json" "${extra[@]}" >/dev/null 2>"$tmp/err"; then
      python3 - "$tmp/run.json" "$budget" "$idle" <<'PY'
import json, sys
run = json.load(open(sys.argv[1])); idle = int(sys.argv[3]) * 1024
print(json.dumps({"bench": "memory-budget", "app": run["app"], "graph": run["graph"], "budget": sys.argv[2],
                  "memory_bytes": run["memory_bytes"], "peak_rss_bytes": run["peak_rss_bytes"], "idle_rss_bytes": idle,
                  "peak_over_budget": round(run["peak_rss_bytes"] / run["memory_bytes"], 3),
                  "peak_less_idle_over_budget": round((run["peak_rss_bytes"] - idle) / run["memory_bytes"], 3),
                  "seconds": round(run["seconds"], 3), "bytes_read": run["bytes_read"], "cache_bytes": run.get("cache_bytes", 0)}))
PY
    else
      python3 -c 'import json,sys; print(json.dumps({"bench": "memory-budget", "app": sys.argv[1], "budget": sys.argv[2], "refused": open(sys.argv[3]).read().strip()}))' "$app" "$budget" "$tmp/err"
    fi
  done
done
