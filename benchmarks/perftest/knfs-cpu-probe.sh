#!/usr/bin/env bash
# Runs inside the testbed VM: where the time of the kernel NFS client's dd goes against the Java NFS server and against
# knfsd (issue 26's missed "kernel client vs our server" figures). For each server, device and operation: the dd's
# elapsed time, the guest's CPU time over it (/proc/stat: user, system, softirq, idle across both vCPUs), and for the
# Java server the CPU time of its busiest threads (/proc/PID/task/*/stat). A server whose CPU time fills the elapsed
# time is CPU-bound on the emulated CPU; one whose CPU time is a fraction of it waits (for the device, a wake-up, a
# scheduler tick).
# Usage (from the work tree's root, in the guest): benchmarks/perftest/knfs-cpu-probe.sh NFS_SERVER_JAR [MiB] [BS]
#   host: soft-roce-ci/bin/testbed run -- 'benchmarks/perftest/knfs-cpu-probe.sh nfs/target/nfs-server.jar 16'
set -uo pipefail
jar=$1 mib=${2:-16} bs=${3:-262144}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=knfs-probe-lib.sh
source "$here/knfs-probe-lib.sh"
start_servers "$jar"
mnt=/mnt/probe
mkdir -p "$mnt"
for device in rxe siw; do
  [[ $device == rxe ]] && ip=10.77.0.2 || ip=10.77.1.2
  for server in knfsd java; do
    if [[ $server == java ]]; then opts=port=32050,mountport=32048 export=/srv/panama-java-probe
    else opts=port=20049,mountport=50892 export=/srv/panama-nfs; fi
    mount -t nfs -o "vers=3,proto=rdma,$opts,mountproto=tcp,nolock" "$ip:$export" "$mnt" || { echo "mount $server $device failed"; continue; }
    # unmeasured passes first (warm_up): the Java server's JIT warms up on them
    [[ $server == java ]] && warm_up "$mnt"
    probe "$server-$device" "$mnt" write
    probe "$server-$device" "$mnt" read
    rm -f "$mnt/probe"; umount "$mnt"
  done
done
kill $java_nfs; wait $java_nfs 2>/dev/null
nfs/src/test/resources/org/panamardma/nfs/start-nfs-server.sh stop >/dev/null 2>&1
