#!/usr/bin/env bash
# Runs inside the testbed VM (issue 26): what wakes the idle NFS server's virtual-thread scheduler. First IdleShape
# (the server's idle timer shape on virtual or platform threads, or parked virtual threads with no timer), then the
# server itself idle with one RDMA mount: its CPU over 20 s, its busiest threads, how many tasks the scheduler ran
# meanwhile (jcmd Thread.vthread_scheduler's steal count) and its threads' stacks (OUT/threads.txt).
# Usage (work tree's root, in the guest): benchmarks/perftest/knfs-idle-wakes.sh NFS_SERVER_JAR OUT [SERVER_JAVA_OPTS]
# IDLE_SHAPES: the IdleShape runs, ';'-separated "mode [JVM options]" (default: all four below; empty: none)
set -uo pipefail
jar=$1 out=$2 opts=${3:-}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
ticks=$(getconf CLK_TCK)
javac -d /tmp/idle-shape "$here/IdleShape.java"
IFS=';' read -ra shapes <<<"${IDLE_SHAPES-parked;platform;vt;vt -Djdk.virtualThreadScheduler.parallelism=1}"
for mode in "${shapes[@]}"; do
  read -r shape jvm_opts <<<"$mode"
  # shellcheck disable=SC2086
  java $jvm_opts -cp /tmp/idle-shape IdleShape "$shape" 20 | sed "s/^/[$mode] /"
done
modprobe nfsv3; modprobe rpcrdma
rm -rf /srv/panama-idle /run/panama-idle-state; mkdir -p /srv/panama-idle; chmod 0777 /srv/panama-idle
# shellcheck disable=SC2086
java $opts -XX:+UseSerialGC -jar "$jar" --export /srv/panama-idle --state /run/panama-idle-state \
  --no-rpcbind --tcp 0.0.0.0:32049 --mount 0.0.0.0:32048 --rdma 10.77.0.2:32050 --rdma 10.77.1.2:32050 >/tmp/idle.log 2>&1 &
pid=$!
for _ in $(seq 1 240); do grep -q 'nfs-server: ready' /tmp/idle.log && break; sleep 0.5; done
mnt=/mnt/idle; mkdir -p $mnt
mount -t nfs -o vers=3,proto=rdma,port=32050,mountport=32048,mountproto=tcp,nolock 10.77.0.2:/srv/panama-idle $mnt
dd if=/dev/zero of=$mnt/f bs=262144 count=8 oflag=direct 2>/dev/null; dd if=$mnt/f of=/dev/null bs=262144 iflag=direct 2>/dev/null
sleep 10
jcmd $pid Thread.vthread_scheduler | tail -1 >"$out/sched0.txt"
for t in /proc/$pid/task/*; do echo "${t##*/} $(awk '{ print $14 + $15 }' $t/stat)"; done >/tmp/idle0
a=$(awk '{ print $14 + $15 }' /proc/$pid/stat); sleep 20; b=$(awk '{ print $14 + $15 }' /proc/$pid/stat)
jcmd $pid Thread.vthread_scheduler | tail -1 >"$out/sched1.txt"
echo "server idle (one rxe mount, no I/O, options '$opts'): $(( (b - a) * 1000 / ticks )) ms CPU over 20 s; busiest threads (ms): $(
  for t in /proc/$pid/task/*; do echo "${t##*/} $(awk '{ print $14 + $15 }' $t/stat) $(tr ' ' _ <$t/comm)"; done |
    awk -v hz="$ticks" 'NR == FNR { a[$1] = $2; next } ($1 in a) { d = $2 - a[$1]; if (d > 0) s[$3] += d } END { for (c in s) printf "%s %d\n", c, s[c] * 1000 / hz }' /tmp/idle0 - |
    sort -k2 -rn | head -5 | tr '\n' ';')"
echo "scheduler before: $(cat "$out/sched0.txt")"
echo "scheduler after:  $(cat "$out/sched1.txt")"
jcmd $pid Thread.dump_to_file -overwrite "$out/threads.txt" >/dev/null
grep -E '^#[0-9]+ "' "$out/threads.txt" | sort | uniq -c | sort -rn | head -40
umount $mnt; kill $pid; wait $pid 2>/dev/null
chmod -R a+rw "$out"
