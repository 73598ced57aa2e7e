# Sourced, not run: the veth pairs that carry the testbed's Soft-RoCE and Soft-iWARP traffic, shared by the VM's
# setup (guest/setup-rdma.sh) and the privileged container's (container/setup-devices.sh). Both ends of a pair are
# local addresses of one network namespace, which would route between them over `lo`, where rxe never sees the
# packets: policy routing sends each locally generated packet for a peer address out of the other veth end (the
# `local` rule table must then be consulted after these rules, which each caller arranges). Expects `step` and
# writes device descriptions to "$props".

# sysctl_set KEY=VALUE...: written to /proc/sys directly (the container's image has no procps)
sysctl_set() {
  local kv
  for kv in "$@"; do
    echo "${kv#*=}" >"/proc/sys/$(tr . / <<<"${kv%%=*}")"
  done
}

# pair A B V4_A V4_B V6_A V6_B TABLE_A TABLE_B
pair() {
  local a=$1 b=$2 v4a=$3 v4b=$4 v6a=$5 v6b=$6 ta=$7 tb=$8 d
  step "veth $a <-> $b"
  ip link add "$a" type veth peer name "$b"
  for d in "$a" "$b"; do
    sysctl_set "net.ipv4.conf.$d.accept_local=1" "net.ipv4.conf.$d.rp_filter=0" "net.ipv6.conf.$d.accept_dad=0"
    # jumbo frames give rxe an active MTU of 4096
    ip link set "$d" mtu 9000 up
  done
  ip -4 addr add "$v4a/24" dev "$a"
  ip -4 addr add "$v4b/24" dev "$b"
  ip -6 addr add "$v6a/64" dev "$a" nodad
  ip -6 addr add "$v6b/64" dev "$b" nodad
  # traffic from this host to B's address leaves through A (and arrives on B), and the other way round
  ip -4 route add "$v4b/32" dev "$a" src "$v4a" table "$ta"
  ip -4 route add "$v4a/32" dev "$b" src "$v4b" table "$tb"
  ip -4 rule add pref 100 to "$v4b" iif lo lookup "$ta"
  ip -4 rule add pref 100 to "$v4a" iif lo lookup "$tb"
  ip -6 route add "$v6b/128" dev "$a" src "$v6a" table "$ta"
  ip -6 route add "$v6a/128" dev "$b" src "$v6b" table "$tb"
  ip -6 rule add pref 100 to "$v6b" iif lo lookup "$ta"
  ip -6 rule add pref 100 to "$v6a" iif lo lookup "$tb"
}

# describe DEV TRANSPORT NETDEV V4 V6 PEER: the lines the JUnit extension (org.panamardma.testbed) reads
describe() {
  printf 'device.%s.%s\n' "$1" "transport=$2" "$1" "netdev=$3" "$1" "ipv4=$4" "$1" "ipv6=$5" "$1" "peer=$6" >>"$props"
}

# wait_active DEV...: each RDMA device's port 1 ACTIVE within 10 s, or the setup fails naming the device
wait_active() {
  local dev state
  for dev in "$@"; do
    for _ in $(seq 100); do
      grep -q ACTIVE "/sys/class/infiniband/$dev/ports/1/state" 2>/dev/null && break
      sleep 0.1
    done
    state=$(cat "/sys/class/infiniband/$dev/ports/1/state" 2>/dev/null || echo missing)
    echo "$dev: $state"
    [[ $state == *ACTIVE* ]] || { echo "device $dev did not become ACTIVE (state: $state)"; exit 1; }
  done
}
