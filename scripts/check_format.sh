#!/usr/bin/env bash
# Checks that every tracked C++ file is as clang-format (.clang-format)
# leaves it; prints the files that are not. Exits 77 (a skip) without
# clang-format 14, whose output the tree follows.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
command -v clang-format >/dev/null || { echo "check_format: no clang-format; skipped" >&2; exit 77; }
clang-format --version | grep -q "version 14\." || { echo "check_format: not clang-format 14; skipped" >&2; exit 77; }
cd "$root"
bad=0
while IFS= read -r file; do
  clang-format --dry-run --Werror "$file" >/dev/null 2>&1 || { echo "not formatted: $file (clang-format -i $file)"; bad=1; }
done < <(git ls-files '*.cc' '*.h' 2>/dev/null || find . -path './build*' -prune -o \( -name '*.cc' -o -name '*.h' \) -print)
exit $bad
