#!/usr/bin/env bash
# Installs what shardgraph needs to build, test and benchmark (Debian/Ubuntu).
# Idempotent: does nothing when every package is already installed.
set -euo pipefail

packages=(g++ cmake ninja-build pkg-config libtbb-dev liburing-dev libcli11-dev doctest-dev
          nlohmann-json3-dev libxxhash-dev libstreamvbyte-dev libhtscodecs-dev zlib1g-dev libzstd-dev python3 fio)
# --mpi: Open MPI too, for distributed runs and their tests; --format:
# clang-format, for the format check (scripts/test.sh asks for both; the
# single-machine build needs neither); --python: what the Python package
# needs to build in a virtual environment, and chromium for its report test;
# --ccache: the compiler cache scripts/test.sh shares between two builds.
for flag in "$@"; do
  case $flag in
    --mpi) packages+=(libopenmpi-dev openmpi-bin) ;;
    --format) packages+=(clang-format) ;;
    --python) packages+=(python3-venv python3-dev python3-pip chromium) ;;
    --ccache) packages+=(ccache) ;;
    *) echo "setup.sh: unknown flag $flag (--mpi, --format, --python, --ccache)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "setup: installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
