#!/usr/bin/env bash
# kill -9 at random moments of updates and compactions: an R-MAT graph of
# SCALE takes ROUNDS writers, each an update (adding 2 % of its edges and
# removing 500) or, once updates are pending, a compaction, each killed
# with SIGKILL after a random delay (up to the writer's own time, measured
# first). After each kill the graph must verify and be the state before the
# writer or the one it commits: the same manifest as before, or the next
# generation (an update), or no updates pending (a compaction). One JSON
# line a round; exits 1 on any other state.
#   bench/kill_writers.sh BIN [SCALE] [ROUNDS] [WORK_DIR]
set -euo pipefail
bin=$1; scale=${2:-20}; rounds=${3:-100}
work=${4:-$(mktemp -d)}
mkdir -p "$work"; cd "$work"
g=$work/g
"$bin" generate rmat --scale "$scale" -o rmat.bin32 >/dev/null
"$bin" ingest rmat.bin32 -o "$g" --memory 256M >/dev/null 2>&1
edges=$(python3 -c "import json; print(json.load(open('$g/manifest.json'))['num_edges'])")
vertices=$(python3 -c "import json; print(json.load(open('$g/manifest.json'))['num_vertices'])")
python3 - "$vertices" "$edges" <<'PY'
import array, random, sys
n, m = int(sys.argv[1]), int(sys.argv[2])
random.seed(9)
with open("add.bin32", "wb") as f:
    array.array("I", (random.randrange(n) for _ in range(2 * (m // 50)))).tofile(f)
with open("remove.txt", "w") as f:
    for _ in range(500):
        f.write("%d %d\n" % (random.randrange(n), random.randrange(n)))
PY
update=("$bin" update "$g" --add add.bin32 --remove remove.txt --no-compact --memory 256M)
compact=("$bin" compact "$g" --memory 256M)
timed() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(((e - s) / 1000000)); }
# The writers' own times, on a copy.
cp -r "$g" base
update_ms=$(timed "${update[@]}")
compact_ms=$(timed "${compact[@]}")
rm -rf "$g"; mv base "$g"
# `field updates`: the updates pending (a tier holds several).
field() { python3 -c "import json,sys; m=json.load(open('$g/manifest.json')); print(m.get(sys.argv[1], 0) if sys.argv[1] != 'updates' else sum(d.get('updates', 1) for d in m.get('deltas', [])))" "$1"; }
failures=0
for round in $(seq 1 "$rounds"); do
  # Three updates pending: one compaction runs to its end first, so that
  # updates and compactions take turns being killed.
  [ "$(field updates)" -ge 3 ] && "${compact[@]}" >/dev/null 2>&1
  pending=$(field updates)
  writer=update; cmd=("${update[@]}"); limit=$update_ms
  if [ "$pending" -gt 0 ] && [ $((RANDOM % 2)) = 0 ]; then writer=compact; cmd=("${compact[@]}"); limit=$compact_ms; fi
  before=$(sha256sum "$g/manifest.json" | cut -c1-64)
  generation=$(field generation)
  delay_ms=$((RANDOM * limit / 32768))
  "${cmd[@]}" >/dev/null 2>&1 & pid=$!
  sleep "$((delay_ms / 1000)).$(printf %03d $((delay_ms % 1000)))"
  kill -9 $pid 2>/dev/null || true
  wait $pid 2>/dev/null || true
  "$bin" gc "$work" >/dev/null 2>&1 || true
  state=other
  if "$bin" verify "$g" >/dev/null 2>&1; then
    if [ "$(sha256sum "$g/manifest.json" | cut -c1-64)" = "$before" ]; then state=old
    elif [ $writer = update ] && [ "$(field generation)" = $((generation + 1)) ]; then state=new
    elif [ $writer = compact ] && [ "$(field updates)" = 0 ]; then state=new
    fi
  fi
  echo "{\"bench\":\"kill_writers\",\"scale\":$scale,\"round\":$round,\"writer\":\"$writer\",\"pending_before\":$pending,\"killed_after_ms\":$delay_ms,\"writer_ms\":$limit,\"state\":\"$state\"}"
  [ $state = other ] && failures=$((failures + 1))
done
[ $failures = 0 ]
