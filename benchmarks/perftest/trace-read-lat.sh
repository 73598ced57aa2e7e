#!/usr/bin/env bash
# Runs inside the testbed VM: why is rdma-tool perf's read_lat (one RDMA READ at a time, the client spinning on its
# CQ) slower than ib_read_lat on the same rxe pair? Measures both, with the Java client in a few JVM settings, and
# traces the guest scheduler (ftrace sched_wakeup/sched_switch) during one perftest run and one Java run: for every
# task that was woken and had to wait for a CPU, how long it waited and which task held the CPU meanwhile. rxe does
# its work in kernel workers (the requester, responder and completer tasks), so a READ completes only once its
# worker has run: a worker that waits a scheduler tick (4 ms at HZ=250) for the CPU adds that to the READ.
#
# Usage (host): soft-roce-ci/bin/testbed run -- 'benchmarks/perftest/trace-read-lat.sh rdma-tool/target/rdma-tool.jar'
# Env: TRACE_SIZE (8), TRACE_ITERS (1000), TRACE_VARIANTS ('name|command prefix|JVM options' separated by ';', e.g.
# 'default||;pinned|taskset -c 0|-XX:TieredStopAtLevel=1').
set -uo pipefail
jar=${1:?usage: trace-read-lat.sh RDMA_TOOL_JAR}
size=${TRACE_SIZE:-8}
iters=${TRACE_ITERS:-1000}
server_ip=10.77.0.2 server_dev=rxe1 client_dev=rxe0
port=19600
say() { echo "[trace] $*" >&2; }

tracing=/sys/kernel/tracing
[[ -d $tracing/events ]] || mount -t tracefs nodev "$tracing" 2>/dev/null || mount -t debugfs nodev /sys/kernel/debug
[[ -d $tracing/events ]] || tracing=/sys/kernel/debug/tracing
[[ -d $tracing/events/sched ]] || { say "no ftrace sched events in this kernel"; exit 1; }

trace_on() {
  echo 0 >"$tracing/tracing_on"
  echo >"$tracing/trace"
  echo 16384 >"$tracing/buffer_size_kb"
  echo 1 >"$tracing/events/sched/sched_wakeup/enable"
  echo 1 >"$tracing/events/sched/sched_wakeup_new/enable"
  echo 1 >"$tracing/events/sched/sched_switch/enable"
  echo 1 >"$tracing/tracing_on"
}
trace_off() { # $1: file to keep the trace in
  echo 0 >"$tracing/tracing_on"
  cat "$tracing/trace" >"$1"
  echo 0 >"$tracing/events/sched/enable"
}

# Wake-up latencies from a trace: for each woken task, the time from sched_wakeup to its sched_switch in, and the
# task that was on that CPU just before it (the one it waited behind). Kernel workers (rxe's tasks run there) apart.
summarize() { # $1 trace file, $2 label
  awk -v label="$2" '
    function ts_of(line,   m) { if (match(line, /[0-9]+\.[0-9]+: /)) return substr(line, RSTART, RLENGTH - 2) + 0; return -1 }
    / sched_wakeup(_new)?: / {
      t = ts_of($0); if (match($0, / pid=[0-9]+/)) { p = substr($0, RSTART + 5, RLENGTH - 5); wake[p] = t }
      next }
    / sched_switch: / {
      t = ts_of($0)
      if (!match($0, /prev_comm=.* prev_pid=/)) next
      prev = substr($0, RSTART + 10, RLENGTH - 20)
      match($0, /next_comm=.* next_pid=/); next_comm = substr($0, RSTART + 10, RLENGTH - 20)
      match($0, / next_pid=[0-9]+/); np = substr($0, RSTART + 10, RLENGTH - 10)
      match($0, /\[[0-9]+\]/); cpu = substr($0, RSTART + 1, RLENGTH - 2) + 0
      if (last[cpu] != "") run[last_comm[cpu]] += t - last[cpu]
      last[cpu] = t; last_comm[cpu] = next_comm
      if (np in wake) {
        lat = (t - wake[np]) * 1e6; delete wake[np]
        kind = (next_comm ~ /^kworker|^ksoftirq|rxe/) ? "kernel worker" : "other"
        n[kind]++; lats[kind, n[kind]] = lat
        if (lat > 1000) { behind[kind, prev]++; slow[kind]++ }
      }
    }
    END {
      for (k in n) {
        m = n[k]; for (i = 1; i <= m; i++) v[i] = lats[k, i]
        # insertion sort is fine for a few thousand
        for (i = 2; i <= m; i++) { x = v[i]; j = i - 1; while (j > 0 && v[j] > x) { v[j + 1] = v[j]; j-- } v[j + 1] = x }
        i90 = int(m * 0.9); if (i90 < 1) i90 = 1
        printf "%s: %s wake-ups: %d, wait for a CPU p50 %.0f us, p90 %.0f us, max %.0f us; over 1 ms: %d\n", label, k, m, v[int((m + 1) / 2)], v[i90], v[m], (slow[k] + 0)
        for (key in behind) { split(key, kk, SUBSEP); if (kk[1] == k) printf "%s:   %s waited over 1 ms behind %s: %d times\n", label, k, kk[2], behind[key] }
        delete v
      }
      for (c in run) if (run[c] > 0.05) printf "%s: on a CPU in the trace: %-20s %.2f s\n", label, c, run[c]
    }' "$1"
}

