#!/usr/bin/env bash
# Runs inside the testbed VM (issue 26): the Java NFS server under JVM option variants, in one boot. For each
# variant ("label|options", ';'-separated in SCHED_VARIANTS): the server's own CPU time while idle for 20 s after a
# short mount + dd on rxe and siw (its busiest threads beside it), then compare-in-guest.sh's kernel-client rows
# (knfsd and the Java server alternated, after a warm-up) with those options, into OUT/raw-LABEL.csv.
# Usage (work tree's root, in the guest): benchmarks/perftest/knfs-scheduler.sh NFS_SERVER_JAR OUT
set -uo pipefail
jar=$1 out=$2
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
ticks=$(getconf CLK_TCK)
modprobe nfsv3; modprobe rpcrdma
IFS=';' read -ra variants <<<"${SCHED_VARIANTS:-default|;carrier1|-Djdk.virtualThreadScheduler.parallelism=1}"
idle_cpu() { # label options: the server's idle CPU after a little traffic
  local label=$1 opts=$2 pid a b mnt=/mnt/sched ip t
  rm -rf /srv/panama-java-bench /run/panama-java-bench-state; mkdir -p /srv/panama-java-bench; chmod 0777 /srv/panama-java-bench
  # shellcheck disable=SC2086
  java $opts -XX:+UseSerialGC -jar "$jar" --export /srv/panama-java-bench --state /run/panama-java-bench-state \
    --no-rpcbind --tcp 0.0.0.0:32049 --mount 0.0.0.0:32048 --rdma 10.77.0.2:32050 --rdma 10.77.1.2:32050 >/tmp/sched.log 2>&1 &
  pid=$!
  for _ in $(seq 1 240); do grep -q 'nfs-server: ready' /tmp/sched.log && break; sleep 0.5; done
  mkdir -p $mnt
  for ip in 10.77.0.2 10.77.1.2; do
    mount -t nfs -o vers=3,proto=rdma,port=32050,mountport=32048,mountproto=tcp,nolock "$ip:/srv/panama-java-bench" $mnt || continue
    dd if=/dev/zero of=$mnt/f bs=262144 count=16 oflag=direct 2>/dev/null; dd if=$mnt/f of=/dev/null bs=262144 iflag=direct 2>/dev/null
    rm -f $mnt/f; umount $mnt
  done
  mount -t nfs -o vers=3,proto=rdma,port=32050,mountport=32048,mountproto=tcp,nolock 10.77.0.2:/srv/panama-java-bench $mnt # stays mounted, idle
  sleep 5
  for t in /proc/$pid/task/*; do echo "${t##*/} $(awk '{ print $14 + $15 }' $t/stat)"; done >/tmp/sched0
  a=$(awk '{ print $14 + $15 }' /proc/$pid/stat); sleep 20; b=$(awk '{ print $14 + $15 }' /proc/$pid/stat)
  echo "sched $label: the server's CPU while idle (one mount, no I/O): $(( (b - a) * 1000 / ticks )) ms over 20 s; busiest threads (ms): $(
    for t in /proc/$pid/task/*; do echo "${t##*/} $(awk '{ print $14 + $15 }' $t/stat) $(tr ' ' _ <$t/comm)"; done |
      awk -v hz="$ticks" 'NR == FNR { a[$1] = $2; next } { d = $2 - a[$1]; if (d > 0) s[$3] += d } END { for (c in s) printf "%s %d\n", c, s[c] * 1000 / hz }' /tmp/sched0 - |
      sort -k2 -rn | head -4 | tr '\n' ';')"
  umount $mnt; kill $pid; wait $pid 2>/dev/null
}
nfs/src/test/resources/org/panamardma/nfs/start-nfs-server.sh >/tmp/nfs-start.log 2>&1 || { tail /tmp/nfs-start.log; exit 1; }
for v in "${variants[@]}"; do idle_cpu "${v%%|*}" "${v#*|}"; done
nfs/src/test/resources/org/panamardma/nfs/start-nfs-server.sh stop >/dev/null 2>&1
for v in "${variants[@]}"; do
  echo "sched ${v%%|*}: the kernel client's rows, options '${v#*|}'"
  PERF_TESTS=none PERF_BRIDGE=0 PERF_KNFS=1 PERF_RPC=0 PERF_NFS_SERVER_JAR="$jar" PERF_JAVA_OPTS="${v#*|}" \
    "$here/compare-in-guest.sh" /dev/null "$out/raw-${v%%|*}.csv" 2>&1 | grep --line-buffered -E 'knfs (java|knfsd)' | sed "s/^/sched ${v%%|*}: /"
done
chmod -R a+rw "$out"
