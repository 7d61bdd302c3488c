#!/usr/bin/env bash
# A/B of two builds on the longest traversal a graph of its size asks for:
# a directed path 0 -> 1 -> ... -> N-1 (N levels, a step each). Per build,
# alternating in every round: the default ingest (bfds order: N levels),
# BFS from vertex 0 without and with --stats, and k-core (peeling a path
# takes N/2 rounds); and the default ingest of a shuffled SIDE x SIDE grid
# (`generate grid`: about 2 x SIDE levels, each spread over every id).
# Wall time and peak RSS of each whole process, one JSON
# record a run, then the medians per task and NEW/OLD. The two builds'
# outputs are compared once (cmp).
#   bench/long_paths.sh OLD_BIN NEW_BIN [VERTICES] [ROUNDS] [SIDE]
set -euo pipefail
old=$1; new=$2; vertices=${3:-200000}; rounds=${4:-3}; side_length=${5:-1000}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
records="$tmp/records.jsonl"
awk -v n="$vertices" 'BEGIN { for (v = 0; v + 1 < n; ++v) print v, v + 1 }' > "$tmp/path.txt"
"$new" generate grid --rows "$side_length" --cols "$side_length" --seed 5 -o "$tmp/grid.txt" > /dev/null

# measure SIDE TASK ROUND command...: wall seconds and peak RSS of the command
measure() {
  local side=$1 task=$2 round=$3
  shift 3
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" > /dev/null 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  read -r seconds rss_kib < "$tmp/time"
  printf '{"bench":"long-paths","side":"%s","task":"%s","round":%d,"vertices":%d,"seconds":%s,"peak_rss_kib":%d}\n' \
    "$side" "$task" "$round" "$vertices" "$seconds" "$rss_kib" | tee -a "$records"
}

for side in old new; do
  bin=$old; [ $side = new ] && bin=$new
  "$bin" ingest "$tmp/path.txt" -o "$tmp/$side.g" > /dev/null 2>&1
  "$bin" run bfs "$tmp/$side.g" --source 0 --output "$tmp/$side.bfs" > /dev/null 2>&1
done
cmp "$tmp/old.bfs" "$tmp/new.bfs" || { echo "long_paths: BFS outputs differ" >&2; exit 1; }
for round in $(seq 1 "$rounds"); do
  for side in old new; do
    bin=$old; [ $side = new ] && bin=$new
    rm -rf "$tmp/g"
    measure "$side" ingest "$round" "$bin" ingest "$tmp/path.txt" -o "$tmp/g"
    measure "$side" bfs "$round" "$bin" run bfs "$tmp/g" --source 0
    measure "$side" bfs-stats "$round" "$bin" run bfs "$tmp/g" --source 0 --stats "$tmp/s.json"
    measure "$side" kcore "$round" "$bin" run kcore "$tmp/g"
    rm -rf "$tmp/grid"
    measure "$side" ingest-grid "$round" "$bin" ingest "$tmp/grid.txt" -o "$tmp/grid"
  done
done
python3 - "$records" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
for task in dict.fromkeys(r["task"] for r in rows):
    med = {s: statistics.median(r["seconds"] for r in rows if r["task"] == task and r["side"] == s) for s in ("old", "new")}
    rss = {s: max(r["peak_rss_kib"] for r in rows if r["task"] == task and r["side"] == s) for s in ("old", "new")}
    print(json.dumps({"bench": "long-paths-summary", "task": task, "old_seconds": med["old"], "new_seconds": med["new"],
                      "new_over_old": round(med["new"] / med["old"], 3), "old_peak_rss_kib": rss["old"],
                      "new_peak_rss_kib": rss["new"]}))
PY
