# Shared by the update benchmarks (sourced): random update files and a timer.

# update_files DIR VERTICES PER_UPDATE UPDATES: DIR/u<i>.bin32, each
# PER_UPDATE uniform random pairs of ids below VERTICES (seed 7).
update_files() {
  python3 - "$@" <<'PY'
import array, os, random, sys
tmp, n, count, updates = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
random.seed(7)
for i in range(updates):
    with open(os.path.join(tmp, "u%d.bin32" % i), "wb") as f:
        array.array("I", (random.randrange(n) for _ in range(2 * count))).tofile(f)
PY
}

# timed OUT COMMAND...: runs it (its output to OUT; on failure shown, and
# the script exits) and prints its wall seconds.
timed() {
  local out=$1; shift
  local start end
  start=$(date +%s.%N)
  "$@" >"$out" 2>&1 || { cat "$out" >&2; exit 1; }
  end=$(date +%s.%N)
  python3 -c "print(float('$end') - float('$start'))"
}