say "tracing in $tracing; starting rdma-tool perf's server on $server_ip"
# Interrupts per CPU taken during a run, from /proc/interrupts: LOC (timer ticks), RES (rescheduling IPIs: a task
# woken for another CPU), CAL (function-call IPIs). Reading it perturbs nothing, unlike tracing.
irqs() { awk '$1 ~ /^(LOC|RES|CAL):$/ { printf "%s %s %s ", $1, $2, $3 }' /proc/interrupts; }
irq_delta() { # $1 before, $2 after: "LOC cpu0+cpu1 ..." differences
  awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, x, " "); split(b, y, " ")
    for (i = 1; i <= n; i += 3) printf "%s cpu0 %d cpu1 %d; ", x[i], y[i + 1] - x[i + 1], y[i + 2] - x[i + 2] }'
}
java -jar "$jar" perf --server --bind "$server_ip" --port 18515 >/tmp/trace-java-server.log 2>&1 &
java_server=$!
trap 'kill $java_server 2>/dev/null' EXIT
sleep 8

perftest() { # prints the p50 (t_typical) of ib_read_lat
  timeout 120 ib_read_lat -d "$server_dev" -R -F -n "$iters" -s "$size" -p $((port)) >/tmp/trace-pt-server.log 2>&1 &
  local s=$!
  local a
  for a in 1 2 3 4 5 6 7 8 9 10; do
    sleep 1
    timeout 120 ib_read_lat -d "$client_dev" -R -F -n "$iters" -s "$size" -p $((port)) "$server_ip" \
      >/tmp/trace-pt.log 2>&1 && break
  done
  wait "$s" 2>/dev/null
  port=$((port + 1))
  awk -v s="$size" '$1 == s && NF >= 5 { l = $5 } END { print l }' /tmp/trace-pt.log
}
javaperf() { # $1: command prefix (e.g. taskset -c 0), then JVM options; prints p50 of rdma-tool perf read_lat
  local prefix=$1; shift
  # shellcheck disable=SC2086
  timeout 600 $prefix java "$@" -jar "$jar" perf "$server_ip" --port 18515 --test read_lat --size "$size" --iters "$iters" \
    --warmup "$iters" --csv --timeout 300 >/tmp/trace-java.log 2>&1
  awk -F, '$1 == "read_lat" { print $4 }' /tmp/trace-java.log
}

i0=$(irqs); p=$(perftest); i1=$(irqs)
say "ib_read_lat $size B x $iters: p50 $p us; interrupts during the run: $(irq_delta "$i0" "$i1")"
[[ -s /tmp/trace-pt.log ]] || { say "ib_read_lat printed nothing"; cat /tmp/trace-pt-server.log >&2; }
if [[ -n ${TRACE_VARIANTS:-} ]]; then
  IFS=';' read -r -a variants <<<"$TRACE_VARIANTS"
else
  variants=('default||' 'c1-only||-XX:TieredStopAtLevel=1' 'one-cpu|taskset -c 0|'
    'one-cpu-c1|taskset -c 0|-XX:TieredStopAtLevel=1 -XX:+UseSerialGC')
fi
for v in "${variants[@]}"; do
  IFS='|' read -r name prefix opts <<<"$v"
  i0=$(irqs)
  # shellcheck disable=SC2086
  p=$(javaperf "$prefix" $opts)
  i1=$(irqs)
  say "rdma-tool perf read_lat $size B x $iters ($name: ${prefix:+$prefix, }${opts:-default JVM}): p50 $p us; interrupts during the run (JVM start included): $(irq_delta "$i0" "$i1")"
done
wqmask=/sys/devices/virtual/workqueue/cpumask
if [[ -w $wqmask ]]; then
  old=$(cat "$wqmask")
  echo 1 >"$wqmask" # unbound workqueues (rxe_wq) on cpu 0 only, beside the client
  i0=$(irqs); p=$(javaperf "taskset -c 0"); i1=$(irqs)
  echo "$old" >"$wqmask"
  say "rdma-tool perf read_lat, client and unbound kernel workers on cpu 0: p50 $p us; interrupts: $(irq_delta "$i0" "$i1")"
fi
i0=$(irqs); p=$(perftest); i1=$(irqs)
say "ib_read_lat again: p50 $p us; interrupts: $(irq_delta "$i0" "$i1")"
i0=$(irqs); p=$(taskset -c 0 bash -c "$(declare -f perftest); size=$size iters=$iters port=$((port + 50)) server_dev=$server_dev client_dev=$client_dev server_ip=$server_ip perftest"); i1=$(irqs)
say "ib_read_lat, both ends on cpu 0: p50 $p us; interrupts: $(irq_delta "$i0" "$i1")"

say "tracing one ib_read_lat run"
trace_on; p=$(perftest); trace_off /tmp/trace-perftest.txt
say "traced ib_read_lat: p50 $p us"
summarize /tmp/trace-perftest.txt "ib_read_lat" >&2
say "tracing one rdma-tool perf read_lat run (default JVM)"
trace_on; p=$(javaperf ""); trace_off /tmp/trace-java.txt
say "traced rdma-tool perf read_lat: p50 $p us"
summarize /tmp/trace-java.txt "rdma-tool" >&2
