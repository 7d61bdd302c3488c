#!/usr/bin/env bash
# Update speed on one emulated HDD (../shared/tools/emudisk.sh): a copy of
# GRAPH on the disk (DISK_DIR) takes, inside the disk throttle and a
# CGROUP_MB memory cgroup (page cache dropped first), one update adding 1 %
# of its edges, one adding 5 % (edges a second for large batches), then a
# stream of STREAM updates of 1,000 edges each, each durable when it
# returns, and last a compaction. The edges are uniform random pairs of the
# graph's ids (bin32, on the local disk: the update reads them once);
# NEW_VERTEX_SHARE=x draws them below n(1 + x) instead, so the updates add
# vertices (each update then looks up the ones earlier updates added).
# One JSON line a measurement.
#   bench/update_speed.sh BIN GRAPH DISK_DIR [CGROUP_MB] [STREAM]
set -euo pipefail
bin=$1; graph=$2; disk=$3; cgroup_mb=${4:-256}; stream=${5:-1000}
root=$(cd "$(dirname "$0")/.." && pwd)
emudisk=${EMUDISK:-$root/../shared/tools/emudisk.sh}
memory=$((cgroup_mb * 3 / 4))M
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
vertices=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['num_vertices'])" "$graph/manifest.json")
edges=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['num_edges'])" "$graph/manifest.json")
new_share=${NEW_VERTEX_SHARE:-0}
python3 - "$tmp" "$vertices" "$edges" "$stream" "$new_share" <<'PY'
import array, os, random, sys
tmp, n, m, stream = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
n = int(n * (1 + float(sys.argv[5])))
random.seed(5)
def write(name, count):
    with open(os.path.join(tmp, name), "wb") as f:
        array.array("I", (random.randrange(n) for _ in range(2 * count))).tofile(f)
write("add1.bin32", m // 100)
write("add5.bin32", m // 20)
for i in range(stream):
    write("s%d.bin32" % i, 1000)
PY
target=$disk/update-bench
rm -rf "$target"; cp -r "$graph" "$target"
measure() {  # name, edges, command...
  local name=$1 count=$2; shift 2
  local start end
  start=$(date +%s.%N)
  "$emudisk" run --mem "$cgroup_mb" -- "$@" >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; exit 1; }
  end=$(date +%s.%N)
  python3 -c "import json,sys; s=float(sys.argv[3])-float(sys.argv[2]); c=int(sys.argv[4]); print(json.dumps({'bench':'update_speed','what':sys.argv[1],'edges':c,'seconds':round(s,3),'edges_per_second':round(c/s) if c else None,'cgroup_mib':int(sys.argv[5]),'memory':sys.argv[6],'new_vertex_share':float(sys.argv[7])}))" \
    "$name" "$start" "$end" "$count" "$cgroup_mb" "$memory" "$new_share"
}
measure "update 1%" $((edges / 100)) "$bin" update "$target" --add "$tmp/add1.bin32" --no-compact --memory "$memory"
measure "update 5%" $((edges / 20)) "$bin" update "$target" --add "$tmp/add5.bin32" --no-compact --memory "$memory"
rm -rf "$target"; cp -r "$graph" "$target"
cat > "$tmp/stream.sh" <<SH
#!/bin/bash
for i in \$(seq 0 $((stream - 1))); do "$bin" update "$target" --add "$tmp/s\$i.bin32" --no-compact --memory "$memory" >/dev/null || exit 1; done
SH
chmod +x "$tmp/stream.sh"
measure "stream of $stream updates of 1000 edges" $((stream * 1000)) "$tmp/stream.sh"
measure "compact the stream" 0 "$bin" compact "$target" --memory "$memory"
rm -rf "$target"
