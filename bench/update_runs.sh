#!/usr/bin/env bash
# Runs on a changed graph against the same graph compacted, on one emulated
# HDD (../shared/tools/emudisk.sh) and from the page cache. GRAPH, ingested
# onto the disk (DISK_DIR) in its order, takes UPDATES updates that together
# add SHARE of its edges (uniform random pairs of its ids, which must be a permutation of
# 0..n-1, so no update adds a vertex; NEW_VERTEX_SHARE=x draws them below
# n(1 + x) instead, so updates add about x n vertices); a second copy is
# then compacted.
# PageRank (10 iterations), BFS and WCC run on both, alternating, ROUNDS
# times: inside the disk throttle and a CGROUP_MB memory cgroup with the
# page cache dropped (--memory 3/4 of it), then outside it with the graph
# cached and --memory CACHE_MEMORY (default 4G: the CPU cost alone). Each
# pair's outputs must agree: byte for byte, but PageRank's within 1e-6
# (lists split at other places sum in another order). The compaction is
# timed too. One JSON line a measurement. NO_OUTPUT=1 times the runs without
# --output (writing 4 M lines dilutes the ratios) and compares nothing.
#   bench/update_runs.sh BIN GRAPH DISK_DIR [CGROUP_MB] [UPDATES] [SHARE] [ROUNDS]
set -euo pipefail
bin=$1; graph=$2; disk=$3; cgroup_mb=${4:-256}; updates=${5:-50}; share=${6:-0.05}; rounds=${7:-2}
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/update_lib.sh"
emudisk=${EMUDISK:-$root/../shared/tools/emudisk.sh}
memory=$((cgroup_mb * 3 / 4))M; cache_memory=${CACHE_MEMORY:-4G}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$graph/manifest.json" "$1"; }
vertices=$(field num_vertices); edges=$(field num_edges)
per_update=$(python3 -c "print(int($edges * $share / $updates))")
new_share=${NEW_VERTEX_SHARE:-0}
update_files "$tmp" "$(python3 -c "print(int($vertices * (1 + $new_share)))")" "$per_update" "$updates"
changed=$disk/runs-changed; compacted=$disk/runs-compacted
rm -rf "$changed" "$compacted"
# The base as a user of this disk has it: ingested onto it (its codec,
# chunk size and device profile follow the disk, as the compacted copy's
# do). A copied graph would keep the disk it was ingested for.
"$emudisk" run --mem "$cgroup_mb" -- "$bin" ingest "$graph" --format graph --order none --output "$changed" \
  --memory "$memory" >"$tmp/ingest.log" 2>&1 || { cat "$tmp/ingest.log" >&2; exit 1; }
update_start=$(date +%s.%N)
for i in $(seq 0 $((updates - 1))); do
  "$bin" update "$changed" --add "$tmp/u$i.bin32" --no-compact >"$tmp/update.log"
done
update_seconds=$(python3 -c "print($(date +%s.%N) - $update_start)")
tiers=$(grep -o 'in [0-9]* tier' "$tmp/update.log" | grep -o '[0-9]*' || echo "")
cp -r "$changed" "$compacted"
json() {  # what, graph, seconds, extra json
  python3 -c "import json,sys; d={'bench':'update_runs','what':sys.argv[1],'graph':sys.argv[2],'seconds':round(float(sys.argv[3]),3),'updates':$updates,'share':$share,'cgroup_mib':$cgroup_mb,'memory':'$memory','new_vertex_share':$new_share}; d.update(json.loads(sys.argv[4])); print(json.dumps(d))" "$@"
}
json "updates" "$(basename "$graph")" "$update_seconds" "{\"tiers\": \"${tiers:-untiered}\"}"
s=$(timed "$tmp/compact.log" "$emudisk" run --mem "$cgroup_mb" -- "$bin" compact "$compacted" --memory "$memory")
json "compact" "$(basename "$graph")" "$s" '{}'
apps=("pagerank --iterations 10" "bfs" "wcc")
for round in $(seq 1 "$rounds"); do
  for app in "${apps[@]}"; do
    for where in hdd cache; do
      for g in changed compacted; do
        dir=$disk/runs-$g
        output=(--output "$tmp/$g.out"); [ -n "${NO_OUTPUT:-}" ] && output=()
        if [ "$where" = hdd ]; then
          cmd=("$emudisk" run --mem "$cgroup_mb" -- "$bin" run $app "$dir" --memory "$memory" "${output[@]}")
        else
          "$bin" run $app "$dir" --memory "$cache_memory" >/dev/null 2>&1  # warm the page cache
          cmd=("$bin" run $app "$dir" --memory "$cache_memory" "${output[@]}")
        fi
        s=$(timed "$tmp/run.log" "${cmd[@]}")
        mem=$memory; [ "$where" = cache ] && mem=$cache_memory
        json "$app" "$g" "$s" "{\"where\": \"$where\", \"round\": $round, \"run_memory\": \"$mem\", \"output\": $([ ${#output[@]} -gt 0 ] && echo true || echo false)}"
      done
      [ -n "${NO_OUTPUT:-}" ] && continue
      python3 - "$tmp/changed.out" "$tmp/compacted.out" "$app" <<'PY' || { echo "outputs differ: $app ($where)" >&2; exit 1; }
import sys
a, b = open(sys.argv[1]).read().split(), open(sys.argv[2]).read().split()
if sys.argv[3].startswith("pagerank"):
    ok = len(a) == len(b) and all(x == y or abs(float(x) - float(y)) <= 1e-6 * abs(float(y)) for x, y in zip(a, b))
else:
    ok = a == b
sys.exit(0 if ok else 1)
PY
    done
  done
done
rm -rf "$changed" "$compacted"
