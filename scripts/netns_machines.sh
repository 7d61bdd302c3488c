#!/usr/bin/env bash
# Machines on one host, for MPI runs: each is a network namespace with its
# own hostname, a veth link to a bridge shaped by tc, its own memory
# cgroup, and its own disk (/mnt/emudisk/dK when emudisk.sh is up:
# machine K's processes join its blkio throttle). Open MPI's TCP transport
# runs over the links; mpirun starts each machine's daemon through this
# script (plm_rsh_agent) instead of ssh. Needs root.
#
#   netns_machines.sh up N [--rate 10gbit] [--delay 50us] [--mem MIB]
#   netns_machines.sh mpirun [mpirun options] PROGRAM ARGS...   (one rank a machine)
#   netns_machines.sh link K down|up   (machine K's link, for failure tests)
#   netns_machines.sh status | down
#   netns_machines.sh check      exit 0 if this host can make machines, 77 if not (says why)
#
# NETNS_MACHINES_NAME (default sgm) names the namespaces and
# NETNS_MACHINES_SUBNET (default 10.77.0) their /24.
#
# The delay needs tc's netem; a kernel without it (no sch_netem) gets the
# rate alone, and `up` says so. On a real cluster, the same run is
# `mpirun --hostfile HOSTS -np N ...` or Slurm's `srun -n N ...`
# (docs/scale-out.md).
set -euo pipefail

# NETNS_MACHINES_NAME and _SUBNET let two sets live side by side (the tests
# use their own).
PREFIX=${NETNS_MACHINES_NAME:-sgm}  # namespaces sgm0.., veths sgm0h (host side)
SUBNET=${NETNS_MACHINES_SUBNET:-10.77.0}
STATE=/run/sg-netns-$PREFIX
BRIDGE=${PREFIX}br
MEMCG_ROOT=/sys/fs/cgroup/memory
BLKCG=${EMUDISK_BLKCG:-/sys/fs/cgroup/blkio/emudisk}
MAX_MACHINES=32

die() { echo "netns_machines: $*" >&2; exit 1; }
machine_ip() { echo "$SUBNET.$((11 + $1))"; }

# Whether this host can make namespaces, veths and a bridge (and is root).
check() {
  [ "$(id -u)" = 0 ] || { echo "needs root"; return 77; }
  command -v ip > /dev/null && command -v tc > /dev/null || { echo "needs ip and tc (iproute2)"; return 77; }
  ip netns add sgm-check 2> /dev/null || { echo "cannot make network namespaces"; return 77; }
  ip netns del sgm-check
  ip link add sgm-check type bridge 2> /dev/null || { echo "cannot make a bridge"; return 77; }
  ip link del sgm-check
  return 0
}

has_netem() {
  tc qdisc add dev lo root netem delay 0ms 2> /dev/null || return 1
  tc qdisc del dev lo root
}

# shape DEV RATE DELAY: egress of DEV at RATE, after DELAY when netem exists.
shape() {
  local dev=$1 rate=$2 delay=$3
  if [ "$(cat "$STATE/netem")" = yes ]; then
    tc qdisc add dev "$dev" root netem delay "$delay" rate "$rate" limit 100000
  else
    # A token bucket: RATE, with about 1 ms of burst and 50 ms of queue.
    tc qdisc add dev "$dev" root tbf rate "$rate" burst 256kb latency 50ms
  fi
}

up() {
  local n=$1 rate=10gbit delay=50us mem=0
  shift
  while [ $# -gt 0 ]; do
    case $1 in
      --rate) rate=$2; shift 2 ;;
      --delay) delay=$2; shift 2 ;;
      --mem) mem=$2; shift 2 ;;
      *) die "unknown option $1" ;;
    esac
  done
  [[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le $MAX_MACHINES ] || die "N must be 1 to $MAX_MACHINES"
  [ -e "$STATE" ] && die "machines are up already ($STATE); run down first"
  check > /dev/null || die "this host cannot make machines: $(check)"
  mkdir -p "$STATE"
  if has_netem; then echo yes > "$STATE/netem"; else echo no > "$STATE/netem"; fi
  printf '%s\n' "$n" > "$STATE/count"
  printf 'rate %s delay %s mem_mib %s netem %s\n' "$rate" "$delay" "$mem" "$(cat "$STATE/netem")" > "$STATE/links"
  ip link add "$BRIDGE" type bridge
  ip addr add "$SUBNET.1/24" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  : > "$STATE/hostfile"
  for ((k = 0; k < n; ++k)); do
    ip netns add "$PREFIX$k"
    ip link add "$PREFIX${k}h" type veth peer name eth0 netns "$PREFIX$k"
    ip link set "$PREFIX${k}h" master "$BRIDGE" up
    ip -n "$PREFIX$k" addr add "$(machine_ip "$k")/24" dev eth0
    ip -n "$PREFIX$k" link set eth0 up
    ip -n "$PREFIX$k" link set lo up
    shape "$PREFIX${k}h" "$rate" "$delay"
    ip netns exec "$PREFIX$k" bash -c "$(declare -f shape); STATE=$STATE; shape eth0 $rate $delay"
    if [ "$mem" != 0 ]; then
      mkdir -p "$MEMCG_ROOT/$PREFIX$k"
      echo $((mem << 20)) > "$MEMCG_ROOT/$PREFIX$k/memory.limit_in_bytes"
    fi
    echo "$(machine_ip "$k") slots=1" >> "$STATE/hostfile"
  done
  echo "$n machines up: $SUBNET.11.. over $BRIDGE, links $rate$([ "$(cat "$STATE/netem")" = yes ] && echo " + $delay" ||
    echo " (no netem in this kernel: rate only, no added delay)")$([ "$mem" != 0 ] && echo ", $mem MiB each")"
}

