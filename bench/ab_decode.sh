#!/usr/bin/env bash
# A/B of two builds where decoding bounds the run: PageRank (10 iterations)
# from the page cache, (a) with the graph's compressed chunks cached and
# decoded again at every iteration (--memory 2G --no-decoded-cache), and
# (b) streamed (--io full --no-cache --memory 256M). The two binaries
# alternate in every round; their outputs are compared once (cmp). One JSON
# record a run, then the medians per mode and NEW/OLD. GRAPH may be
# OLD_GRAPH,NEW_GRAPH: the same graph ingested by each build (formats or
# codecs differ); OLD_BIN and NEW_BIN may then be the same binary.
#   bench/ab_decode.sh OLD_BIN NEW_BIN GRAPH [ROUNDS] [THREADS]
set -euo pipefail
old=$1; new=$2; rounds=${4:-5}; threads=${5:-2}
old_graph=${3%%,*}; new_graph=${3#*,}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
records="$tmp/records.jsonl"
"$old" run pagerank "$old_graph" --iterations 10 --output "$tmp/old.txt" >/dev/null 2>&1
"$new" run pagerank "$new_graph" --iterations 10 --output "$tmp/new.txt" >/dev/null 2>&1
cmp "$tmp/old.txt" "$tmp/new.txt" || { echo "ab_decode: outputs differ" >&2; exit 1; }
for round in $(seq 1 "$rounds"); do
  for mode in cached streamed; do
    flags=(--memory 2G --no-decoded-cache); [ $mode = streamed ] && flags=(--io full --no-cache --memory 256M)
    for side in old new; do
      bin=$old; graph=$old_graph; [ $side = new ] && { bin=$new; graph=$new_graph; }
      "$bin" run pagerank "$graph" --iterations 10 --threads "$threads" "${flags[@]}" --stats "$tmp/s.json" \
        >/dev/null 2>&1
      python3 - "$side" "$mode" "$round" "$tmp/s.json" <<'PY' | tee -a "$records"
import json, sys
side, mode, rnd, path = sys.argv[1:5]
j = json.load(open(path))
later = j["iteration_seconds"][1:]  # the first iteration also reads the disk when cached
print(json.dumps({"bench": "ab-decode", "side": side, "mode": mode, "round": int(rnd), "graph": j["graph"],
                  "seconds": round(j["seconds"], 3), "later_iterations_seconds": round(sum(later), 3),
                  "edges_per_second_later": round(j["edges"] * len(later) / sum(later)), "bytes_read": j["bytes_read"],
                  "threads": j["threads"]}))
PY
    done
  done
done
python3 - "$records" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
for mode in ("cached", "streamed"):
    med = {s: statistics.median(r["later_iterations_seconds"] if mode == "cached" else r["seconds"]
                                for r in runs if r["mode"] == mode and r["side"] == s) for s in ("old", "new")}
    print(json.dumps({"bench": "ab-decode-summary", "mode": mode, "measure": "iterations 2-10 s" if mode == "cached" else "run s",
                      "old": med["old"], "new": med["new"], "new_over_old": round(med["new"] / med["old"], 4)}))
PY
