#!/usr/bin/env bash
# Distributed ingest over N machines on this host (scripts/netns_machines.sh:
# a network namespace, a shaped link, a memory cgroup and an emulated disk
# each) against one process ingesting the whole input on one emulated disk,
# side by side in each round. Machine K reads its slice of the input from
# /mnt/emudisk/dK and writes its part there; the partitioned directory's
# metadata goes to WORK (a file system every machine sees). The one process
# reads the whole input from /mnt/emudisk/d0 and writes there, with the
# same options (ids kept: --order none --no-remap) and, as a user's default,
# with none. The page cache is dropped before each run. One JSON record a
# run: wall seconds, peak RSS (each rank's, from its own report), and the
# run's report lines. With INGEST_TRANSPORT=shm the ranks are plain mpirun
# processes on this host instead (shared memory between them, every rank
# in emudisk's throttle and one memory cgroup of N x (MEM + 64 MiB)).
#   bench/ingest_distributed.sh WHOLE_INPUT SLICE_NAME N MEM RATE [ROUNDS] [WORK]
# SLICE_NAME is a file name in each /mnt/emudisk/dK, with K for the
# machine's number, e.g. r24.K.bin32.
# e.g. bench/ingest_distributed.sh /mnt/emudisk/d0/r24.bin32 r24.K.bin32 4 256M 10gbit 1 > bench/results/x.jsonl
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
whole=$1 slice=$2 n=$3 mem=$4 rate=$5 rounds=${6:-1} work=${7:-/var/tmp/sg-ingest-bench}
sg=${SG_BIN:-$root/build/shardgraph}
machines=$root/scripts/netns_machines.sh
emudisk=${EMUDISK:-$root/../shared/tools/emudisk.sh}
cgroup_mib=$(($(numfmt --from=iec "$mem") / 1048576 + 64))
tmp=$(mktemp -d)
trap '"$machines" down > /dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
mkdir -p "$work"

record() {  # kind round wall log
  python3 - "$@" << 'PY'
import json, re, sys
kind, rnd, wall, log = sys.argv[1:5]
lines = [l.rstrip() for l in open(log) if l.startswith(("ingested", "rank ", "part-"))]
rss = [int(m.group(1)) for l in lines for m in [re.search(r"peak RSS (\d+) MiB", l)] if m]
whole = [int(m.group(1)) // 1024 for l in lines for m in [re.search(r"peak RSS (\d+) KiB", l)] if m]
print(json.dumps({"bench": "ingest_distributed", "kind": kind, "round": int(rnd), "wall_seconds": float(wall),
                  "peak_rss_mib": rss or whole, "report": lines}), flush=True)
PY
}

timed() {  # kind round command...
  local kind=$1 rnd=$2 start end
  shift 2
  sync; echo 3 > /proc/sys/vm/drop_caches
  start=$(date +%s.%N)
  "$@" > "$tmp/log" 2>&1 || { cat "$tmp/log" >&2; exit 1; }
  end=$(date +%s.%N)
  record "$kind" "$rnd" "$(echo "$end - $start" | bc)" "$tmp/log"
}

slices=() devices=()
for ((k = 0; k < n; k++)); do
  slices+=("/mnt/emudisk/d$k/${slice//K/$k}")
  devices+=(--device "$k:/mnt/emudisk/d$k")
done
"$machines" down > /dev/null 2>&1 || true
for rnd in $(seq 1 "$rounds"); do
  rm -rf "$work/parts" /mnt/emudisk/d0/one /mnt/emudisk/d0/default
  if [ "${INGEST_TRANSPORT:-}" = shm ]; then
    timed "distributed-$n-shm" "$rnd" "$emudisk" run --mem $((n * cgroup_mib)) --no-drop -- mpirun --oversubscribe \
      --bind-to none -np "$n" "$sg" ingest "${slices[@]}" -o "$work/parts" --parts "$n" "${devices[@]}" --memory "$mem"
  else
    "$machines" up "$n" --rate "$rate" --mem "$cgroup_mib" >&2
    timed "distributed-$n-$rate" "$rnd" "$machines" mpirun "$sg" ingest "${slices[@]}" -o "$work/parts" --parts "$n" \
      "${devices[@]}" --memory "$mem"
    "$machines" down > /dev/null
  fi
  "$sg" verify "$work/parts" >&2
  rm -rf "$work/parts"
  timed one-process-order-none "$rnd" "$emudisk" run --mem "$cgroup_mib" --no-drop -- "$sg" ingest "$whole" \
    -o /mnt/emudisk/d0/one --order none --no-remap --memory "$mem"
  rm -rf /mnt/emudisk/d0/one
  [ -n "${SKIP_DEFAULT:-}" ] && continue
  timed one-process-default "$rnd" "$emudisk" run --mem "$cgroup_mib" --no-drop -- "$sg" ingest "$whole" \
    -o /mnt/emudisk/d0/default --memory "$mem"
  rm -rf /mnt/emudisk/d0/default
done
