#!/bin/bash
# Runs inside the privileged container (RdmaContainer): brings up two Soft-RoCE and two Soft-iWARP devices of the
# container's own on two veth pairs, describes them in /run/testbed/devices.properties (read by the JUnit extension,
# as in the VM), and takes them all away again.
#
#   setup-devices.sh up|down
#
# The names and addresses differ from the VM's (rxe0/rxe1, siw0/siw1, 10.77.0.x, 10.77.1.x), so that the container
# can run inside the testbed VM beside them:
#   rxe8 on vethc0 10.77.8.1 fd77:8::1  <->  rxe9 on vethc1 10.77.8.2 fd77:8::2   (Soft-RoCE, RoCE v2)
#   siw8 on vethc2 10.77.9.1 fd77:9::1  <->  siw9 on vethc3 10.77.9.2 fd77:9::2   (Soft-iWARP)
# RDMA devices are not confined to a network namespace (the kernel's default "shared" mode), and `rdma link add`
# finds the netdev in the caller's namespace. Both ends of each pair are local addresses of one namespace, which
# would route between them over `lo`, where rxe never sees the packets: as in the VM, policy routing sends each
# locally generated packet for a peer address out of the other veth end. Only 10.77.8.x/10.77.9.x and fd77:8::/fd77:9::
# are used; no packet leaves the pairs.
set -euo pipefail

props=/run/testbed/devices.properties
state=/run/testbed/container-devices.state
links=(rxe8 rxe9 siw8 siw9)
# the rule tables of the pairs; the VM's setup-rdma.sh uses 100 to 103
tables=(108 109 110 111)

step() { echo "== $*"; }

# sysctl_set, pair, describe: shared with the VM's setup
# shellcheck source=../guest/veth-pairs.sh
source "$(dirname "$(readlink -f "$0")")/../guest/veth-pairs.sh"

# The `local` table must come after the steering rules. The testbed VM has moved it already; elsewhere (a host
# network namespace) it is moved here and put back by `down`.
move_local_rule() {
  local family
  for family in -4 -6; do
    if ip "$family" rule show pref 0 | grep -q 'lookup local'; then
      ip "$family" rule add pref 1000 lookup local
      ip "$family" rule del pref 0 lookup local
      echo "moved-local $family" >>"$state"
    fi
  done
}

up() {
  mkdir -p /run/testbed
  : >"$props"
  : >"$state"
  step modules
  # loaded by the host already, or loadable here from the host's /lib/modules (mounted read-only)
  local m missing=()
  for m in ib_uverbs rdma_ucm rdma_rxe siw; do
    [[ -d /sys/module/$m ]] || modprobe "$m" 2>/dev/null || missing+=("$m")
  done
  ((${#missing[@]} == 0)) || { echo "kernel modules missing and not loadable here: ${missing[*]} (on the host: modprobe ${missing[*]})"; exit 1; }
  step sysctl
  sysctl_set net.ipv4.conf.all.accept_local=1 net.ipv4.conf.default.accept_local=1 \
    net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
    net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
  move_local_rule
  pair vethc0 vethc1 10.77.8.1 10.77.8.2 fd77:8::1 fd77:8::2 "${tables[0]}" "${tables[1]}"
  pair vethc2 vethc3 10.77.9.1 10.77.9.2 fd77:9::1 fd77:9::2 "${tables[2]}" "${tables[3]}"
  step "rdma links"
  rdma link add rxe8 type rxe netdev vethc0
  rdma link add rxe9 type rxe netdev vethc1
  rdma link add siw8 type siw netdev vethc2
  rdma link add siw9 type siw netdev vethc3
  step "device nodes"
  # A container's /dev is filled when it starts, before these devices existed; libibverbs skips a device whose
  # /dev/infiniband/uverbsN is missing (and rdma_cm then finds no device for the address: ENODEV)
  local uverbs node
  mkdir -p /dev/infiniband
  # and so is rdma_cm's node where this setup loaded rdma_ucm (on a Docker host without it)
  [[ -e /dev/infiniband/rdma_cm ]] || mknod -m 0666 /dev/infiniband/rdma_cm c \
    "$(cut -d: -f1 /sys/class/misc/rdma_cm/dev)" "$(cut -d: -f2 /sys/class/misc/rdma_cm/dev)"
  for uverbs in /sys/class/infiniband_verbs/uverbs*; do
    node=/dev/infiniband/$(basename "$uverbs")
    [[ -e $node ]] || mknod -m 0666 "$node" c "$(cut -d: -f1 "$uverbs/dev")" "$(cut -d: -f2 "$uverbs/dev")"
    echo "$node $(cat "$uverbs/ibdev")"
  done
  describe rxe8 ROCE vethc0 10.77.8.1 fd77:8::1 rxe9
  describe rxe9 ROCE vethc1 10.77.8.2 fd77:8::2 rxe8
  describe siw8 IWARP vethc2 10.77.9.1 fd77:9::1 siw9
  describe siw9 IWARP vethc3 10.77.9.2 fd77:9::2 siw8
  step "wait for ACTIVE ports"
  wait_active "${links[@]}"
  local dev
  # what rdma-core's own devinfo sees from inside the container (libibverbs through the nodes made above)
  for dev in "${links[@]}"; do
    ibv_devinfo -d "$dev" | grep -E 'hca_id|transport|state|active_mtu' | tr -s ' \t' ' ' | paste -sd ' '
  done
  {
    echo "testbed.image=container"
    echo "testbed.kernel=$(uname -r)"
    echo "testbed.rdma-core=$(dpkg-query -W -f '${Version}' rdma-core 2>/dev/null)"
  } >>"$props"
  cat "$props"
}

# Best effort and idempotent: removes whatever of the above exists.
down() {
  local l t family
  for l in "${links[@]}"; do rdma link del "$l" 2>/dev/null || true; done
  ip link del vethc0 2>/dev/null || true
  ip link del vethc2 2>/dev/null || true
  for t in "${tables[@]}"; do
    for family in -4 -6; do
      while ip "$family" rule del pref 100 lookup "$t" 2>/dev/null; do :; done
      ip "$family" route flush table "$t" 2>/dev/null || true
    done
  done
  if [[ -f $state ]]; then
    while read -r what family; do
      if [[ $what == moved-local ]]; then
        ip "$family" rule add pref 0 lookup local 2>/dev/null || true
        ip "$family" rule del pref 1000 lookup local 2>/dev/null || true
      fi
    done <"$state"
    rm -f "$state"
  fi
  rdma link show | grep -E 'rxe8|rxe9|siw8|siw9' && { echo "RDMA links left behind"; exit 1; }
  echo "container devices removed"
}

case ${1:-} in
  up) up ;;
  down) down ;;
  *) echo "usage: setup-devices.sh up|down" >&2; exit 2 ;;
esac
