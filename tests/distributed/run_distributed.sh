#!/usr/bin/env bash
# Distributed runs (docs/scale-out.md) against single-process
# runs: every app (triangles on undirected graphs only), on
# random graphs (R-MAT directed and undirected, a grid; tiny chunks; two
# devices with 4 KiB stripes) and on ../shared/datasets graphs when present, partitioned into
# 1, 2 and 3 parts and run by mpirun -np 1/2/3 --oversubscribe (the
# datasets, larger and slower, in 3 parts only), the striped R-MAT in every
# --io mode and the other graphs in auto.
# BFS, WCC, SSSP, k-core, CDLP and triangles must match exactly;
# PageRank, PageRank-delta, SpMV, betweenness and LCC within 1e-9 relative. Then
# distributed ingest against ingest + partition (below), and the failures:
# a wrong rank count and a missing part are refused up front, an error on
# one rank and a killed rank end the job.
#
# Usage: run_distributed.sh SHARDGRAPH_BINARY [WORK_DIR] [quick]
set -euo pipefail
SG=$(realpath "$1")
WORK=${2:-$(mktemp -d)}
QUICK=${3:-}
HERE=$(cd "$(dirname "$0")" && pwd)
SHARED=$(cd "$HERE/../../.." && pwd)/shared
mkdir -p "$WORK"
cd "$WORK"
rm -rf ./*
# mpirun refuses root unless told; CI runs as root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# No network beyond this machine: shared memory and loopback.
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
MPIRUN=(mpirun --oversubscribe --bind-to none)
command -v mpirun > /dev/null || { echo "SKIP: no mpirun (install openmpi-bin)"; exit 77; }
"$SG" --version > /dev/null

failures=0
checks=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# compare KIND EXPECTED ACTUAL: exact, or within 1e-9 relative
compare() {
  local kind=$1 expected=$2 actual=$3
  checks=$((checks + 1))
  if [ "$kind" = exact ]; then
    cmp -s "$expected" "$actual" || { fail "$actual differs from $expected"; diff "$expected" "$actual" | head -4; }
    return
  fi
  [ "$(wc -l < "$expected")" = "$(wc -l < "$actual")" ] || { fail "$actual: another line count than $expected"; return; }
  paste -d' ' "$expected" "$actual" | awk -v file="$actual" '
    $1 != $3 { print "FAIL: " file " line " NR ": vertex " $3 " where " $1 " was expected"; bad = 1; exit }
    { d = $2 - $4; if (d < 0) d = -d; m = $2 < 0 ? -$2 : $2; if (d > 1e-9 * m && d > 1e-300) { print "FAIL: " file " line " NR ": " $4 " vs " $2; bad = 1; exit } }
    END { exit bad }' || failures=$((failures + 1))
}

# apps: name, comparison, extra options; on small graphs CDLP and LCC a
# second time in 1 MiB, so neighbourhoods come in several blocks
APPS=("pagerank near" "pagerank-delta near" "spmv near" "bfs exact --parents" "wcc exact" "sssp exact" "kcore exact"
      "betweenness near" "cdlp exact" "lcc near" "triangles exact")
SMALL_GRAPH_APPS=("cdlp exact --memory 1M" "lcc near --memory 1M")
IO_MODES=(auto full selective)
[ -n "$QUICK" ] && IO_MODES=(auto)

# check_graph NAME GRAPH_DIR [small]: every app, 1/2/3 parts (PARTS), every
# --io mode (IO_MODES)
check_graph() {
  local name=$1 graph=$2
  local part_counts
  read -r -a part_counts <<< "${PARTS:-1 2 3}"
  local apps=("${APPS[@]}")
  [ "${3:-}" = small ] && apps+=("${SMALL_GRAPH_APPS[@]}")
  # Three parts on device directories of their own: part 1 striped over
  # two, shared with parts 0 and 2 (as machines' disks would be).
  mkdir -p "$name.disk0" "$name.disk1"
  local devices=(--device "0:$name.disk0" --device "1:$name.disk0" --device "1:$name.disk1" --device "2:$name.disk1")
  for parts in "${part_counts[@]}"; do
    local extra_partition=()
    [ "$parts" = 3 ] && extra_partition=("${devices[@]}")
    "$SG" partition "$graph" --parts "$parts" -o "$name.p$parts" "${extra_partition[@]}" > /dev/null
    "$SG" verify "$name.p$parts" > /dev/null || fail "verify $name.p$parts"
  done
  local undirected=""
  "$SG" info "$graph" | grep -q "undirected" && undirected=yes
  for entry in "${apps[@]}"; do
    read -r app kind extra <<< "$entry"
    [ "$app" = triangles ] && [ -z "$undirected" ] && continue  # triangles needs an undirected graph
    local options=(--threads 1)
    # shellcheck disable=SC2206 # the extra options are words
    [ -n "${extra:-}" ] && options+=($extra)
    [[ "${extra:-}" == *--memory* ]] || options+=(--memory 64M)
    local tag=$app${extra:+-$(echo "$extra" | tr -d ' -')}
    [ "$app" = sssp ] && options+=(--unit-weights)
    for io in "${IO_MODES[@]}"; do
      "$SG" run "$app" "$graph" --io "$io" --output "$name.$tag.$io.single" "${options[@]}" > /dev/null 2>&1 || fail "$app on $name"
      for parts in "${part_counts[@]}"; do
        local out="$name.$tag.$io.np$parts"
        if ! "${MPIRUN[@]}" -np "$parts" "$SG" run "$app" "$name.p$parts" --io "$io" --output "$out" --stats "$out.json" "${options[@]}" > "$out.log" 2>&1; then
          fail "mpirun -np $parts $app on $name (--io $io)"; tail -5 "$out.log"; continue
        fi
        compare "$kind" "$name.$tag.$io.single" "$out"
      done
    done
  done
  echo "ok: $name ($checks checks so far, at ${SECONDS} s)"
}

# Random graphs: R-MAT (weighted) and a shuffled grid, tiny chunks; one on
# two devices with 4 KiB stripes.
"$SG" generate rmat --scale 9 --seed 7 --weights -o rmat9.txt > /dev/null
# Every graph but the striped rmat10 in the auto mode only: the I/O modes
# read a part's chunks as one process reads its graph's (the app tests
# check every mode), and rmat10, on two devices, runs them all here.
"$SG" ingest rmat9.txt -o rmat9 --chunk-bytes 512 > /dev/null 2>&1
IO_MODES=auto check_graph rmat9 rmat9 small
# An undirected graph: parts hold both arcs of the edges into their range.
"$SG" ingest rmat9.txt -o rmat9u --undirected --chunk-bytes 512 > /dev/null 2>&1
IO_MODES=auto check_graph rmat9u rmat9u small
if [ -z "$QUICK" ]; then
  "$SG" generate rmat --scale 10 --edge-factor 8 --seed 11 -o rmat10.txt > /dev/null
  mkdir -p dev0 dev1
  "$SG" ingest rmat10.txt -o rmat10 --chunk-bytes 1K --device dev0 --device dev1 --stripe-bytes 4096 --order none > /dev/null 2>&1
  check_graph rmat10 rmat10 small
  "$SG" generate grid --rows 20 --cols 30 --seed 5 -o grid.txt > /dev/null
  "$SG" ingest grid.txt -o grid --chunk-bytes 256 > /dev/null 2>&1
  IO_MODES=auto check_graph grid grid small
  # Real graphs, when the shared datasets are there (a user's clone has none).
  # cit-HepTh's ids are sparse arXiv ids: remapped, so the output's
  # original ids go through the id map.
  # ca-AstroPh is undirected.
  for dataset in email-Enron cit-HepTh ca-AstroPh; do
    file=$(ls "$SHARED/datasets/$dataset/"*.txt.gz 2> /dev/null | head -1 || true)
    [ -n "$file" ] || { echo "skip: $SHARED/datasets/$dataset absent"; continue; }
    extra_ingest=()
    [ "$dataset" = ca-AstroPh ] && extra_ingest=(--undirected)
    "$SG" ingest "$file" -o "$dataset" --remap "${extra_ingest[@]}" > "$dataset.ingest.log" 2>&1 || { fail "ingest $file"; tail -3 "$dataset.ingest.log"; continue; }
    # Auto only, and 3 parts only: the random graphs above run 1 and 2.
    IO_MODES=auto PARTS=3 check_graph "$dataset" "$dataset"  # one word each: for this call only
  done
fi

# Source values and results in many rounds (a 64-byte round, a test
# hook): the same results. LCC sends its corners' counts in such rounds.
for entry in "pagerank near" "wcc exact" "sssp exact" "bfs exact --parents" "lcc near"; do
  read -r app kind extra <<< "$entry"
  tag=$app${extra:+-$(echo "$extra" | tr -d ' -')}
  options=(--threads 1 --memory 64M)
  # shellcheck disable=SC2206 # the extra options are words
  [ -n "${extra:-}" ] && options+=($extra)
  [ "$app" = sssp ] && options+=(--unit-weights)
  out=rmat9.$tag.rounds.np3
  if ! SHARDGRAPH_EXCHANGE_ROUND_BYTES=64 "${MPIRUN[@]}" -x SHARDGRAPH_EXCHANGE_ROUND_BYTES -np 3 "$SG" run "$app" \
      rmat9.p3 --output "$out" "${options[@]}" > "$out.log" 2>&1; then
    fail "$app in rounds"; tail -5 "$out.log"; continue
  fi
  compare "$kind" "rmat9.$tag.auto.single" "$out"
done

# Vertex state beyond a rank's budget: R-MAT 13 (8 slabs of values an
# array) in 1 MiB, so ranks load their arrays by range and share source
# values a window at a time (3 ranks also in 256-byte rounds); results as
# one process's in the same budget. The auto I/O mode only: loading by
# range is the same in every mode, and rmat10 above runs them all.
"$SG" generate rmat --scale 13 --edge-factor 8 --seed 3 --weights -o rmat13.txt > /dev/null
"$SG" ingest rmat13.txt -o rmat13 --chunk-bytes 1K > /dev/null 2>&1
for parts in 2 3; do "$SG" partition rmat13 --parts "$parts" -o "rmat13.p$parts" > /dev/null; done
# WCC, CDLP and betweenness take reversed steps, over the reverse parts,
# which load the same ranges. LCC counts its triangles in several groups.
for entry in "pagerank near" "pagerank-delta near" "spmv near" "bfs exact --parents" "kcore exact" "sssp exact" \
    "wcc exact" "cdlp exact" "betweenness near" "lcc near"; do
  read -r app kind extra <<< "$entry"
  options=(--threads 1 --memory 1M)
  # shellcheck disable=SC2206 # the extra options are words
  [ -n "${extra:-}" ] && options+=($extra)
  for io in auto; do
    "$SG" run "$app" rmat13 --io "$io" --output "rmat13.$app.$io.single" "${options[@]}" > /dev/null 2>&1 || fail "$app on rmat13"
    for parts in 2 3; do
      out=rmat13.$app.$io.np$parts
      round_bytes=$((parts == 3 ? 256 : 8388608))
      if ! SHARDGRAPH_EXCHANGE_ROUND_BYTES=$round_bytes "${MPIRUN[@]}" -x SHARDGRAPH_EXCHANGE_ROUND_BYTES -np "$parts" \
          "$SG" run "$app" "rmat13.p$parts" --io "$io" --output "$out" "${options[@]}" > "$out.log" 2>&1; then
        fail "mpirun -np $parts $app on rmat13 in 1 MiB (--io $io)"; tail -5 "$out.log"; continue
      fi
      compare "$kind" "rmat13.$app.$io.single" "$out"
    done
  done
done
for app in pagerank wcc; do
  checks=$((checks + 1))
  grep -q "source) exceeds the memory left; loaded by vertex range" "rmat13.$app.auto.np3.log" ||
    fail "no rank of $app on rmat13 in 1 MiB loaded its sources by range"
done
# Results held whole on each rank, gathered on rank 0 through a scratch
# file (as when they would not fit its budget; a test hook forces it).
for entry in "pagerank near" "bfs exact --parents" "wcc exact"; do
  read -r app kind extra <<< "$entry"
  options=(--threads 1 --memory 64M)
  # shellcheck disable=SC2206 # the extra options are words
  [ -n "${extra:-}" ] && options+=($extra)
  out=rmat13.$app.scratch.np3
  "$SG" run "$app" rmat13 --output "rmat13.$app.whole.single" "${options[@]}" > /dev/null 2>&1 || fail "$app on rmat13"
  if ! SHARDGRAPH_GATHER_TO_SCRATCH=1 "${MPIRUN[@]}" -x SHARDGRAPH_GATHER_TO_SCRATCH -np 3 "$SG" run "$app" rmat13.p3 \
      --output "$out" "${options[@]}" > "$out.log" 2>&1; then
    fail "mpirun -np 3 $app on rmat13, gathered through a file"; tail -5 "$out.log"; continue
  fi
  compare "$kind" "rmat13.$app.whole.single" "$out"
done
echo "ok: rmat13 in 1 MiB, and gathered through a file ($checks checks so far, at ${SECONDS} s)"

# Failures. A rank count other than the parts': refused by every rank.
expect_failure() {  # expect_failure MESSAGE LOG command...
  local message=$1 log=$2 attempt
  shift 2
  checks=$((checks + 1))
  # Two attempts for the message: when a rank exits with an error, mpirun
  # ends the job and can drop that rank's last line of stderr before
  # forwarding it (seen once in 4 CI runs under ASan, where ranks are slow).
  for attempt in 1 2; do
    if timeout 120 "$@" > "$log" 2>&1; then fail "succeeded: $*"; return; fi
    [ $? -eq 124 ] && { fail "hung: $*"; return; }
    grep -q "$message" "$log" && return
  done
  fail "no '$message' from: $*"; tail -5 "$log"
}
# Distributed ingest (mpirun -np N shardgraph ingest INPUT... --parts N)
# against one process's ingest (ids kept: --order none --no-remap) and
# partition: the whole graph's in- and out-degrees equal, and every part's
# degree files where the ranges agree (the same arcs in the same parts),
# verify passes, and
# the apps' outputs are equal (byte for byte; PageRank and LCC, whose sums
# over ranks follow the ranges, within 1e-9).
# check_ingest NAME PARTS REFERENCE_INPUT "INGEST OPTIONS" INPUT...
check_ingest() {
  local name=$1 parts=$2 reference=$3 opts=$4 k
  shift 4
  # shellcheck disable=SC2206 # the options are words
  local options=($opts) devices=()
  for ((k = 0; k < parts; k++)); do mkdir -p "$name.disk$k"; devices+=(--device "$k:$name.disk$k"); done
  "$SG" ingest "$reference" -o "$name.one" --order none --no-remap "${options[@]}" > /dev/null 2>&1 || fail "ingest $reference"
  "$SG" partition "$name.one" --parts "$parts" -o "$name.ref" > /dev/null || fail "partition $name.one"
  if ! "${MPIRUN[@]}" -np "$parts" "$SG" ingest "$@" -o "$name.dist" --parts "$parts" "${devices[@]}" "${options[@]}" \
      > "$name.ingest.log" 2>&1; then
    fail "distributed ingest of $name"; tail -5 "$name.ingest.log"; return
  fi
  checks=$((checks + 1))
  "$SG" verify "$name.dist" > /dev/null || fail "verify $name.dist"
  compare exact "$name.ref/out.degrees" "$name.dist/out.degrees"
  # The whole graph's in-degrees, from each part's range; each part's files
  # when the ranges agree (with --dedup the counted ranges may differ).
  checks=$((checks + 1))
  python3 - "$name.ref" "$name.dist" << 'PY' || fail "$name: the parts' arcs differ"
import array, json, sys
def in_degrees(root):
    layout = json.load(open(root + "/partition.json"))
    whole = array.array("I")
    for part in layout["parts"]:
        degrees = array.array("I", open(root + "/" + part["dir"] + "/in.degrees", "rb").read())
        whole.extend(degrees[part["vertex_begin"]:part["vertex_end"]])
    return whole, [p["vertex_begin"] for p in layout["parts"]]
(ref, ref_cuts), (dist, dist_cuts) = in_degrees(sys.argv[1]), in_degrees(sys.argv[2])
assert ref == dist, "in-degrees differ"
if ref_cuts == dist_cuts:
    for part in json.load(open(sys.argv[1] + "/partition.json"))["parts"]:
        for d in [part["dir"]] + ([part["reverse_dir"]] if "reverse_dir" in part else []):
            for f in ("in.degrees", "out.degrees"):
                a = open(sys.argv[1] + "/" + d + "/" + f, "rb").read()
                assert a == open(sys.argv[2] + "/" + d + "/" + f, "rb").read(), d + "/" + f
PY
  local undirected="" weights=(--unit-weights)
  "$SG" info "$name.dist" | grep -q "undirected" && undirected=yes
  "$SG" info "$name.one" | grep -q "^weighted  *float" && weights=()
  for app in bfs wcc pagerank sssp kcore cdlp ${undirected:+triangles lcc}; do
    local run=(--threads 1 --memory 64M)
    [ "$app" = sssp ] && run+=("${weights[@]}")
    for graph in ref dist; do
      "${MPIRUN[@]}" -np "$parts" "$SG" run "$app" "$name.$graph" --output "$name.$app.$graph" "${run[@]}" \
        > "$name.$app.$graph.log" 2>&1 || { fail "$app on $name.$graph"; tail -3 "$name.$app.$graph.log"; }
    done
    # Sums over ranks may differ in their last bits where the ranges differ.
    compare "$([[ $app == pagerank || $app == lcc ]] && echo near || echo exact)" "$name.$app.ref" "$name.$app.dist"
  done
  echo "ok: distributed ingest of $name ($checks checks so far, at ${SECONDS} s)"
}
# One bin32 file split by records over 3 ranks, tiny chunks, a disk a part.
"$SG" generate rmat --scale 10 --edge-factor 8 --seed 3 -o rmat10.bin32 > /dev/null
check_ingest ingest-bin 3 rmat10.bin32 "--chunk-bytes 256" rmat10.bin32
# Three text files over 2 ranks (whole files: rank 0 reads two), weighted,
# undirected, duplicates and self-loops dropped.
awk 'NR % 3 == 1' rmat9.txt > part.a.txt
awk 'NR % 3 == 2' rmat9.txt > part.b.txt
awk 'NR % 3 == 0' rmat9.txt > part.c.txt
cat part.a.txt part.b.txt part.c.txt > parts.txt
check_ingest ingest-text 2 parts.txt "--undirected --dedup --drop-self-loops --chunk-bytes 512" \
  part.a.txt part.b.txt part.c.txt
# Matrix Market (1-based ids, weighted) read by rank 0 alone: rank 1 reads nothing.
{
  echo "%%MatrixMarket matrix coordinate integer general"
  awk '!/^#/ { if ($1 > n) n = $1; if ($2 > n) n = $2; m++ } END { print n + 1, n + 1, m }' rmat9.txt
  awk '!/^#/ { print $1 + 1, $2 + 1, $3 }' rmat9.txt
} > rmat9.mtx
check_ingest ingest-mtx 2 rmat9.mtx "--chunk-bytes 512" rmat9.mtx
# Real graphs whose ids are dense enough to keep (gzip text: rank 0 reads it).
if [ -z "$QUICK" ]; then
  for dataset in email-Enron ca-AstroPh; do
    file=$(ls "$SHARED/datasets/$dataset/"*.txt.gz 2> /dev/null | head -1 || true)
    [ -n "$file" ] || { echo "skip: $SHARED/datasets/$dataset absent"; continue; }
    check_ingest "ingest-$dataset" 2 "$file" "$([ "$dataset" = ca-AstroPh ] && echo --undirected)" "$file"
  done
fi
# Refused: a rank count other than --parts; a bad line on one rank's share
# (its file and line, every rank stops, nothing is left).
expect_failure "parts 3 needs as many MPI ranks" ingest-count.log "${MPIRUN[@]}" -np 2 "$SG" ingest rmat10.bin32 \
  -o ingest-count --parts 3
printf '1 2\n3 x\n' > bad.txt
expect_failure "rank 1: bad.txt:2: " ingest-bad.log "${MPIRUN[@]}" -np 2 "$SG" ingest part.a.txt bad.txt -o ingest-bad --parts 2
checks=$((checks + 1))
[ ! -e ingest-bad ] && [ -z "$(ls -A . | grep '^\.ingest-bad')" ] || fail "a failed distributed ingest left ingest-bad"
# A read error on rank 1 once the parts are being built: every rank stops,
# and nothing is left, in the directory or on the parts' disks.
mkdir -p fault.disk0 fault.disk1
expect_failure "rank 1: " ingest-fault.log "${MPIRUN[@]}" -np 1 "$SG" ingest rmat10.bin32 -o ingest-fault --parts 2 \
  --device 0:fault.disk0 --device 1:fault.disk1 --memory 16M : -np 1 env SHARDGRAPH_FAULTS=read-eio@3 "$SG" ingest \
  rmat10.bin32 -o ingest-fault --parts 2 --device 0:fault.disk0 --device 1:fault.disk1 --memory 16M
checks=$((checks + 1))
[ ! -e ingest-fault ] && [ -z "$(ls -A . fault.disk0 fault.disk1 | grep '^\.ingest-fault\|\.d[0-9]\|spill')" ] ||
  { fail "a failed distributed ingest left files"; ls -A . fault.disk0 fault.disk1 | grep -v '^[a-z]' | head; }

expect_failure "has 3 parts: run it with mpirun -np 3" wrong-count.log "${MPIRUN[@]}" -np 2 "$SG" run bfs rmat9.p3
# A missing part: refused up front.
mv rmat9.p3/part-1 rmat9.p3/part-1.away
expect_failure "part-1: missing" missing.log "${MPIRUN[@]}" -np 3 "$SG" run bfs rmat9.p3
expect_failure "part-1: missing" missing-verify.log "$SG" verify rmat9.p3
mv rmat9.p3/part-1.away rmat9.p3/part-1
# A read error on rank 1 only: every rank stops with rank 1's error.
expect_failure "rank 1: " read-error.log "${MPIRUN[@]}" -np 1 "$SG" run pagerank rmat9.p2 --no-cache : \
  -np 1 env SHARDGRAPH_FAULTS=read-eio@3 "$SG" run pagerank rmat9.p2 --no-cache
# A rank killed mid-run: the job ends (Open MPI's runtime sees it), no hang.
expect_failure "" killed.log env SHARDGRAPH_KILL_RANK=1@3 "${MPIRUN[@]}" -np 3 "$SG" run pagerank rmat9.p3
grep -qi "signal 9\|killed" killed.log || { fail "the killed rank is not reported"; tail -5 killed.log; }

# --stats, per rank: the exchange model's bytes equal those received in
# every step; mirrors are a share of the others' vertices; only rank 0
# receives the results (PageRank's 8-byte values): outside steps, rank 0
# receives at least those of the vertices it does not own, the others
# fewer bytes than those of the vertices they do not own.
for stats in rmat9.pagerank.auto.np2.json rmat9.pagerank.auto.np3.json rmat9.bfs-parents.auto.np3.json \
    rmat9.wcc.auto.np3.json rmat9u.sssp.auto.np2.json; do
  checks=$((checks + 1))
  python3 - "$stats" << 'PY' || fail "--stats of $stats"
import json, sys
stats = json.load(open(sys.argv[1]))
ranks = stats["ranks"]
vertices = sum(r["vertices_owned"] for r in ranks)
outside = []
for r in ranks:
    for step in r["steps"]:
        assert step["bytes_received"] == step["predicted_bytes_received"], (r["rank"], step)
    assert 0 < r["mirrors"] <= vertices - r["vertices_owned"], r
    assert abs(r["mirror_fraction"] - r["mirrors"] / (vertices - r["vertices_owned"])) < 1e-9, r
    outside.append(r["bytes_received"] - sum(step["bytes_received"] for step in r["steps"]))
if "pagerank" in sys.argv[1]:
    assert outside[0] >= 8 * (vertices - ranks[0]["vertices_owned"]), outside
    assert all(o < 8 * (vertices - r["vertices_owned"]) for o, r in zip(outside[1:], ranks[1:])), outside
PY
done

echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
