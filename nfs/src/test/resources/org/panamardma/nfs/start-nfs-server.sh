#!/bin/bash
# Starts the kernel NFS server (knfsd) in the testbed guest with an export of known contents, for the NFS interop
# tests; `stop` stops it. Run by the tests (not at boot), as root, inside the VM. Prints KEY=VALUE lines the tests
# read:
#   start:  NFS_EXPORT=<dir>  NFS_RDMA=ok  NFS_READY=1     (exit 0 only when knfsd verifiably serves, see below)
#   stop:   NFS_STOPPED=1                                   (exit 0 only when what it stopped is gone)
#
# `start` is safe to run again: it makes the export's contents once per boot (write-target emptied again after each
# `stop`), and every time it starts what is not running and then checks that knfsd really serves, each check waited
# for up to NFS_WAIT_SECONDS (default 30) and named when it fails:
#   - rpcbind answers (rpcinfo -p);
#   - mountd v3 is registered for TCP and answers a NULL call (what the tests and mount.nfs ask first);
#   - NFS v3 over TCP on 2049 is registered and answers a NULL call (knfsd's threads run);
#   - /proc/fs/nfsd/portlist has "rdma 20049", and svcrdma listens there (an rdma_cm id in LISTEN on port 20049).
# Any failure prints "start-nfs-server: FAILED: <which part>", what rpcbind and the portlist show, and exits 1.
#
# `stop` stops knfsd's threads (rpc.nfsd 0) and mountd, and waits until they are gone: no nfsd thread, no RDMA
# listener on 20049, no rpc.mountd process, no MOUNT registration left with rpcbind. A stop that returned before
# mountd had exited let the next `start` take the exiting mountd for a live one and start none (issue 24: every
# test needing knfsd after RoceKnfsdRdmaDeviceTests stopped it failed, 22 tests, in about one CI run of two).
#
# The export (all under $NFS_EXPORT, default /srv/panama-nfs):
#   pattern.bin    1 MiB, byte i = i mod 251 (a prime, so the pattern does not repeat at any power-of-two stride)
#   hello.txt      "hello from knfsd\n" (17 bytes)
#   dir1000/       1,000 empty files entry-000 .. entry-999
#   write-target   an empty file the client overwrites (NFSv3 WRITE needs an existing file handle)
# Export options: rw (WRITE tests), no_root_squash (the client sends AUTH_SYS uid 0), insecure (a JVM cannot bind
# a source port below 1024), no_subtree_check, fsid=77 (the directory may sit on a file system without a UUID).
#
# Besides TCP 2049, knfsd listens for RPC-over-RDMA on port 20049 (RFC 8267 section 3: the port for NFS over
# RPC-over-RDMA); the kernel's svcrdma is rpcrdma.ko.
set -uo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export_dir=${NFS_EXPORT:-/srv/panama-nfs}
state=/run/panama-nfs
wait_seconds=${NFS_WAIT_SECONDS:-30}
# mountd's fixed port (the benchmarks' mount options name it too) lies in no range a port is handed out from in the
# guest, so no other socket can hold it when mountd starts: mountd binds without SO_REUSEADDR's leeway for a socket
# in TIME_WAIT, and then registers MOUNT for UDP only. It was 892, inside the reserved ports that root's RPC clients
# bind their source port in (libtirpc's bindresvport: 512-1023; rpcinfo, exportfs and rpc.nfsd here, every 0.2 s in
# the waits below, each leaving a TIME_WAIT for 60 s; the kernel's sunrpc clients: min_resvport-max_resvport): in
# rehearsal r37 a TIME_WAIT 127.0.0.1:892 -> 127.0.0.1:111 left MOUNT unregistered for TCP. 50892 is above every
# reserved port, above the device tests' server ports (20000-50099) and below the ephemeral ports the testbed's
# guest gives out (net.ipv4.ip_local_port_range 51000-60999, soft-roce-ci/guest/setup-rdma.sh).
readonly NFS_PROGRAM=100003 MOUNT_PROGRAM=100005 MOUNTD_PORT=50892 RDMA_PORT=20049
log() { echo "start-nfs-server: $*" >&2; }
# "<what> (<seconds since the last step>)": where the time goes on a slow (emulated, loaded) guest
step_start=$SECONDS
step() { log "$* ($((SECONDS - step_start)) s)"; step_start=$SECONDS; }
# what the checks look at, for a failure's message
show_state() {
  log "rpcinfo -p:"; rpcinfo -p 127.0.0.1 2>&1 | sed 's/^/    /' >&2
  log "/proc/fs/nfsd/portlist: $(tr '\n' ' ' </proc/fs/nfsd/portlist 2>/dev/null)"
  log "/proc/fs/nfsd/threads: $(cat /proc/fs/nfsd/threads 2>/dev/null)"
  log "rpc.mountd processes: $(pgrep -x rpc.mountd | tr '\n' ' ')"
  # a socket on mountd's port (a client's connection from it, in TIME_WAIT) keeps mountd from listening there
  log "TCP sockets on port $MOUNTD_PORT:"; ss -tanH "( sport = :$MOUNTD_PORT )" 2>&1 | sed 's/^/    /' >&2
  log "sunrpc's reserved source ports: $(cat /proc/sys/sunrpc/min_resvport 2>/dev/null)-$(cat /proc/sys/sunrpc/max_resvport 2>/dev/null)"
  log "rdma_cm ids on port $RDMA_PORT:"; rdma resource show cm_id 2>&1 | grep ":$RDMA_PORT" | sed 's/^/    /' >&2
}
fail() { log "FAILED: $*"; show_state; exit 1; }

