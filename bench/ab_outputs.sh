#!/usr/bin/env bash
# A/B check of results: every app's --output from two builds, byte for byte
# (cmp), on every graph of ../shared/datasets, in each --io mode. For
# changes that must not change results (refactors, codecs): build the
# previous commit outside the tree and pass its binary as OLD.
#   bench/ab_outputs.sh OLD_BIN NEW_BIN [WORKDIR] [MEMORIES]   (default "64M 16M":
#   the second keeps the larger graphs partly out of the chunk cache)
# Prints one JSON line per dataset and app; exits 1 if any output differs.
# The graph is ingested by NEW_BIN (or by OLD_BIN when SG_INGEST_WITH=old;
# with SG_INGEST_WITH=each, each build ingests its own copy and runs on it:
# for changes to ingest, whose results must not change either).
# SG_DATASETS_LIST replaces bench/datasets.list (lines name|file|options; a
# file with a leading / is taken as it is, e.g. a generated R-MAT input).
# Betweenness runs on one thread: its push steps add path counts with atomic
# float adds in thread order, so with two threads even one binary's runs
# differ in the last bits. SSSP takes --unit-weights on unweighted graphs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
old=${1:?OLD_BIN}; new=${2:?NEW_BIN}
work=${3:-$(mktemp -d)}; memories=${4:-64M 16M}
data="$root/../shared/datasets"
[ -d "$data" ] || { echo "no datasets at $data; skipped" >&2; exit 0; }
mkdir -p "$work"
ingest_with=${SG_INGEST_WITH:-new}
list=${SG_DATASETS_LIST:-$root/bench/datasets.list}
graph_of() {  # side -> the graph that side runs on
  if [ "$ingest_with" = each ]; then echo "$work/$name.$1"; else echo "$work/$name"; fi
}
apps="pagerank pagerank-delta spmv bfs wcc sssp kcore betweenness cdlp lcc triangles"
differ=0
while IFS='|' read -r name file opts; do
  input=$data/$name/$file
  [ "${file#/}" != "$file" ] && input=$file
  [ -f "$input" ] || { echo "missing $input; skipped" >&2; continue; }
  echo "== $name" >&2
  rm -rf "$work/$name" "$work/$name.old" "$work/$name.new"
  for side in old new; do
    bin=$old; [ $side = new ] && bin=$new
    [ "$ingest_with" = each ] || { [ "$ingest_with" = $side ] || continue; }
    # shellcheck disable=SC2086
    "$bin" ingest "$input" -o "$(graph_of $side)" --memory 256M $opts >/dev/null 2>&1
  done
  weighted=$("$new" info --json "$(graph_of new)" | python3 -c 'import json,sys; print(int(json.load(sys.stdin)["weighted"]))')
  for mem in $memories; do
  for app in $apps; do
    if [ "$app" = triangles ] && [[ " $opts " != *" --undirected "* ]]; then continue; fi
    extra=""
    [ "$app" = betweenness ] && extra="--threads 1"
    [ "$app" = sssp ] && [ "$weighted" = 0 ] && extra="--unit-weights"
    same=0; runs=0; refused=0
    for io in auto full selective; do
      for side in old new; do
        bin=$old; [ $side = new ] && bin=$new
        rm -f "$work/$side.out"
        # shellcheck disable=SC2086
        "$bin" run "$app" "$(graph_of $side)" --memory "$mem" --io "$io" --output "$work/$side.out" $extra \
          >/dev/null 2>"$work/$side.err" && echo 0 >"$work/$side.rc" || echo $? >"$work/$side.rc"
        grep -h 'error' "$work/$side.err" >>"$work/$side.rc" || true
      done
      runs=$((runs + 1))
      [ "$(head -1 "$work/new.rc")" != 0 ] && refused=$((refused + 1))
      # The same result, or the same refusal (e.g. a budget below a graph's least).
      if cmp -s "$work/old.rc" "$work/new.rc" && { [ "$(head -1 "$work/old.rc")" != 0 ] || cmp -s "$work/old.out" "$work/new.out"; }; then
        same=$((same + 1))
      else
        echo "DIFFERS: $app on $name --memory $mem --io $io" >&2; differ=1
      fi
    done
    printf '{"bench":"ab-outputs","dataset":"%s","app":"%s","io_modes":%d,"identical":%d,"refused_by_both":%d,"memory":"%s"}\n' \
      "$name" "$app" "$runs" "$same" "$refused" "$mem"
  done
  done
  rm -rf "$work/$name" "$work/$name.old" "$work/$name.new"
done < <(grep -v '^#' "$list")
exit $differ
