#!/usr/bin/env bash
# Emulates a low-memory machine with an array of slow disks, for benchmarks:
# N loop-backed ext4 file systems (sparse files under /var/tmp/sg-array),
# each read-throttled by a cgroup-v1 blkio cgroup, and a memory cgroup that
# caps the benchmarked process (RSS + page cache). Needs root, cgroup v1
# (blkio, memory), losetup and mkfs.ext4.
#
#   scripts/emulate_array.sh up N SIZE_GB [--mbps 150] [--iops 300]
#       disks at /mnt/sg-array/d0 .. d{N-1}
#   scripts/emulate_array.sh run [--mem MB] -- CMD...
#       runs CMD throttled (and memory-capped); drops the page cache first
#   scripts/emulate_array.sh down
set -euo pipefail

base=/var/tmp/sg-array
mnt=/mnt/sg-array
blkio=/sys/fs/cgroup/blkio/sg-array
memcg=/sys/fs/cgroup/memory/sg-array

die() { echo "emulate_array: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "must run as root"

up() {
  local n=$1 size=$2 mbps=150 iops=300
  shift 2
  while [ $# -gt 0 ]; do
    case $1 in
      --mbps) mbps=$2; shift 2 ;;
      --iops) iops=$2; shift 2 ;;
      *) die "unknown option $1" ;;
    esac
  done
  [ -d /sys/fs/cgroup/blkio ] || die "no cgroup v1 blkio controller here"
  [ ! -e "$base/devices" ] || die "already up (run 'down' first)"
  mkdir -p "$base" "$mnt" "$blkio"
  : > "$base/devices"
  for ((i = 0; i < n; i++)); do
    truncate -s "${size}G" "$base/d$i.img"
    mkfs.ext4 -q -F "$base/d$i.img"
    local loop
    loop=$(losetup --direct-io=on -f --show "$base/d$i.img")
    mkdir -p "$mnt/d$i"
    mount "$loop" "$mnt/d$i"
    local majmin
    majmin=$(cat "/sys/block/${loop#/dev/}/dev")
    echo "$majmin $((mbps * 1000000))" > "$blkio/blkio.throttle.read_bps_device"
    echo "$majmin $iops" > "$blkio/blkio.throttle.read_iops_device"
    echo "$loop $mnt/d$i" >> "$base/devices"
  done
  echo "emulate_array: $n disk(s) of ${size} GiB at $mnt/d*, ${mbps} MB/s and ${iops} IOPS each" >&2
}

run() {
  local mem=""
  while [ $# -gt 0 ]; do
    case $1 in
      --mem) mem=$2; shift 2 ;;
      --) shift; break ;;
      *) break ;;
    esac
  done
  [ -e "$base/devices" ] || die "not up"
  sync
  echo 3 > /proc/sys/vm/drop_caches  # nothing cached earlier is served for free
  if [ -n "$mem" ]; then
    mkdir -p "$memcg"
    echo $((mem * 1024 * 1024)) > "$memcg/memory.limit_in_bytes"
  fi
  # The subshell joins the cgroups, then becomes the command.
  (
    echo $BASHPID > "$blkio/tasks"
    [ -z "$mem" ] || echo $BASHPID > "$memcg/tasks"
    exec "$@"
  )
}

down() {
  if [ -e "$base/devices" ]; then
    while read -r loop dir; do
      umount "$dir" 2>/dev/null || true
      losetup -d "$loop" 2>/dev/null || true
    done < "$base/devices"
  fi
  rmdir "$memcg" 2>/dev/null || true
  rmdir "$blkio" 2>/dev/null || true
  rm -rf "$base" "$mnt"
}

cmd=${1:-}
shift || true
case $cmd in
  up) [ $# -ge 2 ] || die "usage: up N SIZE_GB [--mbps M] [--iops I]"; up "$@" ;;
  run) run "$@" ;;
  down) down ;;
  *) die "usage: up | run | down (see the top of this file)" ;;
esac
