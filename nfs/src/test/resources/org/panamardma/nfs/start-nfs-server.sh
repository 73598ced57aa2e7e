#!/bin/bash
# Starts the kernel NFS server (knfsd) in the testbed guest with an export of known contents, for the NFS interop
# tests. Run by the tests (not at boot), as root, inside the VM; safe to run again (it does nothing the second time
# but print the state). Prints KEY=VALUE lines the tests read:
#   NFS_EXPORT=<dir>  NFS_RDMA=<ok|failed: why>  NFS_READY=1
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
log() { echo "start-nfs-server: $*" >&2; }
fail() { log "FAILED: $*"; exit 1; }

[[ $(id -u) == 0 ]] || fail "must run as root (inside the testbed VM)"

if [[ ${1:-} == stop ]]; then
  if [[ -e /proc/fs/nfsd/threads ]]; then
    rpc.nfsd 0 || log "rpc.nfsd 0 failed"
  fi
  for pid in $(pidof rpc.mountd); do kill "$pid"; done
  exportfs -ua 2>/dev/null
  rm -f "$state/ready"
  echo "NFS_STOPPED=1"
  exit 0
fi

if [[ -e $state/ready ]]; then
  cat "$state/ready"
  exit 0
fi
mkdir -p "$state"

# --- the export's contents --------------------------------------------------------------------------------------
rm -rf "$export_dir"
mkdir -p "$export_dir/dir1000" || fail "cannot create $export_dir"
# perl is in every Debian system (perl-base is Essential); 1 MiB in one process
perl -e 'print pack("C*", map { $_ % 251 } 0 .. 1048575)' >"$export_dir/pattern.bin" || fail "cannot write pattern.bin"
printf 'hello from knfsd\n' >"$export_dir/hello.txt"
(cd "$export_dir/dir1000" && touch entry-{000..999}) || fail "cannot create dir1000"
: >"$export_dir/write-target"
chmod 0777 "$export_dir" && chmod 0666 "$export_dir/write-target"

# --- rpcbind, nfsd, mountd --------------------------------------------------------------------------------------
mkdir -p /run/rpcbind /var/lib/nfs/rpc_pipefs /var/lib/nfs/v4recovery
touch /var/lib/nfs/etab /var/lib/nfs/rmtab
if ! pgrep -x rpcbind >/dev/null; then
  rpcbind -w 2>/dev/null || rpcbind || fail "rpcbind did not start"
fi
modprobe nfsd || fail "modprobe nfsd"
mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd || fail "cannot mount the nfsd file system"
# lockd's ports (module parameters of lockd, loaded with nfsd); 4045 is NLM's conventional port
echo 4045 >/proc/sys/fs/nfs/nlm_tcpport 2>/dev/null || log "cannot fix lockd's TCP port"
echo 4045 >/proc/sys/fs/nfs/nlm_udpport 2>/dev/null || log "cannot fix lockd's UDP port"
exportfs -o rw,no_root_squash,insecure,no_subtree_check,fsid=77,sync "*:$export_dir" || fail "exportfs"
# 8 threads: plenty for a test client, few enough for a 2-CPU emulated guest
rpc.nfsd 8 || fail "rpc.nfsd"
pidof rpc.mountd >/dev/null || rpc.mountd --port 892 || fail "rpc.mountd"

# --- the RDMA listener -------------------------------------------------------------------------------------------
# Writing "rdma 20049" makes nfsd create an svcrdma listener (an rdma_cm id bound to the wildcard address, so it
# listens on every RDMA device: rxe0/rxe1 and siw0/siw1). The kernel would load svcrdma on demand; loading it first
# makes a missing module a clear message.
rdma_state="ok"
if ! modprobe rpcrdma 2>"$state/modprobe-rpcrdma.err"; then
  rdma_state="failed: modprobe rpcrdma: $(tr '\n' ' ' <"$state/modprobe-rpcrdma.err")"
elif ! grep -q '^rdma 20049$' /proc/fs/nfsd/portlist; then
  if ! (echo "rdma 20049" >/proc/fs/nfsd/portlist) 2>"$state/portlist.err"; then
    rdma_state="failed: echo rdma 20049 > portlist: $(tr '\n' ' ' <"$state/portlist.err")"
  fi
fi
[[ $rdma_state == ok ]] || log "RDMA listener: $rdma_state"

{
  echo "NFS_EXPORT=$export_dir"
  echo "NFS_RDMA=$rdma_state"
  echo "NFS_READY=1"
} >"$state/ready"
cat "$state/ready"
