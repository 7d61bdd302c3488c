#!/usr/bin/env bash
# Compaction against a fresh ingest, side by side, on one emulated HDD
# (../shared/tools/emudisk.sh). A copy of GRAPH on the disk (DISK_DIR) takes
# UPDATES updates that together add SHARE of its edges (uniform random pairs
# of its ids, which must be a permutation of 0..n-1 so no update adds a
# vertex). Then, ROUNDS times: a copy of that graph is compacted, and INPUT
# (the graph's input, copied onto the disk first) is ingested with default
# options, each in a CGROUP_MB memory cgroup with the page cache dropped
# (--memory 3/4 of it). The compacted graph must verify. One JSON line a
# measurement, with the command's last line. With OLD_BIN set, each round
# also compacts a copy with that binary (a previous commit's, built outside
# the tree).
#   bench/compact_speed.sh BIN GRAPH INPUT DISK_DIR [CGROUP_MB] [UPDATES] [SHARE] [ROUNDS]
set -euo pipefail
bin=$1; graph=$2; input=$3; disk=$4; cgroup_mb=${5:-256}; updates=${6:-50}; share=${7:-0.05}; rounds=${8:-2}
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/update_lib.sh"
emudisk=${EMUDISK:-$root/../shared/tools/emudisk.sh}
memory=$((cgroup_mb * 3 / 4))M
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$graph/manifest.json" "$1"; }
vertices=$(field num_vertices); edges=$(field num_edges)
per_update=$(python3 -c "print(int($edges * $share / $updates))")
update_files "$tmp" "$vertices" "$per_update" "$updates"
changed=$disk/compact-changed; work=$disk/compact-work; fresh=$disk/compact-fresh
disk_input=$disk/$(basename "$input")
rm -rf "$changed" "$work" "$fresh"; cp -r "$graph" "$changed"; cp "$input" "$disk_input"
for i in $(seq 0 $((updates - 1))); do
  "$bin" update "$changed" --add "$tmp/u$i.bin32" --no-compact >/dev/null
done
json() {  # what, seconds, round, last line
  python3 -c "import json,sys; print(json.dumps({'bench':'compact_speed','what':sys.argv[1],'graph':'$(basename "$graph")','seconds':round(float(sys.argv[2]),3),'round':int(sys.argv[3]),'updates':$updates,'share':$share,'cgroup_mib':$cgroup_mb,'memory':'$memory','line':sys.argv[4]}))" "$@"
}
compact() {  # what, binary, round
  rm -rf "$work"; cp -r "$changed" "$work"; sync
  s=$(timed "$tmp/compact.log" "$emudisk" run --mem "$cgroup_mb" -- "$2" compact "$work" --memory "$memory")
  json "$1" "$s" "$3" "$(grep '^compacted' "$tmp/compact.log" | tail -1)"
  "$bin" verify "$work" >/dev/null
}
for round in $(seq 1 "$rounds"); do
  compact compact "$bin" "$round"
  [ -n "${OLD_BIN:-}" ] && compact "compact (old binary)" "$OLD_BIN" "$round"
  rm -rf "$fresh"; sync
  s=$(timed "$tmp/ingest.log" "$emudisk" run --mem "$cgroup_mb" -- "$bin" ingest "$disk_input" -o "$fresh" --memory "$memory")
  json ingest "$s" "$round" "$(grep '^ingested' "$tmp/ingest.log" | tail -1)"
done
rm -rf "$changed" "$work" "$fresh" "$disk_input"
