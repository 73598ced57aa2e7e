#!/usr/bin/env bash
# The main job on the embedded default testbed: builds the project (with the runnable rdma-tool/target/rdma-tool.jar),
# boots the soft-RoCE / soft-iWARP VM and runs rdma-tool in it: the RDMA devices (devinfo), then the demo on
# Soft-RoCE (clients on rxe0, server on rxe1) and on Soft-iWARP (clients on siw0, server on siw1, the shared counter
# and the CmpSwap by the RFC 7306 agent, skipping with a printed reason what no one provides there); then the guest's
# kernel mounts the Java NFS server (nfs/target/nfs-server.jar) over RPC-over-RDMA, writes a file through the mount
# and reads it back, and the server's counters show the chunks it moved. Exits non-zero if any demo found anything wrong.
# On a machine without the testbed's tools (qemu, debootstrap...): run as root, it installs them with apt-get
# (soft-roce-ci/bin/host-packages.sh, the list .ci/run uses too); otherwise it prints the one command that does and
# stops (exit 125).
set -euo pipefail
cd "$(dirname "$0")"
source soft-roce-ci/bin/jdk.sh
source soft-roce-ci/bin/host-packages.sh
find_jdk25
ensure_host_packages demo "${host_packages_testbed[@]}" || exit 125
soft-roce-ci/bin/testbed check
echo "[demo] building (./mvnw -q package -DskipTests; no javadoc) ..."
./mvnw -B -q package -DskipTests -Dmaven.javadoc.skip -Dmaven.source.skip
echo "[demo] booting the testbed VM and running rdma-tool in it (a minute or more when the VM is emulated) ..."
# -XX:TieredStopAtLevel=1: C1 only, quicker where the VM is emulated (TCG)
exec soft-roce-ci/bin/testbed run --timeout 1500 -- '
tool() { java -XX:TieredStopAtLevel=1 -jar rdma-tool/target/rdma-tool.jar "$@"; }
rc=0
echo
echo "=== The RDMA devices of the testbed, as verbs-ffm sees them (rdma-tool devinfo) ==="
tool devinfo || rc=1
echo
echo "=== Demo 1: Soft-RoCE (RoCE v2): clients on rxe0 (10.77.0.1), server on rxe1 (10.77.0.2) ==="
tool demo 10.77.0.2 || rc=1
echo
echo "=== Demo 2: Soft-iWARP: clients on siw0 (10.77.1.1), server on siw1 (10.77.1.2) ==="
tool demo 10.77.1.2 || rc=1
echo
echo "=== Demo 3: the Linux kernel mounts the Java NFS server (nfs-server.jar) over RPC-over-RDMA on Soft-RoCE ==="
demo_nfs() {
  local export=/srv/panama-demo-nfs mnt=/mnt/panama-demo-nfs log=/tmp/panama-demo-nfs.log
  rm -rf "$export" /run/panama-demo-nfs-state; mkdir -p "$export" "$mnt"; chmod 0777 "$export"
  java -XX:TieredStopAtLevel=1 -jar nfs/target/nfs-server.jar --export "$export" --state /run/panama-demo-nfs-state \
    --no-rpcbind --tcp 10.77.0.2:32049 --mount 10.77.0.2:32048 --rdma 10.77.0.2:32050 >"$log" 2>&1 &
  local server=$! i
  for i in $(seq 1 240); do grep -q "nfs-server: ready" "$log" && break; sleep 0.5; done
  modprobe nfsv3; modprobe rpcrdma
  local opts=vers=3,proto=rdma,port=32050,mountport=32048,mountproto=tcp,nolock
  echo "mount -t nfs -o $opts 10.77.0.2:$export $mnt"
  mount -t nfs -o "$opts" "10.77.0.2:$export" "$mnt" || { cat "$log"; kill $server; return 1; }
  grep " $mnt " /proc/mounts
  head -c $((4 << 20)) /dev/urandom >/tmp/panama-demo-nfs.bin
  cp /tmp/panama-demo-nfs.bin "$mnt/hello.bin"        # written through the mount: WRITEs, data by RDMA Read
  umount "$mnt" && mount -t nfs -o "$opts" "10.77.0.2:$export" "$mnt"   # nothing cached: read from the server
  local sent back
  sent=$(sha256sum </tmp/panama-demo-nfs.bin | cut -d" " -f1)
  back=$(sha256sum <"$mnt/hello.bin" | cut -d" " -f1)  # READs, data by RDMA Write
  echo "written  sha256 $sent"; echo "read back sha256 $back"
  umount "$mnt"                                      # UMNT: the server logs its counters
  sleep 1; kill $server; wait $server 2>/dev/null
  echo "--- the Java server log ---"; cat "$log"
  [[ $sent == "$back" ]] && ! grep -qE " (WARN|ERROR) " "$log"
}
demo_nfs || rc=1
echo
if ((rc == 0)); then echo "All three demos ran and checked their results."; else echo "Something failed: see above."; fi
exit $rc
'
