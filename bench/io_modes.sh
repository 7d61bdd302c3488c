#!/usr/bin/env bash
# Full vs selective vs auto I/O, under an emulated low-memory HDD array
# (../shared/tools/emudisk.sh must be up, with the graphs' devices on it).
# One JSON record per run on stdout.
#   bench/io_modes.sh GRAPH MEMORY CGROUP_MB "APPS" [extra run options...]
# e.g. bench/io_modes.sh /data/g22 128M 192 "bfs wcc sssp"
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
graph=$1; mem=$2; cgroup_mb=$3; apps=$4; shift 4
emudisk=${EMUDISK:-$root/../shared/tools/emudisk.sh}
sg="$root/build/shardgraph"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for app in $apps; do
  for io in full selective auto; do
    extra=("$@"); [ "$app" = sssp ] && extra+=(--unit-weights)
    EMUDISK_JSON="$tmp/disk.json" "$emudisk" run --mem "$cgroup_mb" -- \
      "$sg" run "$app" "$graph" --memory "$mem" --io "$io" --stats "$tmp/run.json" "${extra[@]}" >/dev/null 2>"$tmp/err" ||
      { cat "$tmp/err" >&2; exit 1; }
    python3 - "$tmp/run.json" "$tmp/disk.json" "$cgroup_mb" "$*" <<'PY'
import json, sys
run = json.load(open(sys.argv[1])); disk = json.load(open(sys.argv[2])); steps = run["steps"]
push_read = sum(s["bytes_read"] for s in steps if s["mode"] == "push" and s["selective_intervals"] > 0)
useful = sum(min(s["useful_bytes"], s["bytes_read"]) for s in steps if s["mode"] == "push" and s["selective_intervals"] > 0)
# Over the run: bytes of active lists the push steps processed (read or
# cached) per byte the push steps read. With the cache, a chunk read once
# serves later steps, so this is what the reads bought.
push_steps = [s for s in steps if s["mode"] == "push"]
push_all_read = sum(s["bytes_read"] for s in push_steps)
run_use = sum(s["useful_bytes"] for s in push_steps) / push_all_read if push_all_read else None
full = [s for s in steps if s["bytes_read"] > 0 and (s["mode"] == "pull" or s["selective_intervals"] == 0)]
errs = sorted((s["predicted_seconds"] - s["seconds"]) / s["seconds"] for s in full if s["seconds"] > 0)
print(json.dumps({"bench": "io_modes", "app": run["app"], "graph": run["graph"], "io": run["io_mode"],
                  "memory": run["memory_bytes"], "cgroup_mb": int(sys.argv[3]), "options": sys.argv[4],
                  "seconds": round(run["seconds"], 3), "steps": len(steps), "bytes_read": run["bytes_read"],
                  "requests": run["requests"], "cache_bytes": run.get("cache_bytes", 0),
                  "peak_rss_bytes": run["peak_rss_bytes"], "result": run["result"],
                  "modes": {m: sum(1 for s in steps if s["mode"] == m) for m in ("pull", "push")},
                  "selective_efficiency": round(useful / push_read, 3) if push_read else None,
                  "run_active_bytes_per_byte_read": round(run_use, 3) if run_use is not None else None,
                  "full_scan_prediction_error": {"median": round(errs[len(errs)//2], 3), "min": round(errs[0], 3),
                                                 "max": round(errs[-1], 3), "steps": len(errs)} if errs else None,
                  "full_scan_steps": [[s["iteration"], round(s["predicted_seconds"], 4), round(s["seconds"], 4)] for s in full],
                  "disk": disk}))
PY
  done
done
