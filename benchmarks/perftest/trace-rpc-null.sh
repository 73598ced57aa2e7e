#!/usr/bin/env bash
# Runs inside the testbed VM: where an RPC NULL round trip of the Java NFS client spends its thread wake-ups, over
# TCP and over RPC-over-RDMA (with and without busy polling), against the guest's knfsd. Each run makes NULL calls
# one at a time (NfsRpcBench --io-iters 0) while ftrace counts sched_wakeup events per woken thread of the JVM;
# printed per call: how often each kind of thread (the caller, the RDMA connection's poller, others) was woken. Every
# wake-up of a thread that was asleep is a chance to wait for a CPU (a scheduler tick, 4 ms, on the emulated guest:
# see benchmarks/README.md, "Benchmarks beside perftest").
#
# Usage (host, after ./mvnw -pl benchmarks -am package -DskipTests):
#   soft-roce-ci/bin/testbed run -- 'benchmarks/perftest/trace-rpc-null.sh benchmarks/target/benchmarks.jar'
set -uo pipefail
bench_jar=${1:?usage: trace-rpc-null.sh BENCHMARKS_JAR}
calls=${TRACE_CALLS:-1000}
server_ip=10.77.0.2
say() { echo "[trace-rpc] $*" >&2; }

tracing=/sys/kernel/tracing
[[ -d $tracing/events ]] || mount -t tracefs nodev "$tracing" 2>/dev/null
[[ -d $tracing/events/sched ]] || { say "no ftrace sched events in this kernel"; exit 1; }
nfs/src/test/resources/org/panamardma/nfs/start-nfs-server.sh >/tmp/nfs-start.log 2>&1 \
  || { say "knfsd did not start"; tail -n 20 /tmp/nfs-start.log >&2; exit 1; }

run() { # $1 label, then NfsRpcBench arguments
  local label=$1; shift
  echo 0 >"$tracing/tracing_on"; echo >"$tracing/trace"; echo 16384 >"$tracing/buffer_size_kb"
  echo 1 >"$tracing/events/sched/sched_wakeup/enable"
  echo 1 >"$tracing/tracing_on"
  timeout 900 java --enable-native-access=ALL-UNNAMED -cp "$bench_jar" org.panamardma.benchmarks.NfsRpcBench \
    --server "$server_ip" --iters "$calls" --warmup "$calls" --io-iters 0 "$@" >/tmp/trace-rpc.log 2>/tmp/trace-rpc.err
  local rc=$?
  echo 0 >"$tracing/tracing_on"; echo 0 >"$tracing/events/sched/enable"
  ((rc == 0)) || { say "$label: NfsRpcBench exit $rc"; tail -n 20 /tmp/trace-rpc.err >&2; return 1; }
  local p50
  p50=$(awk -F, '$2 == "rpc_null" { print $5 }' /tmp/trace-rpc.log)
  # wake-ups of the JVM's threads by name (the JVM's start and its other threads are in the trace too: the caller
  # "main" and the poller "rdma-connection" are the ones that move per call)
  awk -v label="$label" -v calls=$((2 * calls)) -v p50="$p50" '
    / sched_wakeup: / {
      if (!match($0, /comm=.* pid=/)) next
      comm = substr($0, RSTART + 5, RLENGTH - 10)
      n[comm]++
    }
    END {
      printf "%s: NULL p50 %s us; wake-ups per call (%d calls, warm-up included):", label, p50, calls
      for (c in n) if (n[c] / calls >= 0.05) printf " %s %.2f;", c, n[c] / calls
      printf "\n"
    }' "$tracing/trace" >&2
}

run "TCP" --transport tcp
run "RDMA" --transport rdma
run "RDMA, busy polling 1 ms" --transport rdma --busy-poll 1000
nfs/src/test/resources/org/panamardma/nfs/start-nfs-server.sh stop >/dev/null 2>&1
