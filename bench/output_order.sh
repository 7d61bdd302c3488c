#!/usr/bin/env bash
# Every app's --output at several budgets must be the same file (cmp, not
# sort | cmp): results come in original-id order whatever the budget. Prints
# one JSON line per app with each budget's seconds and peak RSS.
#   bench/output_order.sh GRAPH [MEMORIES] [APPS]   (default "32M 64M 1G", every app)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
graph=$1; memories=${2:-32M 64M 1G}
apps=${3:-pagerank pagerank-delta spmv bfs wcc sssp kcore betweenness cdlp lcc}
sg=${SG_BIN:-$root/build/shardgraph}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
differ=0
for app in $apps; do
  extra=""
  [ "$app" = sssp ] && extra="--unit-weights"
  [ "$app" = betweenness ] && extra="--threads 1"  # its path counts add in thread order
  first=""; runs=""
  for mem in $memories; do
    # shellcheck disable=SC2086
    /usr/bin/time -f "%e %M" -o "$tmp/time" "$sg" run "$app" "$graph" --memory "$mem" $extra --output "$tmp/$mem.out" >/dev/null 2>"$tmp/err" ||
      { cat "$tmp/err" >&2; exit 1; }
    read -r seconds rss_kib < "$tmp/time"
    same=true
    if [ -z "$first" ]; then first=$mem; elif ! cmp -s "$tmp/$first.out" "$tmp/$mem.out"; then same=false; differ=1; fi
    runs+="${runs:+,}{\"memory\":\"$mem\",\"seconds\":$seconds,\"peak_rss_kib\":$rss_kib,\"same_as_$first\":$same}"
  done
  echo "{\"bench\":\"output-order\",\"app\":\"$app\",\"graph\":\"$graph\",\"runs\":[$runs]}"
done
exit $differ
