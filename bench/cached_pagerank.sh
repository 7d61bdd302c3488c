#!/usr/bin/env bash
# In-memory PageRank throughput: a budget larger than the graph, so only the
# first iteration reads the disk. Runs each graph with the decoded-window
# cache and with compressed chunks only (--no-decoded-cache), interleaved,
# REPEATS times; one JSON record per run with edges/s per iteration after
# the first (edge_map alone and the whole iteration incl. vertex passes).
#   bench/cached_pagerank.sh "GRAPH..." [MEMORY] [THREADS] [REPEATS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
graphs=$1; mem=${2:-2G}; threads=${3:-2}; repeats=${4:-3}
sg="$root/build/shardgraph"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for ((r = 0; r < repeats; r++)); do
  for graph in $graphs; do
    for cache in decoded compressed; do
      flags=(); [ "$cache" = compressed ] && flags=(--no-decoded-cache)
      "$sg" run pagerank "$graph" --iterations 10 --memory "$mem" --threads "$threads" "${flags[@]}" \
        --stats "$tmp/run.json" >/dev/null 2>&1
      python3 - "$tmp/run.json" "$cache" "$threads" "$r" <<'PY'
import json, statistics, sys
run = json.load(open(sys.argv[1])); edges = run["edges"]
later = run["steps"][1:]; iterations = run["iteration_seconds"][1:]
print(json.dumps({"bench": "cached_pagerank", "graph": run["graph"], "cache": sys.argv[2], "threads": int(sys.argv[3]),
                  "repeat": int(sys.argv[4]), "edges": edges, "first_iteration_bytes_read": run["steps"][0]["bytes_read"],
                  "later_bytes_read": sum(s["bytes_read"] for s in later),
                  "decoded_cache_bytes": run["decoded_cache_bytes"], "cache_bytes": run["cache_bytes"],
                  "edge_map_edges_per_s": [round(edges / s["seconds"]) for s in later],
                  "iteration_edges_per_s": [round(edges / t) for t in iterations],
                  "median_edge_map_edges_per_s": round(statistics.median(edges / s["seconds"] for s in later)),
                  "median_iteration_edges_per_s": round(statistics.median(edges / t for t in iterations)),
                  "peak_rss_bytes": run["peak_rss_bytes"]}))
PY
    done
  done
done
