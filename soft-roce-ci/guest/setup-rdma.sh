#!/bin/bash
# Brings up the testbed's RDMA devices inside the guest and describes them in /run/testbed/devices.properties,
# which the JUnit extension (org.panamardma.testbed) reads.
#
# Layout (see ../shared/softroce/NOTES.md, "Device layout that carries real traffic"): two veth pairs, each end
# with an RDMA device, so a client on one end and a server on the other exchange real packets over the wire:
#   rxe0 on veth0 10.77.0.1 fd77:0::1  <->  rxe1 on veth1 10.77.0.2 fd77:0::2   (Soft-RoCE, RoCE v2)
#   siw0 on veth2 10.77.1.1 fd77:1::1  <->  siw1 on veth3 10.77.1.2 fd77:1::2   (Soft-iWARP)
# All four addresses are local to one kernel, which would route between them over `lo`, where rxe never sees the
# packets. Policy routing sends each locally generated packet for a peer address out of the other veth end.
set -euo pipefail

props=/run/testbed/devices.properties
mkdir -p /run/testbed
: >"$props"

step() { echo "== $*"; }

step modules
modprobe -a ib_uverbs rdma_ucm rdma_rxe siw

step sysctl
sysctl -q -w net.ipv4.conf.all.accept_local=1 net.ipv4.conf.default.accept_local=1 \
  net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
  net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
# Ports given out by the kernel (TCP's and rdma_cm's ephemeral ports: rdma_cm draws its own from the same range, in a
# port space of its own) stay above the ports the device tests name for their servers (20000-50099). The default
# range, 32768-60999, overlaps them: a test's listen on a port that a client's connection of an earlier test was
# given fails with EADDRINUSE, in rdma_cm's space or, on iWARP, in TCP's, where siw binds its listening socket.
# Ports 50100-50999 are left for fixed services (knfsd's mountd on 50892, nfs's start-nfs-server.sh).
sysctl -q -w net.ipv4.ip_local_port_range="51000 60999"

# The `local` table must be consulted after the steering rules below, not first.
ip -4 rule add pref 1000 lookup local
ip -4 rule del pref 0 lookup local
ip -6 rule add pref 1000 lookup local
ip -6 rule del pref 0 lookup local

# shellcheck source=veth-pairs.sh
source "$(dirname "$0")/veth-pairs.sh"

pair veth0 veth1 10.77.0.1 10.77.0.2 fd77:0::1 fd77:0::2 100 101
pair veth2 veth3 10.77.1.1 10.77.1.2 fd77:1::1 fd77:1::2 102 103

step "rdma links"
rdma link add rxe0 type rxe netdev veth0
rdma link add rxe1 type rxe netdev veth1
rdma link add siw0 type siw netdev veth2
rdma link add siw1 type siw netdev veth3

describe rxe0 ROCE veth0 10.77.0.1 fd77:0::1 rxe1
describe rxe1 ROCE veth1 10.77.0.2 fd77:0::2 rxe0
describe siw0 IWARP veth2 10.77.1.1 fd77:1::1 siw1
describe siw1 IWARP veth3 10.77.1.2 fd77:1::2 siw0

step "wait for ACTIVE ports"
wait_active rxe0 rxe1 siw0 siw1

# Emulated NVDIMM -> device-DAX, so that memory mapped from /dev/daxN.M is persistent memory, which is what rxe
# requires before it grants IBV_ACCESS_FLUSH_PERSISTENT (kernel commit "RDMA/rxe: Allow registering persistent
# flag for pmem MR only"). File-system DAX would not do: long-term pinning of fsdax pages is refused.
step "pmem"
if modprobe -a nfit nd_pmem dax_pmem device_dax 2>&1 && [[ -e /sys/bus/nd/devices/region0 ]]; then
  ndctl create-namespace --force --reconfig=namespace0.0 --mode=devdax >/run/testbed/ndctl.json
  cat /run/testbed/ndctl.json
  daxdev=$(ls /dev/dax* 2>/dev/null | head -n 1)
  [[ -n $daxdev ]] || { echo "no /dev/dax device after ndctl create-namespace"; exit 1; }
  dax=$(basename "$daxdev")
  echo "pmem.device=$daxdev" >>"$props"
  echo "pmem.size=$(cat "/sys/bus/dax/devices/$dax/size")" >>"$props"
  echo "pmem.align=$(cat "/sys/bus/dax/devices/$dax/align" 2>/dev/null || echo 2097152)" >>"$props"
else
  echo "no NVDIMM region: FLUSH to persistence cannot be tested in this guest"
fi

# what the tests run against: the image, kernel and rdma-core, and each device's capabilities as libibverbs reports
# them (device_cap_flags_ex bits 38-40: FLUSH_GLOBAL, FLUSH_PERSISTENT, ATOMIC_WRITE; kernel 6.2 and later on rxe)
step "capabilities"
TESTBED_IMAGE=unknown
# shellcheck source=/dev/null
source /etc/testbed/image.env 2>/dev/null || true
{
  echo "testbed.image=$TESTBED_IMAGE"
  echo "testbed.kernel=$(uname -r)"
  echo "testbed.rdma-core=$(dpkg-query -W -f '${Version}' rdma-core 2>/dev/null)"
  for dev in rxe0 rxe1 siw0 siw1; do
    ibv_devinfo -v -d "$dev" | awk -v d="$dev" '
      $1 == "atomic_cap:" { print "device." d ".atomic_cap=" $2 }
      $1 == "device_cap_flags_ex:" { print "device." d ".device_cap_flags_ex=" $2 }'
  done
} >>"$props"

{
  rdma link show | awk '{ printf "%s %s ", $2, $4 }'
  grep '^pmem.device' "$props" || true
} >/run/testbed/summary.txt
cat "$props"
