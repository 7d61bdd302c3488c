#!/usr/bin/env bash
# Installs what shardgraph needs to build, test and benchmark (Debian/Ubuntu).
# Idempotent: does nothing when every package is already installed.
set -euo pipefail

packages=(g++ cmake ninja-build pkg-config libtbb-dev liburing-dev libcli11-dev doctest-dev
          nlohmann-json3-dev libxxhash-dev zlib1g-dev libzstd-dev python3 fio)
# --mpi: Open MPI too, for distributed runs and their tests (scripts/test.sh
# asks for it; the single-machine build does not need it).
if [ "${1:-}" = "--mpi" ]; then packages+=(libopenmpi-dev openmpi-bin); fi

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
