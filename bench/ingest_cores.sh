#!/usr/bin/env bash
# Ingest's scaling with cores, phase by phase: the same ingest pinned to one
# core (taskset, --threads 1) and to CORES cores (--threads CORES), in
# alternating rounds, from the page cache. One JSON record per run: cores,
# wall and CPU seconds (GNU time) and each phase's seconds (ingest's
# summary line). Pinned to one core, everything ingest runs (its reading,
# flushing and decoding threads too) shares that core, so the ratio is what
# the other cores give; `--threads 1` alone would leave those threads the
# other cores.
#   bench/ingest_cores.sh EDGES MEMORY [ROUNDS] [CORES] [ORDER] [WORKDIR]
# SG_BIN: the shardgraph build (default this tree's), recorded as SG_NAME
# (default shardgraph): run it once per build to compare builds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
edges=$1; mem=$2; rounds=${3:-3}; cores=${4:-$(nproc)}; order=${5:-auto}; work=${6:-$(dirname "$edges")}
sg=${SG_BIN:-$root/build/shardgraph}; name=${SG_NAME:-shardgraph}
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (apt-get install time)" >&2; exit 2; }
command -v taskset >/dev/null || { echo "needs taskset (apt-get install util-linux)" >&2; exit 2; }
[ "$cores" -ge 2 ] && [ "$cores" -le "$(nproc)" ] || { echo "CORES must be 2..$(nproc)" >&2; exit 2; }
for round in $(seq 1 "$rounds"); do
  for n in 1 "$cores"; do
    rm -rf "$work/sg-cores"
    /usr/bin/time -f "%e %U %S" -o "$work/time.txt" taskset -c "0-$((n - 1))" \
      "$sg" ingest "$edges" -o "$work/sg-cores" --memory "$mem" --order "$order" --threads "$n" >"$work/sg.txt"
    read -r secs user sys < "$work/time.txt"
    echo "# $(cat "$work/sg.txt")" >&2
    printf '{"bench":"ingest-cores","system":"%s","input":"%s","memory":"%s","order":"%s","cores":%s,"seconds":%s,"user_seconds":%s,"sys_seconds":%s,"round":%s,"phases":%s}\n' \
      "$name" "$(basename "$edges")" "$mem" "$order" "$n" "$secs" "$user" "$sys" "$round" "$(python3 "$root/bench/ingest_phases.py" < "$work/sg.txt")"
  done
done
rm -rf "$work/sg-cores" "$work/time.txt" "$work/sg.txt"
