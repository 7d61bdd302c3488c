#!/usr/bin/env bash
# Python's overhead against the command line: PageRank (10 iterations) on
# the same stored graph, each side in turn for every round, all from the
# package's virtual environment:
#   cli              shardgraph run pagerank (no --output)
#   python-none      g.pagerank(results="none"): the same work, no per-vertex values
#   cli-output       shardgraph run pagerank --output FILE (every rank as text)
#   python-results   g.pagerank(): every rank as NumPy arrays (the default "auto")
# Wall time counts the process from start to exit (Python's start and
# imports included). One JSON record a run, then the medians, python-none
# over cli and python-results over cli-output.
#   bench/python_overhead.sh VENV GRAPH [ROUNDS] [MEMORY]
set -euo pipefail
venv=$1; graph=$2; rounds=${3:-5}; memory=${4:-256M}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
records="$tmp/records.jsonl"
python_run='import sys, shardgraph as sg
r = sg.open(sys.argv[1]).pagerank(iterations=10, memory=sys.argv[2], stats=sys.argv[3], results=sys.argv[4],
                                  progress=False)
assert sys.argv[4] == "none" or len(r.to_numpy()) == r.stats["vertices"]'
for round in $(seq 1 "$rounds"); do
  for side in cli python-none cli-output python-results; do
    start=$(date +%s.%N)
    case $side in
      cli) "$venv/bin/shardgraph" run pagerank "$graph" --iterations 10 --memory "$memory" \
             --stats "$tmp/stats.json" >/dev/null 2>&1 ;;
      cli-output) "$venv/bin/shardgraph" run pagerank "$graph" --iterations 10 --memory "$memory" \
                    --stats "$tmp/stats.json" --output "$tmp/ranks.txt" >/dev/null 2>&1 ;;
      python-none) "$venv/bin/python" -c "$python_run" "$graph" "$memory" "$tmp/stats.json" none ;;
      python-results) "$venv/bin/python" -c "$python_run" "$graph" "$memory" "$tmp/stats.json" auto ;;
    esac
    end=$(date +%s.%N)
    rm -f "$tmp/ranks.txt"
    python3 - "$side" "$start" "$end" "$tmp/stats.json" "$round" <<'PY' | tee -a "$records"
import json, sys
side, start, end, stats, rnd = sys.argv[1:6]
j = json.load(open(stats))
print(json.dumps({"bench": "python-overhead", "side": side, "app": "pagerank", "iterations": 10, "graph": j["graph"],
                  "edges": j["edges"], "wall_seconds": round(float(end) - float(start), 3),
                  "run_seconds": round(j["seconds"], 3), "bytes_read": j["bytes_read"],
                  "memory_bytes": j["memory_bytes"], "peak_rss_bytes": j["peak_rss_bytes"], "round": int(rnd)}))
PY
  done
done
python3 - "$records" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
sides = ("cli", "python-none", "cli-output", "python-results")
wall = {s: statistics.median(r["wall_seconds"] for r in runs if r["side"] == s) for s in sides}
run = {s: statistics.median(r["run_seconds"] for r in runs if r["side"] == s) for s in sides}
print(json.dumps({"bench": "python-overhead-summary", "app": "pagerank", "graph": runs[0]["graph"],
                  "rounds": len(runs) // len(sides), "median_wall_seconds": wall, "median_run_seconds": run,
                  "python_none_over_cli_wall": round(wall["python-none"] / wall["cli"], 4),
                  "python_none_over_cli_run": round(run["python-none"] / run["cli"], 4),
                  "python_results_over_cli_output_wall": round(wall["python-results"] / wall["cli-output"], 4)}))
PY