# until WHAT CONDITION...: runs CONDITION every 0.2 s until it succeeds (0) or NFS_WAIT_SECONDS pass (1)
until_true() {
  local deadline=$((SECONDS + wait_seconds))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}

rpcbind_answers() { rpcinfo -p 127.0.0.1; }
registered() { rpcinfo -p 127.0.0.1 | awk -v p="$1" -v v="$2" -v t="$3" '$1 == p && $2 == v && $3 == t { f = 1 } END { exit !f }'; }
# a NULL call (procedure 0) over TCP, the way a client's first call goes: proves the program is served, not only
# registered
answers_null() { rpcinfo -T tcp 127.0.0.1 "$1" "$2"; }
in_portlist() { grep -qx "rdma $RDMA_PORT" /proc/fs/nfsd/portlist; }
rdma_listening() { rdma resource show cm_id | grep -q "LISTEN.*:$RDMA_PORT"; }
no_rdma_listener() { ! rdma_listening && ! in_portlist; }
no_threads() { [[ ! -e /proc/fs/nfsd/threads || $(cat /proc/fs/nfsd/threads) == 0 ]]; }
no_mountd() { ! pgrep -x rpc.mountd; }
mountd_unregistered() { ! rpcinfo -p 127.0.0.1 | awk -v p=$MOUNT_PROGRAM '$1 == p { f = 1 } END { exit !f }'; }

[[ $(id -u) == 0 ]] || { log "FAILED: must run as root (inside the testbed VM)"; exit 1; }

if [[ ${1:-} == stop ]]; then
  rm -f "$state/ready"
  if [[ -e /proc/fs/nfsd/threads ]]; then
    # no threads: knfsd closes its transports, svcrdma's listener and connections among them (its clients see
    # their connection end)
    rpc.nfsd 0 || log "rpc.nfsd 0 failed"
  fi
  step "stop: rpc.nfsd 0"
  until_true no_threads || fail "stop: knfsd still has $(cat /proc/fs/nfsd/threads) threads after ${wait_seconds} s"
  until_true no_rdma_listener || fail "stop: the RDMA listener on $RDMA_PORT is still there after ${wait_seconds} s"
  pkill -TERM -x rpc.mountd
  if ! until_true no_mountd; then
    log "rpc.mountd did not exit on SIGTERM within ${wait_seconds} s; killing it"
    pkill -KILL -x rpc.mountd
    until_true no_mountd || fail "stop: rpc.mountd is still running"
  fi
  # mountd unregisters itself on SIGTERM; after a SIGKILL its registrations would stay and send clients to a port
  # nobody listens on
  if ! until_true mountd_unregistered; then
    for version in 1 2 3; do rpcinfo -d "$MOUNT_PROGRAM" "$version" 2>/dev/null; done
    until_true mountd_unregistered || fail "stop: MOUNT is still registered with rpcbind"
  fi
  exportfs -ua 2>/dev/null
  step "stop: mountd gone, exports removed"
  echo "NFS_STOPPED=1"
  exit 0
fi

mkdir -p "$state"
# --- the export's contents: made once per boot, write-target emptied at each start after a stop ---------------
# (only write-target is ever written by the tests; remaking the rest each time cost 20-70 s in a loaded emulated guest)
if [[ ! -e $state/export-made ]]; then
  rm -rf "$export_dir"
  mkdir -p "$export_dir/dir1000" || fail "cannot create $export_dir"
  # perl is in every Debian system (perl-base is Essential): one period of the pattern (251 bytes), repeated
  perl -e '$p = pack("C*", 0 .. 250); print substr($p x 4178, 0, 1048576)' >"$export_dir/pattern.bin" \
    || fail "cannot write pattern.bin"
  printf 'hello from knfsd\n' >"$export_dir/hello.txt"
  (cd "$export_dir/dir1000" && touch entry-{000..999}) || fail "cannot create dir1000"
  chmod 0777 "$export_dir"
  touch "$state/export-made"
  step "the export's contents"
