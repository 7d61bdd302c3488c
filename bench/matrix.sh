#!/usr/bin/env bash
# The benchmark matrix: apps x --io modes x device counts on one graph, on an
# emulated low-memory HDD array (scripts/emulate_array.sh up N ... first).
# Ingests EDGES once onto d0, restripes onto 1..N disks, runs every app in
# every mode inside the memory cap, and appends one JSON record per run to
# OUT: app, mode, devices, time, bytes/requests/busy/MB/s per device, I/O
# efficiency, peak RSS, and per-iteration decisions (mode, bytes, predicted
# and measured seconds).
#
#   bench/matrix.sh EDGES OUT.jsonl [VAR=value ...]
# Variables (defaults): APPS="pagerank bfs wcc" MODES="full selective auto"
#   DEVICES="1 2 4" MEMORY=192M CGROUP_MB=256 INGEST="" RUN="" WORK=/var/tmp/sg-matrix
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
edges=$1; out=$2; shift 2
for assignment in "$@"; do export "${assignment?}"; done
APPS=${APPS:-pagerank bfs wcc}; MODES=${MODES:-full selective auto}; DEVICES=${DEVICES:-1 2 4}
MEMORY=${MEMORY:-192M}; CGROUP_MB=${CGROUP_MB:-256}; WORK=${WORK:-/var/tmp/sg-matrix}
INGEST=${INGEST:-}; RUN=${RUN:-}
sg="$root/build/shardgraph"; array="$root/scripts/emulate_array.sh"
mkdir -p "$WORK"; graph="$WORK/graph"; rm -rf "$graph"
# shellcheck disable=SC2086
"$sg" ingest "$edges" -o "$graph" --device /mnt/sg-array/d0 --memory 1G $INGEST >&2
for n in $DEVICES; do
  devs=(); for ((i = 0; i < n; i++)); do devs+=(--device "/mnt/sg-array/d$i"); done
  "$sg" restripe "$graph" "${devs[@]}" --stripe-bytes auto >&2
  for app in $APPS; do
    for mode in $MODES; do
      extra=(); [ "$app" = pagerank ] && extra+=(--iterations 5); [ "$app" = sssp ] && extra+=(--unit-weights)
      # shellcheck disable=SC2086
      "$array" run --mem "$CGROUP_MB" -- "$sg" run "$app" "$graph" --memory "$MEMORY" --io "$mode" \
        --stats "$WORK/run.json" "${extra[@]}" $RUN >/dev/null
      python3 - "$WORK/run.json" "$n" "$edges" >> "$out" <<'PY'
import json, sys
run = json.load(open(sys.argv[1])); steps = run["steps"]
sel = [s for s in steps if s["mode"] == "push" and s["selective_intervals"] > 0]
read_sel = sum(s["bytes_read"] for s in sel)
print(json.dumps({
    "bench": "matrix", "input": sys.argv[3], "app": run["app"], "io": run["io_mode"], "devices": int(sys.argv[2]),
    "seconds": round(run["seconds"], 3), "bytes_read": run["bytes_read"], "requests": run["requests"],
    "device": run["devices"], "io_efficiency": round(sum(min(s["useful_bytes"], s["bytes_read"]) for s in sel) / read_sel, 3) if read_sel else None,
    "peak_rss_bytes": run["peak_rss_bytes"], "memory_bytes": run["memory_bytes"],
    "iterations": [{"iteration": s["iteration"], "mode": s["mode"], "reversed": s["reversed"], "bytes_read": s["bytes_read"],
                    "selective_intervals": s["selective_intervals"], "predicted_seconds": round(s["predicted_seconds"], 4),
                    "seconds": round(s["seconds"], 4)} for s in steps]}))
PY
      echo "matrix: $app --io $mode on $n device(s) done" >&2
    done
  done
done
