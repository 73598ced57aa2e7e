#!/usr/bin/env bash
# Runs inside the testbed VM: how often the threads that serve the kernel NFS client's dd are woken, and how long
# each waits from its wake-up until it runs, against the Java NFS server and against knfsd (issue 26: the Java
# server's time per call that is not its CPU). ftrace's sched_wakeup and sched_switch over one dd of $mib MiB in
# blocks of $bs, after PROBE_WARM_PASSES (8) warm-up passes against the Java server; per kind of thread (its name,
# digits dropped): wake-ups per call and the wait from wake-up to running, per call and per wake-up. A server whose
# threads wait milliseconds per call for a CPU that is idle waits for the guest's scheduler (TCG: late wake-ups).
# Usage (from the work tree's root, in the guest): benchmarks/perftest/knfs-wakeups.sh NFS_SERVER_JAR [MiB] [BS]
#   host: soft-roce-ci/bin/testbed run -- 'cd /work/main && benchmarks/perftest/knfs-wakeups.sh nfs/target/nfs-server.jar'
set -uo pipefail
jar=$1 mib=${2:-16} bs=${3:-262144}
tracing=/sys/kernel/tracing
[[ -d $tracing/events ]] || mount -t tracefs nodev "$tracing" 2>/dev/null
[[ -d $tracing/events/sched ]] || { echo "no ftrace sched events in this kernel"; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=knfs-probe-lib.sh
source "$here/knfs-probe-lib.sh"
start_servers "$jar"
mnt=/mnt/probe
mkdir -p "$mnt"
calls=$((mib * 1048576 / bs))

# trace OP: one dd with the scheduler's events recorded, then the waits per kind of thread
trace() {
  local label=$1 op=$2
  echo 0 >"$tracing/tracing_on"; echo >"$tracing/trace"; echo 32768 >"$tracing/buffer_size_kb"
  echo 1 >"$tracing/events/sched/sched_wakeup/enable"; echo 1 >"$tracing/events/sched/sched_switch/enable"
  echo 1 >"$tracing/tracing_on"
  local t0 t1
  t0=$(date +%s.%N)
  if [[ $op == write ]]; then
    dd if=/dev/zero of="$mnt/probe" bs="$bs" count="$calls" oflag=direct 2>/dev/null
  else
    dd if="$mnt/probe" of=/dev/null bs="$bs" iflag=direct 2>/dev/null
  fi
  t1=$(date +%s.%N)
  echo 0 >"$tracing/tracing_on"
  echo "wakeups $label $op: $(awk -v a="$t0" -v b="$t1" -v c="$calls" 'BEGIN { printf "%.1f ms per call", 1000 * (b - a) / c }')"
  echo 0 >"$tracing/events/sched/sched_wakeup/enable"; echo 0 >"$tracing/events/sched/sched_switch/enable"
  # a wake-up of pid P at time T is waited out at the next switch to P; group by the woken thread's name
  awk -v label="$label" -v op="$op" -v calls="$calls" '
    / sched_wakeup: / {
      t = $0; sub(/^.* ([0-9]+\.[0-9]+): sched_wakeup: /, "", t)
      ts = $0; match(ts, / [0-9]+\.[0-9]+: /); ts = substr(ts, RSTART + 1, RLENGTH - 3) + 0
      comm = t; sub(/^comm=/, "", comm); sub(/ pid=.*/, "", comm)
      pid = t; sub(/^.* pid=/, "", pid); sub(/ .*/, "", pid)
      if (!(pid in woken)) { woken[pid] = ts; name[pid] = comm }
      next
    }
    / sched_switch: / {
      ts = $0; match(ts, / [0-9]+\.[0-9]+: /); ts = substr(ts, RSTART + 1, RLENGTH - 3) + 0
      np = $0; sub(/^.*next_pid=/, "", np); sub(/ .*/, "", np)
      if (np in woken) {
        k = name[np]; gsub(/[0-9]+/, "", k); sub(/[-:\/ ]+$/, "", k)
        n[k]++; w[k] += ts - woken[np]
        delete woken[np]
      }
    }
    END {
      for (k in n) if (n[k] >= calls / 4)
        printf "wakeups %s %s: %-22s %6.1f wake-ups per call, %7.2f ms waiting per call (%.3f ms each)\n",
          label, op, k, n[k] / calls, 1000 * w[k] / calls, 1000 * w[k] / n[k]
    }' "$tracing/trace"
}

for server in java knfsd; do
  if [[ $server == java ]]; then opts=port=32050,mountport=32048 export=/srv/panama-java-probe
  else opts=port=20049,mountport=50892 export=/srv/panama-nfs; fi
  mount -t nfs -o "vers=3,proto=rdma,$opts,mountproto=tcp,nolock" "10.77.0.2:$export" "$mnt" || { echo "mount $server failed"; continue; }
  [[ $server == java ]] && warm_up "$mnt" 8
  trace "$server-rxe" write
  trace "$server-rxe" read
  rm -f "$mnt/probe"; umount "$mnt"
done
kill $java_nfs; wait $java_nfs 2>/dev/null
nfs/src/test/resources/org/panamardma/nfs/start-nfs-server.sh stop >/dev/null 2>&1
