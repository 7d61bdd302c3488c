#!/usr/bin/env bash
# WebGraph input: BVGraph decode rate (shardgraph scan, 1 and 2
# threads) against reading the same arcs as a gzip text dump, and ingest
# time from the .graph vs from the text dump (default order and --order
# none), for the BVGraph datasets in ../shared/datasets. One JSON record per
# measurement on stdout; the best of REPEAT runs (default 3).
#   bench/webgraph.sh [REPEAT]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
repeat=${1:-3}
sg="$root/build/shardgraph"
data="$root/../shared/datasets"
[ -d "$data" ] || { echo "webgraph.sh: $data not present; nothing to measure" >&2; exit 0; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
best_scan() {  # input threads
  for _ in $(seq "$repeat"); do "$sg" scan "$1" --threads "$2"; done |
    python3 -c 'import json,sys; r=[json.loads(l) for l in sys.stdin]; b=min(r,key=lambda x:x["seconds"]); b["bench"]="webgraph-scan"; b["runs"]=len(r); print(json.dumps(b))'
}
best_ingest() {  # input order
  for _ in $(seq "$repeat"); do
    rm -rf "$tmp/g"
    start=$(date +%s.%N)
    "$sg" ingest "$1" -o "$tmp/g" --order "$2" --memory 256M >/dev/null
    end=$(date +%s.%N)
    echo "$start $end"
  done | python3 -c '
import json, sys
input, order = sys.argv[1:3]
t = [float(b) - float(a) for a, b in (l.split() for l in sys.stdin)]
print(json.dumps({"bench": "webgraph-ingest", "input": input, "order": order, "wall_seconds": round(min(t), 3), "runs": len(t)}))' "$1" "$2"
}
for base in cnr-2000/cnr-2000 uk-2007-05-100000/uk-2007-05@100000 dblp-2010/dblp-2010; do
  for threads in 1 2; do
    best_scan "$data/$base.graph" "$threads"
    best_scan "$data/$base.arcs.tsv.gz" "$threads"
  done
  for order in auto none; do
    best_ingest "$data/$base.graph" "$order"
    best_ingest "$data/$base.arcs.tsv.gz" "$order"
  done
done