down() {
  local n=0
  [ -f "$STATE/count" ] && n=$(cat "$STATE/count")
  for ((k = 0; k < MAX_MACHINES; ++k)); do
    ip netns pids "$PREFIX$k" 2> /dev/null | xargs -r kill -9 2> /dev/null || true
    ip netns del "$PREFIX$k" 2> /dev/null || true
    ip link del "$PREFIX${k}h" 2> /dev/null || true
    if [ -d "$MEMCG_ROOT/$PREFIX$k" ]; then
      while read -r pid; do echo "$pid" > "$MEMCG_ROOT/cgroup.procs" 2> /dev/null || true; done \
        < "$MEMCG_ROOT/$PREFIX$k/cgroup.procs"
      rmdir "$MEMCG_ROOT/$PREFIX$k" 2> /dev/null || true
    fi
  done
  ip link del "$BRIDGE" 2> /dev/null || true
  rm -rf "$STATE"
  echo "machines down ($n were up)"
}

status() {
  [ -f "$STATE/count" ] || { echo "no machines up"; return 0; }
  echo "$(cat "$STATE/count") machines: $(cat "$STATE/links")"
  for ((k = 0; k < $(cat "$STATE/count"); ++k)); do
    echo "  $PREFIX$k $(machine_ip "$k"): $(tc qdisc show dev "$PREFIX${k}h" | head -1)"
  done
}

# mpirun's remote shell (plm_rsh_agent): "agent [ssh options] HOST COMMAND...".
# Runs COMMAND in HOST's namespace, under its own hostname, in its memory
# cgroup and, when emudisk is up, in the disks' blkio throttle.
agent() {
  while [ $# -gt 0 ] && [[ $1 == -* ]]; do shift; done
  local host=$1 k
  shift
  k=$(( ${host##*.} - 11 ))
  [ "$k" -ge 0 ] && ip netns list | grep -qw "$PREFIX$k" || die "no machine $host"
  [ -d "$MEMCG_ROOT/$PREFIX$k" ] && echo $$ > "$MEMCG_ROOT/$PREFIX$k/cgroup.procs"
  [ -d "$BLKCG" ] && echo $$ > "$BLKCG/cgroup.procs"
  exec ip netns exec "$PREFIX$k" unshare --uts bash -c "hostname $PREFIX$k && exec $*"
}

run_mpirun() {
  [ -f "$STATE/count" ] || die "no machines up (run: $0 up N)"
  local n
  n=$(cat "$STATE/count")
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  # TCP between machines only; the daemons reach mpirun over the bridge.
  # A machine whose link goes down is seen by its daemon's connection to
  # mpirun: keepalives after 2 s idle, 1 s apart, 3 missed, so the job ends
  # about 5 s after (Open MPI's default waits 300 s before the first probe).
  exec mpirun --hostfile "$STATE/hostfile" -np "$n" --bind-to none \
    --mca plm_rsh_agent "$(realpath "$0") agent" --mca plm_rsh_no_tree_spawn 1 \
    --mca btl self,tcp --mca btl_tcp_if_include "$SUBNET.0/24" --mca oob_tcp_if_include "$SUBNET.0/24" \
    --mca oob_tcp_keepalive_time 2 --mca oob_tcp_keepalive_intvl 1 --mca oob_tcp_keepalive_probes 3 "$@"
}

case ${1:-} in
  up) shift; [ $# -ge 1 ] || die "usage: up N [--rate R] [--delay D] [--mem MIB]"; up "$@" ;;
  down) down ;;
  status) status ;;
  link)
    [ $# -eq 3 ] && [[ $2 =~ ^[0-9]+$ ]] && [[ $3 =~ ^(up|down)$ ]] || die "usage: link K down|up"
    ip link set "$PREFIX${2}h" "$3" ;;
  check) why=$(check) && exit 0; echo "SKIP: $why"; exit 77 ;;
  agent) shift; agent "$@" ;;
  mpirun) shift; run_mpirun "$@" ;;
  *) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