fi
if [[ ! -e $state/ready ]]; then
  : >"$export_dir/write-target" && chmod 0666 "$export_dir/write-target" || fail "cannot empty write-target"
fi
# --- rpcbind, nfsd, mountd: each started if it is not running ---------------------------------------------------
mkdir -p /run/rpcbind /var/lib/nfs/rpc_pipefs /var/lib/nfs/v4recovery
touch /var/lib/nfs/etab /var/lib/nfs/rmtab
if ! pgrep -x rpcbind >/dev/null; then
  rpcbind -w 2>/dev/null || rpcbind || fail "rpcbind did not start"
fi
until_true rpcbind_answers || fail "rpcbind does not answer (rpcinfo -p 127.0.0.1)"
step "rpcbind"
modprobe nfsd || fail "modprobe nfsd"
mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd || fail "cannot mount the nfsd file system"
# lockd's ports (module parameters of lockd, loaded with nfsd); 4045 is NLM's conventional port
echo 4045 >/proc/sys/fs/nfs/nlm_tcpport 2>/dev/null || log "cannot fix lockd's TCP port"
echo 4045 >/proc/sys/fs/nfs/nlm_udpport 2>/dev/null || log "cannot fix lockd's UDP port"
exportfs -o rw,no_root_squash,insecure,no_subtree_check,fsid=77,sync "*:$export_dir" || fail "exportfs"
step "nfsd module, exportfs"
# 8 threads: plenty for a test client, few enough for a 2-CPU emulated guest
rpc.nfsd 8 || fail "rpc.nfsd 8"
step "rpc.nfsd 8"
# a mountd that runs but is not registered (one still exiting, or one that lost its registration) is replaced
if pgrep -x rpc.mountd >/dev/null && ! until_true registered $MOUNT_PROGRAM 3 tcp; then
  log "rpc.mountd runs but MOUNT v3 is not registered for TCP: restarting it"
  pkill -TERM -x rpc.mountd
  until_true no_mountd || { pkill -KILL -x rpc.mountd; until_true no_mountd; } || fail "an old rpc.mountd does not exit"
fi
pgrep -x rpc.mountd >/dev/null || rpc.mountd --port $MOUNTD_PORT || fail "rpc.mountd --port $MOUNTD_PORT"
step "rpc.mountd"

# --- the RDMA listener -------------------------------------------------------------------------------------------
# Writing "rdma 20049" makes nfsd create an svcrdma listener (an rdma_cm id bound to the wildcard address, so it
# listens on every RDMA device: rxe0/rxe1 and siw0/siw1). The kernel would load svcrdma on demand; loading it first
# makes a missing module a clear message.
modprobe rpcrdma 2>"$state/modprobe-rpcrdma.err" \
  || fail "the RDMA listener: modprobe rpcrdma: $(tr '\n' ' ' <"$state/modprobe-rpcrdma.err")"
if ! in_portlist && ! (echo "rdma $RDMA_PORT" >/proc/fs/nfsd/portlist) 2>"$state/portlist.err"; then
  fail "the RDMA listener: echo rdma $RDMA_PORT > /proc/fs/nfsd/portlist: $(tr '\n' ' ' <"$state/portlist.err")"
fi
step "rdma $RDMA_PORT in the portlist"

# --- knfsd serves: what a client needs, each checked ------------------------------------------------------------
until_true registered $MOUNT_PROGRAM 3 tcp || fail "mountd: MOUNT v3 is not registered for TCP with rpcbind"
until_true answers_null $MOUNT_PROGRAM 3 || fail "mountd: MOUNT v3 does not answer a NULL call over TCP"
until_true registered $NFS_PROGRAM 3 tcp || fail "nfsd: NFS v3 is not registered for TCP with rpcbind"
until_true answers_null $NFS_PROGRAM 3 || fail "nfsd: NFS v3 does not answer a NULL call over TCP"
until_true in_portlist || fail "nfsd: no 'rdma $RDMA_PORT' in /proc/fs/nfsd/portlist"
until_true rdma_listening || fail "svcrdma: no rdma_cm id listens on port $RDMA_PORT"
step "serving: mountd and nfsd answer over TCP, svcrdma listens on $RDMA_PORT"

{
  echo "NFS_EXPORT=$export_dir"
  echo "NFS_RDMA=ok"
  echo "NFS_READY=1"
} >"$state/ready"
cat "$state/ready"
