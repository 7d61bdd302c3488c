#!/usr/bin/env bash
# A/B timing of two builds on the same graph and emulated disks: PageRank
# (10 iterations), BFS and WCC, each binary in turn for every app and round,
# inside the disk emulator's throttle and memory cgroup (the page cache is
# dropped before every run), each with its default --memory (auto: from the
# cgroup limit). For changes that must not cost speed: build the previous
# commit outside the tree and pass its binary as OLD. One JSON record a run,
# then one a system and app with the median of the rounds and NEW/OLD.
# GRAPH may be OLD_GRAPH,NEW_GRAPH: the same graph as each build ingests it.
# APPS (default "pagerank bfs wcc") picks the apps, e.g. one app on a graph
# whose runs take minutes.
#   bench/ab_hdd.sh OLD_BIN NEW_BIN GRAPH CGROUP_MB [ROUNDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
old=$1; new=$2; cgroup_mb=$4; rounds=${5:-3}
old_graph=${3%%,*}; new_graph=${3#*,}
emudisk=${EMUDISK:-$root/../shared/tools/emudisk.sh}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
records="$tmp/records.jsonl"
for round in $(seq 1 "$rounds"); do
  for app in ${APPS:-pagerank bfs wcc}; do
    extra=(); [ "$app" = pagerank ] && extra=(--iterations 10)
    for side in old new; do
      bin=$old; graph=$old_graph; [ $side = new ] && { bin=$new; graph=$new_graph; }
      start=$(date +%s.%N)
      EMUDISK_JSON="$tmp/disk.json" "$emudisk" run --mem "$cgroup_mb" -- "$bin" run "$app" "$graph" "${extra[@]}" \
        --stats "$tmp/stats.json" >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; exit 1; }
      end=$(date +%s.%N)
      python3 - "$side" "$bin" "$app" "$start" "$end" "$tmp/stats.json" "$cgroup_mb" "$round" <<'PY' | tee -a "$records"
import json, sys
side, binary, app, start, end, stats, cgroup, rnd = sys.argv[1:9]
j = json.load(open(stats))
print(json.dumps({"bench": "ab-hdd", "side": side, "binary": binary, "app": app, "graph": j["graph"],
                  "wall_seconds": round(float(end) - float(start), 3), "run_seconds": round(j["seconds"], 3),
                  "bytes_read": j["bytes_read"], "requests": j["requests"], "peak_rss_bytes": j["peak_rss_bytes"],
                  "memory_bytes": j["memory_bytes"], "cgroup_mb": int(cgroup), "round": int(rnd)}))
PY
    done
  done
done
python3 - "$records" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
for app in dict.fromkeys(r["app"] for r in runs):  # the apps run, in order
    med = {side: statistics.median(r["run_seconds"] for r in runs if r["app"] == app and r["side"] == side) for side in ("old", "new")}
    print(json.dumps({"bench": "ab-hdd-summary", "app": app, "old_median_seconds": med["old"], "new_median_seconds": med["new"],
                      "new_over_old": round(med["new"] / med["old"], 3)}))
PY
