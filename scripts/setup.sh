#!/usr/bin/env bash
# Installs what shardgraph needs to build, test and benchmark (Debian/Ubuntu).
# Idempotent: does nothing when every package is already installed.
set -euo pipefail

packages=(g++ cmake ninja-build pkg-config libtbb-dev liburing-dev libcli11-dev doctest-dev
          nlohmann-json3-dev libxxhash-dev zlib1g-dev libzstd-dev python3 fio)

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
