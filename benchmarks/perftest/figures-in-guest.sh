#!/usr/bin/env bash
# Runs inside the testbed VM (see ../issue-figures.sh): the device figures of issue 26, in one boot.
#   1. FIGURES_RUNS (3) runs of compare-in-guest.sh's kernel-anchored parts: the kernel NFS client against the Java
#      NFS server and against knfsd (dd, direct I/O, 256 KiB and 1 MiB, rxe and siw), then the Java NFS client over
#      RPC-over-RDMA against knfsd (1 and 4 calls in flight, rxe and siw); each run's raw CSV is DIR/raw-N.csv;
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
for i in $(seq 1 "$runs"); do
  echo "[figures] kernel-anchored run $i of $runs" >&2
  PERF_TESTS=none PERF_BRIDGE=0 PERF_KNFS=1 PERF_RPC=1 PERF_RPC_TRANSPORTS=rdma PERF_RPC_BUSY=0 PERF_RPC_SIW=1 \
    PERF_NFS_SERVER_JAR="$dir/nfs-server.jar" PERF_ITERS=${PERF_ITERS:-100} \
    "$here/compare-in-guest.sh" /dev/null "$dir/raw-$i.csv" "$dir/benchmarks.jar" || rc=1
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
