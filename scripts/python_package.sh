#!/usr/bin/env bash
# Builds the Python package (pyproject.toml: scikit-build-core, nanobind)
# into a virtual environment and, with --test, runs its pytest suite.
#   scripts/python_package.sh [--test] [VENV_DIR]   (default: build-venv/)
# The environment gets the build requirements and the test extras from PyPI;
# the package installs `import shardgraph` and the `shardgraph` command.
# SHARDGRAPH_PYTHON_CMAKE_DEFINES="NAME=VALUE ..." adds CMake definitions
# (scripts/test.sh passes its compiler and ccache this way).
# Prints a line per phase and the build's progress every tenth of the way.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
run_tests=0
if [ "${1:-}" = --test ]; then run_tests=1; shift; fi
venv=${1:-$root/build-venv}
say() { echo "python: $*" >&2; }

"$root/scripts/setup.sh" --python
if [ ! -x "$venv/bin/python" ]; then
  say "creating the virtual environment $venv"
  python3 -m venv "$venv"
fi
say "installing the build and test requirements from PyPI"
"$venv/bin/pip" install -q --disable-pip-version-check "scikit-build-core>=0.10" "nanobind>=2.0" "numpy>=1.21" \
  "tqdm>=4.60" "pytest>=7" "pandas>=1.3" "matplotlib>=3.5" "networkx>=2.8" "scipy>=1.8"

say "building and installing the package (about 3 minutes on 2 cores)"
log=$(mktemp); trap 'rm -f "$log"' EXIT
# Warnings are errors, as in every other build here.
defines=(-C cmake.define.SHARDGRAPH_WERROR=ON)
for d in ${SHARDGRAPH_PYTHON_CMAKE_DEFINES:-}; do defines+=(-C "cmake.define.$d"); done
if ! "$venv/bin/pip" install -v --no-build-isolation --disable-pip-version-check \
    "${defines[@]}" "$root" 2>&1 | tee "$log" |
    awk -F'[][/]' '/^ *\[[0-9]+\/[0-9]+\]/ { p = int(10 * $2 / $3); if (p > last) { last = p; printf "python: build %d%% (%d of %d steps)\n", 10 * p, $2, $3 > "/dev/stderr" } }'; then
  tail -n 60 "$log" >&2
  exit 1
fi
"$venv/bin/python" -c 'import shardgraph; print("python: installed", shardgraph.version())' >&2

if [ "$run_tests" = 1 ]; then
  say "running the pytest suite (python/tests)"
  cd "$root" && "$venv/bin/python" -m pytest -q -p no:cacheprovider python/tests
fi
