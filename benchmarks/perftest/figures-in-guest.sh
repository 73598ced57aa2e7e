#!/usr/bin/env bash
# Runs inside the testbed VM (see ../issue-figures.sh): the device figures of issue 26, in one boot.
#   1. FIGURES_RUNS (3) runs of compare-in-guest.sh's kernel-anchored parts: the kernel NFS client against the Java
#      NFS server and against knfsd (dd, direct I/O, 256 KiB and 1 MiB, rxe and siw; the servers warmed once, the
#      runs' rounds after), then the Java NFS client over RPC-over-RDMA against knfsd (1 and 4 calls in flight, rxe
#      and siw); each run's raw CSV is DIR/raw-N.csv;
#   2. the zero-registration device tests (Roce/IwarpSteadyStateRegistrationDeviceTest) with
#      -Drpcrdma.steady.calls=FIGURES_STEADY_CALLS (1000): their lines "server registrations N, deregistrations M"
#      go to DIR/registrations.log.
# Usage: figures-in-guest.sh DIR   (DIR holds benchmarks.jar, nfs-server.jar and lib/, the device suite's jars,
# copied there by issue-figures.sh so that the host may rebuild its targets while the VM runs)
set -uo pipefail
dir=$(cd "$1" && pwd) # absolute: the registration part runs from soft-roce-ci/device-suite
here=$(cd "$(dirname "$0")" && pwd)
runs=${FIGURES_RUNS:-3}
rc=0
header=impl,test,size,iters,p50_us,p99_us,avg_us,bw_MBps
for i in $(seq 1 "$runs"); do echo "$header" >"$dir/raw-$i.csv"; done
# The kernel client against the two servers: the Java server warmed once per device (as a long-running server is:
# its warm-up until the JIT is quiet took 25 min of the boot, 2026-11-28), then the runs' rounds, each run's rows
# into its raw-N.csv
echo "[figures] the kernel client against the Java server and knfsd: $runs runs after one warm-up" >&2
PERF_TESTS=none PERF_BRIDGE=0 PERF_KNFS=1 PERF_RPC=0 PERF_KNFS_RUNS=$runs PERF_KNFS_RUN_OUT="$dir/raw-%d.csv" \
  PERF_NFS_SERVER_JAR="$dir/nfs-server.jar" "$here/compare-in-guest.sh" /dev/null /dev/null || rc=1
# The Java client against knfsd, the kernel client beside it (KNFS-ANCHOR): a new client JVM per run
for i in $(seq 1 "$runs"); do
  echo "[figures] the Java NFS client, run $i of $runs" >&2
  PERF_TESTS=none PERF_BRIDGE=0 PERF_KNFS=0 PERF_RPC=1 PERF_RPC_TRANSPORTS=rdma PERF_RPC_BUSY=0 PERF_RPC_SIW=1 \
    PERF_ITERS=${PERF_ITERS:-100} "$here/compare-in-guest.sh" /dev/null "$dir/rpc-$i.csv" "$dir/benchmarks.jar" || rc=1
  tail -n +2 "$dir/rpc-$i.csv" >>"$dir/raw-$i.csv"
done
if [[ ${FIGURES_REGISTRATIONS:-1} == 1 ]]; then
  echo "[figures] zero-registration device tests, ${FIGURES_STEADY_CALLS:-1000} READs and WRITEs per device" >&2
  # run-suite.sh is run where the README runs it (soft-roce-ci/device-suite), with the copied jars
  (cd "$here/../../soft-roce-ci/device-suite" && SUITE_JAVA_OPTS="-Drpcrdma.steady.calls=${FIGURES_STEADY_CALLS:-1000}" \
    ./run-suite.sh "$dir/lib" \
      --select-class org.panamardma.rpcrdma.server.RoceSteadyStateRegistrationDeviceTest \
      --select-class org.panamardma.rpcrdma.server.IwarpSteadyStateRegistrationDeviceTest) >"$dir/registrations.log" 2>&1 || rc=1
  grep -E 'server registrations|tests (successful|failed)' "$dir/registrations.log" >&2
fi
exit $rc
