#!/usr/bin/env bash
# Distributed runs (docs/scale-out.md): a graph partitioned in N
# parts, each on its own emulated disk, run by mpirun -np N with --memory
# MEM_PER_RANK each, side by side with one process over the same graph
# striped over the same disks with N x MEM_PER_RANK. Inside the disk
# emulator's cgroup (CGROUP_MB for the whole job). One JSON record per run:
# wall seconds, bytes read per rank, bytes exchanged per rank, per step and
# per iteration, and the exchange the formula of docs/scale-out.md
# predicts from each step's active vertices.
#   bench/distributed.sh PARTITIONED_DIR SINGLE_GRAPH MEM_PER_RANK CGROUP_MB "APPS" [ROUNDS]
# e.g. bench/distributed.sh g22p2 g22two 128M 512 "pagerank bfs wcc" 2
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
parted=$1; single=$2; mem=$3; cgroup_mb=$4; apps=$5; rounds=${6:-1}
emudisk=${EMUDISK:-$root/../shared/tools/emudisk.sh}
sg=${SG_BIN:-$root/build/shardgraph}
ranks=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['parts']))" "$parted/partition.json")
mem_bytes=$(numfmt --from=iec "$mem")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
record() {  # app mode round stats
  python3 - "$@" "$ranks" <<'PY'
import json, sys
app, mode, rnd, stats, wall, ranks = sys.argv[1:7]
s = json.load(open(stats))
# Bytes of source state a vertex sends (docs/scale-out.md): PageRank its
# float contribution, WCC its label, BFS none (depths stay with their owners).
source_bytes = {"pagerank": 4, "wcc": 4, "bfs": 0}[app]
out = {"bench": "distributed", "app": app, "mode": mode, "round": int(rnd), "ranks": int(ranks) if mode == "mpi" else 1,
       "wall_seconds": float(wall), "run_seconds": s["seconds"], "bytes_read": s["bytes_read"]}
if "ranks" in s:
    rs = s["ranks"]
    out["per_rank"] = [{k: r[k] for k in ("rank", "vertices_owned", "arcs", "seconds", "bytes_read", "bytes_sent", "bytes_received",
                                        "exchange_seconds", "peak_rss_bytes")} for r in rs]
    n = s["vertices"]
    bounds = [0]
    for r in rs: bounds.append(bounds[-1] + r["vertices_owned"])
    steps = []
    for i in range(len(rs[0]["steps"])):
        predicted = []
        for k in range(len(rs)):
            p = 0
            for r in range(len(rs)):
                if r == k: continue
                st = rs[r]["steps"][i]
                words = (bounds[r + 1] + 63) // 64 - bounds[r] // 64
                # No source values when every mirror is current (an all-active
                # share and no vertex map since: WCC's reversed step).
                sent = 0 if st.get("sources_current") else st["active_owned"] * source_bytes
                p += sent + min(4 * st["next_owned"], 8 * words)
            predicted.append(p)
        steps.append({"iteration": rs[0]["steps"][i]["iteration"], "active": rs[0]["steps"][i]["active_vertices"],
                      "received": [r["steps"][i]["bytes_received"] for r in rs], "predicted": predicted,
                      "bytes_read": [r["steps"][i]["bytes_read"] for r in rs]})
    out["steps"] = steps
    iterations = {}
    for st in steps:
        it = iterations.setdefault(st["iteration"], {"iteration": st["iteration"], "received": 0, "predicted": 0})
        it["received"] += sum(st["received"]); it["predicted"] += sum(st["predicted"])
    out["per_iteration"] = list(iterations.values())
    out["received_total"] = sum(r["bytes_received"] for r in rs)
    out["received_in_steps"] = sum(sum(st["received"]) for st in steps)
    out["predicted_in_steps"] = sum(sum(st["predicted"]) for st in steps)
print(json.dumps(out), flush=True)
PY
}
run() {  # app mode round command...
  local app=$1 mode=$2 rnd=$3; shift 3
  local start end
  start=$(date +%s.%N)
  "$emudisk" run --mem "$cgroup_mb" -- "$@" > "$tmp/out" 2>&1 || { cat "$tmp/out" >&2; exit 1; }
  end=$(date +%s.%N)
  grep -E '^(bfs from|wcc:|pagerank:|rank )' "$tmp/out" | sed "s/^/# $mode $app: /" >&2 || true
  record "$app" "$mode" "$rnd" "$tmp/stats.json" "$(echo "$end - $start" | bc)"
}
for rnd in $(seq 1 "$rounds"); do
  for app in $apps; do
    extra=()
    [ "$app" = pagerank ] && extra=(--iterations 10)
    run "$app" single "$rnd" "$sg" run "$app" "$single" --memory $((mem_bytes * ranks)) --stats "$tmp/stats.json" "${extra[@]}"
    run "$app" mpi "$rnd" mpirun -np "$ranks" --oversubscribe --bind-to none "$sg" run "$app" "$parted" --memory "$mem" --threads 1 \
      --stats "$tmp/stats.json" "${extra[@]}"
  done
done
