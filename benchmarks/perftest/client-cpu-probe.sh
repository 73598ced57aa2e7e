#!/usr/bin/env bash
# Runs inside the testbed VM: where the time of the Java NFS client's calls goes, beside the kernel NFS client's, both
# against knfsd on the same device (issue 26's missed "Java client >= 0.9x the kernel client", READ above all). For
# the kernel client, a dd of $mib MiB with the guest's CPU split over it (knfs-probe-lib.sh's probe: 256 KiB blocks for
# one call in flight, 1 MiB for four); for the Java client, NfsRpcBench (64 MiB in 256 KiB calls, 1 and 4 in flight,
# warmed until its JIT is quiet), whose log gives per call the guest's CPU split over the timed passes and the JVM's
# CPU by thread (CpuSpan). A client whose calls leave the guest idle waits (for the device, a wake-up, a scheduler
# tick); one that fills it is bound by CPU, and the thread split says whose.
# Usage (host, from the work tree's root, after ./mvnw -pl benchmarks -am package -DskipTests):
#   soft-roce-ci/bin/testbed run -- 'benchmarks/perftest/client-cpu-probe.sh benchmarks/target/benchmarks.jar'
# Env (set in the command line given to the guest): PROBE_DEVICES ("rxe siw"), PROBE_INFLIGHT ("1 4"),
# PROBE_FILE_MIB (64), PROBE_IO_ITERS (2), PROBE_CLIENT_OPTS (more NfsRpcBench arguments, e.g. --exposure windows).
set -uo pipefail
bench_jar=${1:?usage: client-cpu-probe.sh BENCHMARKS_JAR}
mib=${PROBE_FILE_MIB:-64}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=knfs-probe-lib.sh
source "$here/knfs-probe-lib.sh"
say() { echo "[client-probe] $*" >&2; }
modprobe nfsv3; modprobe rpcrdma
nfs/src/test/resources/org/panamardma/nfs/start-nfs-server.sh >/tmp/nfs-start.log 2>&1 \
  || { say "knfsd did not start"; tail -n 20 /tmp/nfs-start.log >&2; exit 1; }
java_nfs="" # probe(): no Java server's threads to split
mnt=/mnt/client-probe
mkdir -p "$mnt"
status=0
for device in ${PROBE_DEVICES:-rxe siw}; do
  [[ $device == rxe ]] && ip=10.77.0.2 || ip=10.77.1.2
  for qd in ${PROBE_INFLIGHT:-1 4}; do
    ((qd == 1)) && bs=262144 || bs=1048576
    if timeout 120 mount -t nfs -o "vers=3,proto=rdma,port=20049,mountport=50892,mountproto=tcp,nolock" \
        "$ip:/srv/panama-nfs" "$mnt"; then
      warm_up "$mnt" 1
      probe "kernel-client-$device-qd$qd" "$mnt" write
      probe "kernel-client-$device-qd$qd" "$mnt" read
      rm -f "$mnt/probe"; umount "$mnt"
    else
      say "mount of knfsd over $device failed"; status=1
    fi
    # shellcheck disable=SC2086 # the options are words
    if timeout 1800 java --enable-native-access=ALL-UNNAMED -cp "$bench_jar" org.panamardma.benchmarks.NfsRpcBench \
        --transport rdma --server "$ip" --no-null --io-iters "${PROBE_IO_ITERS:-2}" --file-size $((mib * 1048576)) \
        --in-flight "$qd" ${PROBE_CLIENT_OPTS:-} >/tmp/client-probe.out 2>/tmp/client-probe.err; then
      sed -n 's/^/probe java-client-'"$device"'-qd'"$qd"' /p' /tmp/client-probe.out
      grep -E 'warm-up|nfs_(write|read)' /tmp/client-probe.err | sed 's/^/probe   /'
    else
      say "NfsRpcBench over $device ($qd in flight) failed:"; tail -n 20 /tmp/client-probe.err >&2; status=1
    fi
  done
done
nfs/src/test/resources/org/panamardma/nfs/start-nfs-server.sh stop >/dev/null 2>&1
exit $status
