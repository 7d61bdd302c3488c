#!/usr/bin/env bash
# A distributed run over two machines made of network namespaces
# (scripts/netns_machines.sh: own hostname, a shaped veth link, own memory
# cgroup), Open MPI over TCP between them: BFS, WCC and PageRank on a
# partitioned R-MAT graph equal one process's, each rank ran on its own
# machine, and each sent and received bytes over the link, each step the
# bytes the exchange model predicts (scheduler/exchange_model.h). Then a link
# taken down mid-run ends the job, every rank on both machines, within 10
# s (the daemons' keepalives to mpirun). Skips (77) where
# the host cannot make namespaces (not root, no iproute2) or has no mpirun.
#
# Usage: run_machines.sh SHARDGRAPH_BINARY [WORK_DIR]
set -euo pipefail
SG=$(realpath "$1")
WORK=${2:-$(mktemp -d)}
HERE=$(cd "$(dirname "$0")" && pwd)
MACHINES=$HERE/../../scripts/netns_machines.sh
export NETNS_MACHINES_NAME=sgtest NETNS_MACHINES_SUBNET=10.78.0
command -v mpirun > /dev/null || { echo "SKIP: no mpirun (install openmpi-bin)"; exit 77; }
"$MACHINES" check || exit 77
mkdir -p "$WORK"
cd "$WORK"
rm -rf ./*
"$MACHINES" down > /dev/null
trap '"$MACHINES" down > /dev/null' EXIT
"$MACHINES" up 2 --rate 1gbit --delay 200us --mem 256

"$SG" generate rmat --scale 12 -o r12.bin32 > /dev/null
"$SG" ingest r12.bin32 -o g --memory 64M > /dev/null 2>&1
mkdir disk0 disk1
"$SG" partition g --parts 2 -o p --device 0:disk0 --device 1:disk1 > /dev/null 2>&1

fail() { echo "FAIL: $*"; exit 1; }
hosts=$("$MACHINES" mpirun hostname | sort | tr '\n' ' ')
[ "$hosts" = "sgtest0 sgtest1 " ] || fail "ranks ran on '$hosts', not on sgtest0 and sgtest1"
for app in "bfs --parents" wcc "pagerank --iterations 5"; do
  name=${app%% *}
  # shellcheck disable=SC2086
  "$SG" run $app g --memory 64M --output "one-$name.txt" > /dev/null 2>&1
  # shellcheck disable=SC2086
  "$MACHINES" mpirun "$SG" run $app p --memory 64M --output "two-$name.txt" --stats "$name.json" > /dev/null 2>&1 ||
    fail "$name over two machines failed"
  sort "one-$name.txt" > a.txt
  sort "two-$name.txt" > b.txt
  if [ "$name" = pagerank ]; then
    paste -d' ' a.txt b.txt | awk '$1 != $3 { exit 1 } { d = $2 - $4; if (d < 0) d = -d; m = $2 < 0 ? -$2 : $2;
      if (d > 1e-9 * m && d > 1e-300) exit 1 }' || fail "$name: ranks differ from one process's"
  else
    cmp -s a.txt b.txt || fail "$name: results differ from one process's"
  fi
  python3 - "$name.json" << 'PY' || fail "$name: a rank moved no bytes, or not the bytes the exchange model predicts"
import json, sys
ranks = json.load(open(sys.argv[1]))["ranks"]
assert len(ranks) == 2 and all(r["bytes_sent"] > 0 and r["bytes_received"] > 0 for r in ranks), ranks
# The exchange model predicts every step's bytes exactly, and the link was measured.
for r in ranks:
    assert r["network"]["bytes_per_second"] > 0 and r["network"]["latency_seconds"] > 0, r["network"]
    for step in r["steps"]:
        assert step["bytes_received"] == step["predicted_bytes_received"], step
        assert step["network_seconds"] > 0, step
PY
  echo "ok: $name over two machines equals one process ($(wc -l < a.txt) vertices)"
done

# A link taken down mid-run: mpirun ends the job, both machines' ranks
# included, within 10 s. 200 iterations at this size take far longer.
start_run=$(date +%s)
"$MACHINES" mpirun "$SG" run pagerank p --memory 64M --iterations 100000 --tolerance 0 > down.log 2>&1 &
job=$!
sleep 2
kill -0 "$job" 2> /dev/null || { cat down.log; fail "the long run ended before its link went down"; }
"$MACHINES" link 1 down
down_at=$(date +%s)
for _ in $(seq 1 30); do kill -0 "$job" 2> /dev/null || break; sleep 0.5; done
if kill -0 "$job" 2> /dev/null; then
  fail "the job still runs 15 s after machine 1's link went down"
fi
wait "$job" && fail "the job exited 0 although a link went down"
ended=$(($(date +%s) - down_at))
[ "$ended" -le 10 ] || fail "the job took $ended s to end after the link went down"
grep -q "lost communication with a remote daemon" down.log || { cat down.log; fail "no word of the lost machine"; }
# The cut-off machine's daemon learns of the loss only on its own keepalive
# timeout (about 5 s), so give it up to 15 s to end its rank before checking.
for ns in sgtest0 sgtest1; do
  for _ in $(seq 1 30); do [ -z "$(ip netns pids "$ns")" ] && break; sleep 0.5; done
  [ -z "$(ip netns pids "$ns")" ] || fail "processes left on $ns 15 s after the job ended"
done
echo "ok: a link down ended the job in $ended s (run started $((down_at - start_run)) s before), no rank left"
