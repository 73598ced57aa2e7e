#!/usr/bin/env bash
# Runs inside the testbed VM: where the warm Java NFS server's time goes under the kernel NFS client's dd (issue 26).
# Starts the server with the JVM options a bench run gives it (PROBE_JAVA_OPTS on top), prints the JVM's effective
# heap/JIT/GC flags, warms the server on each device until its JIT is quiet (warm_until_quiet: passes of MiB, at most
# PERF_KNFS_WARM_MAX), then starts a JFR recording (settings=profile:
# method samples, allocation samples, GC, thread CPU load) and runs knfs-cpu-probe.sh's timed passes (guest CPU split
# from /proc/stat, the server's threads from /proc/PID/task/*/stat), knfsd beside it; dumps the recording to
# OUT/server.jfr and the GC log to OUT/gc.log. Analyse on the host: `jfr view hot-methods OUT/server.jfr`, etc.
# Usage (work tree's root, in the guest): benchmarks/perftest/knfs-profile.sh NFS_SERVER_JAR OUT [MiB] [BS]
set -uo pipefail
jar=$1 out=$2 mib=${3:-16} bs=${4:-262144}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=knfs-probe-lib.sh
source "$here/knfs-probe-lib.sh"
modprobe nfsv3; modprobe rpcrdma
nfs/src/test/resources/org/panamardma/nfs/start-nfs-server.sh >/tmp/nfs-start.log 2>&1 || { tail /tmp/nfs-start.log; exit 1; }
rm -rf /srv/panama-java-probe /run/panama-java-probe-state; mkdir -p /srv/panama-java-probe; chmod 0777 /srv/panama-java-probe
# shellcheck disable=SC2086 # PROBE_JAVA_OPTS is word-split on purpose
jit_log=/tmp/java-nfs-probe-jit.log
rm -f "$jit_log"
java -XX:+UseSerialGC ${PROBE_JAVA_OPTS:-} "-Xlog:gc*:file=$out/gc.log" "-Xlog:jit+compilation=debug:file=$jit_log" \
  -XX:+PrintFlagsFinal -jar "$jar" \
  --export /srv/panama-java-probe --state /run/panama-java-probe-state --no-rpcbind --tcp 0.0.0.0:32049 \
  --mount 0.0.0.0:32048 --rdma 10.77.0.2:32050 --rdma 10.77.1.2:32050 --no-root-squash >/tmp/java-nfs-probe.log 2>&1 &
java_nfs=$!
for _ in $(seq 1 240); do grep -q 'nfs-server: ready' /tmp/java-nfs-probe.log && break; sleep 0.5; done
echo "profile JVM: $(grep -E ' (MaxHeapSize|InitialHeapSize|TieredStopAtLevel|CICompilerCount|UseSerialGC|ActiveProcessorCount|TieredCompilation|ReservedCodeCacheSize) ' /tmp/java-nfs-probe.log | awk '{ printf "%s=%s ", $2, $4 }')"
echo "profile guest: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%d MiB", $2 / 1024 }' /proc/meminfo)"
mnt=/mnt/probe
mkdir -p "$mnt"
mount_server() { # server device
  local ip opts export
  [[ $2 == rxe ]] && ip=10.77.0.2 || ip=10.77.1.2
  if [[ $1 == java ]]; then opts=port=32050,mountport=32048 export=/srv/panama-java-probe
  else opts=port=20049,mountport=50892 export=/srv/panama-nfs; fi
  mount -t nfs -o "vers=3,proto=rdma,$opts,mountproto=tcp,nolock" "$ip:$export" "$mnt"
}
# the warm-up, untimed: every path the timed passes take, on both devices, until the JIT is quiet
# (warm_until_quiet), before the recording starts
pass() { PROBE_WARM_COUNT=$((mib * 1048576 / bs)) warm_up "$mnt" 1; }
for device in rxe siw; do
  mount_server java "$device" || { echo "mount java $device failed"; continue; }
  echo "profile warm-up on $device: $(warm_until_quiet "$jit_log" pass)"
  umount "$mnt"
done
jcmd "$java_nfs" JFR.start name=probe settings=profile >/dev/null
for device in rxe siw; do
  for server in knfsd java; do
    mount_server "$server" "$device" || { echo "mount $server $device failed"; continue; }
    probe "$server-$device" "$mnt" write
    probe "$server-$device" "$mnt" read
    rm -f "$mnt/probe"; umount "$mnt"
  done
done
jcmd "$java_nfs" JFR.dump name=probe filename="$out/server.jfr" >/dev/null
jcmd "$java_nfs" Thread.print >"$out/threads.txt" 2>&1
kill $java_nfs; wait $java_nfs 2>/dev/null
nfs/src/test/resources/org/panamardma/nfs/start-nfs-server.sh stop >/dev/null 2>&1
chmod -R a+rw "$out"
