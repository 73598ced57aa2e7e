#!/usr/bin/env bash
# Runs inside the testbed VM: two calls of the kernel NFS client's dd, event by event, against the Java NFS server
# (settled: warmed until its JIT is quiet, warm_until_quiet) and against knfsd, same device (rxe). The client's
# xprtrdma events and the server's side beside them: for the Java server its threads' system calls (entry and exit,
# every one but futex) from raw_syscalls, for knfsd svcrdma's events. Times relative to the first call's Send.
# Shows where a call's milliseconds go (issue 26): the Read chunk's RDMA Reads, hand-offs between threads, the
# file system's calls, the reply.
# Usage (work tree's root, in the guest): benchmarks/perftest/knfs-timeline.sh NFS_SERVER_JAR [MiB] [BS] [OPS]
#   OPS: "write read" (default); the calls shown are the 20th and 21st of the timed dd (TIMELINE_CALL=N: the Nth and
#   the next; TIMELINE_CALL=slowest: the slowest call of the dd and the next). Before them, every call's time from its
#   Send to its reply, as a distribution with the slowest calls named: whether a few slow calls lift the average.
#   TIMELINE_BUFFER_KB: the trace buffer per CPU (default 16384; more for many calls with the system calls traced).
#   TIMELINE_SYSCALLS=0: the Java server's system calls not traced (only the rpcrdma events, as for knfsd): the
#   distribution without the tracing's own cost, which lands on the Java server's every system call.
#   TIMELINE_REPEAT=N: OPS N times over, one server start. TIMELINE_KEEP=DIR: each trace kept there.
#   TIMELINE_EVENTS: more trace events, "SUBSYSTEM" or "SUBSYSTEM:EVENT" (e.g. "jbd2 block sched:sched_switch").
#   TIMELINE_SERVERS=java: the Java server only (default "java knfsd").
#   TIMELINE_WAKEUPS=1: the Java server's futex calls too, and every wake-up of its threads (sched_wakeup), so that
#   each hand-off between its threads shows as the waker's futex, the wake-up, and the woken thread's return.
set -uo pipefail
jar=$1 mib=${2:-8} bs=${3:-262144} ops=${4:-write read}
here=$(cd "$(dirname "$0")" && pwd)
jit_log=/tmp/java-nfs-timeline-jit.log
rm -f "$jit_log"
export PROBE_JAVA_OPTS="-Xlog:jit+compilation=debug:file=$jit_log ${PROBE_JAVA_OPTS:-}"
# shellcheck source=knfs-probe-lib.sh
source "$here/knfs-probe-lib.sh"
tracing=/sys/kernel/tracing
[[ -d $tracing/events ]] || mount -t tracefs nodev "$tracing" 2>/dev/null
modprobe rpcrdma # its trace events exist only once the module is loaded (start_servers loads it too, later)
[[ -d $tracing/events/rpcrdma ]] || { echo "no rpcrdma trace events in this kernel"; exit 1; }
# Every call of the dd in a trace: "MS N" per call, N its place among the dd's calls (by first Send), MS the time
# from that Send to the call's reply (xprtrdma_reply), both matched by the RPC task.
per_call() {
  awk '{ match($0, / [0-9]+\.[0-9]+: /); t = substr($0, RSTART + 1, RLENGTH - 3) + 0 }
       / xprtrdma_post_send: / { match($0, /task:[0-9a-f]+@[0-9a-f]+/); k = substr($0, RSTART, RLENGTH)
                                 if (!(k in sent)) { sent[k] = t; place[k] = ++n } }
       / xprtrdma_reply: / { match($0, /task:[0-9a-f]+@[0-9a-f]+/); k = substr($0, RSTART, RLENGTH)
                             if ((k in sent) && !(k in replied)) { replied[k] = 1
                               printf "%.3f %d\n", 1000 * (t - sent[k]), place[k] } }' "$1"
}
# per_call's lines on stdin: how many, the distribution, the mean and the five slowest calls.
call_stats() {
  sort -n | awk '{ ms[NR] = $1; at[NR] = $2; sum += $1 }
    function q(f) { return ms[int((NR - 1) * f + 0.5) + 1] }
    END { if (!NR) { print "   no call was traced whole (trace buffer too small?)"; exit }
          printf "   %d calls, Send to reply: min %.1f, p10 %.1f, median %.1f, p90 %.1f, max %.1f ms; mean %.1f ms\n",
                 NR, ms[1], q(0.1), q(0.5), q(0.9), ms[NR], sum / NR
          printf "   slowest:"; for (i = NR; i > NR - 5 && i > 0; i--) printf " call %d %.1f ms;", at[i], ms[i]; print "" }'
}
start_servers "$jar"
mnt=/mnt/timeline kept=0
mkdir -p "$mnt"
calls=$((mib * 1048576 / bs))
((calls >= 22)) || { echo "need at least 22 calls: MiB * 1 MiB / BS"; exit 1; }
for server in ${TIMELINE_SERVERS:-java knfsd}; do
  if [[ $server == java ]]; then opts=port=32050,mountport=32048 export=/srv/panama-java-probe
  else opts=port=20049,mountport=50892 export=/srv/panama-nfs; fi
  mount -t nfs -o "vers=3,proto=rdma,$opts,mountproto=tcp,nolock" "10.77.0.2:$export" "$mnt" \
    || { echo "mount $server failed"; continue; }
  if [[ $server == java ]]; then
    echo "== java warm-up, passes of 64 blocks: $(PROBE_WARM_COUNT=64 warm_until_quiet "$jit_log" warm_up "$mnt" 1)"
  else
    PROBE_WARM_COUNT=64 warm_up "$mnt" 1
  fi
  for op in $(for _ in $(seq 1 "${TIMELINE_REPEAT:-1}"); do echo "$ops"; done); do
    [[ $op == read && ! -s $mnt/probe ]] && dd if=/dev/zero of="$mnt/probe" bs="$bs" count="$calls" oflag=direct 2>/dev/null
    echo 0 >"$tracing/tracing_on"; echo >"$tracing/trace"; echo "${TIMELINE_BUFFER_KB:-16384}" >"$tracing/buffer_size_kb"
    for e in xprtrdma_post_send xprtrdma_reply xprtrdma_wc_send xprtrdma_wc_receive xprtrdma_wc_li_done \
             svcrdma_wc_recv svcrdma_post_read_chunk svcrdma_wc_read svcrdma_post_write_chunk svcrdma_post_send \
             svcrdma_wc_send; do
      [[ -e $tracing/events/rpcrdma/$e/enable ]] && echo 1 >"$tracing/events/rpcrdma/$e/enable"
    done
    if [[ $server == java && ${TIMELINE_SYSCALLS:-1} == 1 ]]; then
      # the system calls of the Java server's threads (as they are now: warmed, all started), futex (202) only with
      # TIMELINE_WAKEUPS=1; a filter is "FIELD == tid || ..." over those threads
      threads() { local t; for t in /proc/"$java_nfs"/task/*; do printf '%s == %s || ' "$1" "${t##*/}"; done; }
      pids=$(threads common_pid)
      syscalls="id != 202 && "
      [[ ${TIMELINE_WAKEUPS:-0} == 1 ]] && syscalls=
      for d in sys_enter sys_exit; do
        echo "$syscalls(${pids% || })" >"$tracing/events/raw_syscalls/$d/filter"
        echo 1 >"$tracing/events/raw_syscalls/$d/enable"
      done
      if [[ ${TIMELINE_WAKEUPS:-0} == 1 ]]; then
        woken=$(threads pid) # sched_wakeup's pid is the woken thread
        echo "${woken% || }" >"$tracing/events/sched/sched_wakeup/filter"
        echo 1 >"$tracing/events/sched/sched_wakeup/enable"
      fi
    fi
    for e in ${TIMELINE_EVENTS:-}; do echo 1 >"$tracing/events/${e/://}/enable"; done
    before=$(jit_compilations "$jit_log")
    if [[ $server == java ]]; then jit0=$(thread_ms "$java_nfs" '^C[12] CompilerThre'); fjp0=$(thread_ms "$java_nfs" '^ForkJoinPool'); fi
    echo 1 >"$tracing/tracing_on"
    t0=$(date +%s.%N)
    if [[ $op == write ]]; then dd if=/dev/zero of="$mnt/probe" bs="$bs" count="$calls" oflag=direct 2>/dev/null
    else dd if="$mnt/probe" of=/dev/null bs="$bs" iflag=direct 2>/dev/null; fi
    t1=$(date +%s.%N)
    echo 0 >"$tracing/tracing_on"; echo 0 >"$tracing/events/enable"
    for d in sys_enter sys_exit; do echo 0 >"$tracing/events/raw_syscalls/$d/filter"; done
    echo 0 >"$tracing/events/sched/sched_wakeup/filter"
    echo "== $server $op bs $bs: $(awk -v a="$t0" -v b="$t1" -v c="$calls" 'BEGIN { printf "%.1f ms per call", 1000 * (b - a) / c }')$(
      [[ $server == java ]] && echo ", $(($(jit_compilations "$jit_log") - before)) compilations during the dd; CPU: the \
compiler $(($(thread_ms "$java_nfs" '^C[12] CompilerThre') - jit0)) ms, the carriers $(($(thread_ms "$java_nfs" '^ForkJoinPool') - fjp0)) ms")"
    [[ -n ${TIMELINE_KEEP:-} ]] && cp "$tracing/trace" "$TIMELINE_KEEP/trace-$server-$op-$((++kept)).txt"
    per_call "$tracing/trace" >/tmp/timeline-calls.txt
    call_stats </tmp/timeline-calls.txt
    first=${TIMELINE_CALL:-20}
    [[ $first == slowest ]] && first=$(sort -n /tmp/timeline-calls.txt | tail -n 1 | cut -d' ' -f2)
    echo "   the timeline of calls $first and $((first + 1)):"
    # every line between the first call's xprtrdma_post_send and the one of the call after the next, the dd's and the
    # server's
    awk -v first="$first" '/ xprtrdma_post_send: /{ n++ } n >= first && n < first + 2 {
           match($0, / [0-9]+\.[0-9]+: /); t = substr($0, RSTART+1, RLENGTH-3) + 0; if (!t0) t0 = t
           line = $0; sub(/^ */, "", line); comm = line; sub(/ +\[[0-9]+\].*/, "", comm)
           ev = $0; sub(/^.* [0-9]+\.[0-9]+: /, "", ev); ev = substr(ev, 1, 100)
           printf "   %8.3f ms  %-28s %s\n", 1000 * (t - t0), substr(comm, 1, 28), ev }' "$tracing/trace" | head -"${TIMELINE_LINES:-400}"
  done
  rm -f "$mnt/probe"; umount "$mnt"
done
kill "$java_nfs"; wait "$java_nfs" 2>/dev/null
nfs/src/test/resources/org/panamardma/nfs/start-nfs-server.sh stop >/dev/null 2>&1
