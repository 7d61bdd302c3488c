#!/usr/bin/env bash
# Ingests and verifies every graph of ../shared/datasets (skips when absent);
# prints one JSON record per dataset.
#   bench/datasets.sh [WORKDIR] [MEMORY] [ORDERS]   (ORDERS default "bfds none")
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
data="$root/../shared/datasets"
work=${1:-$(mktemp -d)}; mem=${2:-64M}; orders=${3:-bfds none}
sg="$root/build/shardgraph"
mkdir -p "$work"
[ -d "$data" ] || { echo "no datasets at $data; skipped" >&2; exit 0; }
# bench/datasets.list: name|file|ingest options
while IFS='|' read -r name file opts; do
  [ -f "$data/$name/$file" ] || { echo "missing $name/$file; skipped" >&2; continue; }
  for order in $orders; do
  rm -rf "$work/$name"
  # shellcheck disable=SC2086
  line=$("$sg" ingest "$data/$name/$file" -o "$work/$name" --memory "$mem" --order "$order" $opts)
  "$sg" verify "$work/$name" >/dev/null
  python3 - "$name" "$opts" "$line" "$("$sg" info --json "$work/$name")" "$order" <<'PY'
import json, re, sys
name, opts, line, info, order = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4]), sys.argv[5]
print(json.dumps({"bench": "dataset-ingest", "dataset": name, "options": opts.strip(), "order": order,
                  "vertices": info["vertices"], "edges": info["edges"], "directed": info["directed"],
                  "bytes_per_edge": round(info["bytes_per_edge"], 3),
                  "seconds": float(re.search(r"sort batches, ([\d.]+) s", line).group(1)), "verified": True}))
PY
  done
done < <(grep -v '^#' "$root/bench/datasets.list")
