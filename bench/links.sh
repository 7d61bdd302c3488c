#!/usr/bin/env bash
# A partitioned graph run over N machines on this host
# (scripts/netns_machines.sh: a network namespace each, links shaped by tc)
# at each link rate, against one process over the whole graph in the same
# round. One JSON record per run: wall and run seconds, and per rank the
# bytes sent and received, the seconds spent in the exchange, and the
# link's floor for what it received (bytes x 8 / rate), the link as the
# rank measured it, and its steps' bytes and seconds against the exchange
# model's (scheduler/exchange_model.h); per iteration, the same summed over
# the ranks. The
# graph is read from the page cache (read it once before), so what changes
# between rates is the network. With LINKS_DISKS=1 the graphs are on
# emulated disks instead (emudisk.sh up; part k on /mnt/emudisk/dK, the
# single graph on its own): the page cache is dropped before each run and
# the one process runs in emudisk's throttle and a memory cgroup of
# MEM_PER_RANK + 64 MiB, as each machine does (LINKS_CGROUP_MIB sets another).
# LINKS_SINGLE=0 leaves the one process out.
#   bench/links.sh PARTITIONED_DIR SINGLE_GRAPH "APPS" "RATES" [MEM_PER_RANK] [ROUNDS]
# e.g. bench/links.sh g20p2 g20 "pagerank bfs wcc" "10gbit 1gbit 100mbit" 256M 2 > bench/results/links.jsonl
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
parted=$1 single=$2 apps=$3 rates=$4 mem=${5:-256M} rounds=${6:-1}
sg=${SG_BIN:-$root/build/shardgraph}
machines=$root/scripts/netns_machines.sh
ranks=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['parts']))" "$parted/partition.json")
mem_bytes=$(numfmt --from=iec "$mem")
disks=${LINKS_DISKS:-0}
emudisk=${EMUDISK:-$root/../shared/tools/emudisk.sh}
machine_mem=$(((mem_bytes >> 20) + 256))
[ "$disks" = 1 ] && machine_mem=$(((mem_bytes >> 20) + 64))
machine_mem=${LINKS_CGROUP_MIB:-$machine_mem}  # each machine's memory cgroup, and the one process's
tmp=$(mktemp -d)
trap '"$machines" down > /dev/null; rm -rf "$tmp"' EXIT

bits_per_second() {  # 10gbit, 1gbit, 100mbit, 500kbit
  local r=${1,,}
  case $r in
    *gbit) echo $((${r%gbit} * 1000000000)) ;;
    *mbit) echo $((${r%mbit} * 1000000)) ;;
    *kbit) echo $((${r%kbit} * 1000)) ;;
    *) echo "rate $1: use gbit, mbit or kbit" >&2; exit 2 ;;
  esac
}

record() {  # app rate round stats wall
  local bits=1
  [ "$2" != one-process ] && bits=$(bits_per_second "$2")
  python3 - "$@" "$bits" "$ranks" << 'PY'
import json, sys
app, rate, rnd, stats, wall, bits, ranks = sys.argv[1:8]
s = json.load(open(stats))
out = {"bench": "links", "app": app, "rate": rate, "round": int(rnd), "ranks": int(ranks) if rate != "one-process" else 1,
       "wall_seconds": float(wall), "run_seconds": s["seconds"], "bytes_read": s["bytes_read"],
       "peak_rss_bytes": s.get("peak_rss_bytes")} | {k: s.get(k) for k in (
       "vertex_state_bytes", "vertex_ranges_peak_bytes", "vertex_state_needed_bytes") if "ranks" not in s}
if "ranks" in s:
    per_rank = []
    for r in s["ranks"]:
        floor = r["bytes_received"] * 8 / float(bits)
        steps = r["steps"]
        per_rank.append({k: r.get(k) for k in ("rank", "seconds", "bytes_read", "io_wait_seconds", "bytes_sent",
                                               "bytes_received", "exchange_seconds", "network", "peak_rss_bytes",
                                               "mirrors", "mirror_fraction", "vertex_state_bytes",
                                               "vertex_ranges_peak_bytes", "vertex_state_needed_bytes",
                                               "vertex_bytes_loaded", "vertex_bytes_written")} |
                        {"link_floor_seconds": round(floor, 6),
                         "steps_received": sum(st["bytes_received"] for st in steps),
                         "steps_predicted": sum(st["predicted_bytes_received"] for st in steps),
                         "steps_exchange_seconds": round(sum(st["exchange_seconds"] for st in steps), 6),
                         "steps_network_seconds": round(sum(st["network_seconds"] for st in steps), 6)})
    out["per_rank"] = per_rank
    iterations = {}
    for r in s["ranks"]:
        for st in r["steps"]:
            it = iterations.setdefault(st["iteration"], {"iteration": st["iteration"], "received": 0, "predicted": 0,
                                                          "exchange_seconds": 0.0, "network_seconds": 0.0})
            it["received"] += st["bytes_received"]
            it["predicted"] += st["predicted_bytes_received"]
            it["exchange_seconds"] = round(it["exchange_seconds"] + st["exchange_seconds"], 6)
            it["network_seconds"] = round(it["network_seconds"] + st["network_seconds"], 6)
    out["per_iteration"] = list(iterations.values())
print(json.dumps(out), flush=True)
PY
}

run() {  # app rate round command...
  local app=$1 rate=$2 rnd=$3 start end
  shift 3
  [ "$disks" = 1 ] && { sync; echo 3 > /proc/sys/vm/drop_caches; }
  start=$(date +%s.%N)
  "$@" > "$tmp/out" 2>&1 || { cat "$tmp/out" >&2; exit 1; }
  end=$(date +%s.%N)
  grep -E '^rank ' "$tmp/out" | sed "s/^/# $rate $app: /" >&2 || true
  record "$app" "$rate" "$rnd" "$tmp/stats.json" "$(echo "$end - $start" | bc)"
}

app_options() {  # app: what its runs add (R-MAT graphs have no weights)
  case $1 in
    pagerank) echo --iterations 10 ;;
    sssp) echo --unit-weights ;;
  esac
}

"$machines" down > /dev/null
for rnd in $(seq 1 "$rounds"); do
  for rate in $rates; do
    "$machines" up "$ranks" --rate "$rate" --mem "$machine_mem" >&2
    for app in $apps; do
      read -ra extra <<< "$(app_options "$app")"
      run "$app" "$rate" "$rnd" "$machines" mpirun "$sg" run "$app" "$parted" --memory "$mem" --threads 1 \
        --stats "$tmp/stats.json" "${extra[@]}"
    done
    "$machines" down > /dev/null
  done
  for app in $apps; do
    [ "${LINKS_SINGLE:-1}" = 0 ] && break  # the ranks alone
    read -ra extra <<< "$(app_options "$app")"
    wrap=()
    [ "$disks" = 1 ] && wrap=("$emudisk" run --mem "$machine_mem" --no-drop --)
    run "$app" one-process "$rnd" "${wrap[@]}" "$sg" run "$app" "$single" --memory "$mem" --stats "$tmp/stats.json" \
      "${extra[@]}"
  done
done
