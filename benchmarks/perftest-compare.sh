#!/usr/bin/env bash
# perftest and panama-rdma side by side, in ONE boot of the testbed VM, on the same Soft-RoCE devices (rxe0 ->
# rxe1): ib_send_lat, ib_write_lat, ib_read_lat, ib_atomic_lat and ib_write_bw against `rdma-tool perf` with the
# same message sizes and iteration counts. Prints one table (C figure, Java figure, Java/C ratio for p50 and p99
# latency, and bandwidth) and writes it as markdown and CSV:
#
#   benchmarks/target/perftest-compare.md    the table, with the date, the machine and the settings
#   benchmarks/target/perftest-compare.svg   the same figures as bars, side by side, each pair with its ratio
#                                            (ComparePlot, plain Java; benchmarks/README.md shows results/'s)
#   benchmarks/target/perftest-compare.csv   test,size,iters,c_p50_us,java_p50_us,p50_ratio,c_p99_us,...
#   benchmarks/target/perftest-raw.csv       every figure of both, as measured
#   benchmarks/target/perftest-compare-rpc.csv  NFSv3 against the guest's knfsd with the same Java client over TCP
#                                            and over RPC-over-RDMA: NULL round trips, WRITE and READ MB/s
#   benchmarks/target/perftest-compare-vs-kernel.csv  the Java client over RDMA against the kernel's NFS client
#                                            (dd) on the same device and knfsd: MB/s and the ratio
#   benchmarks/target/perftest-compare-knfs.csv the kernel's NFS client against the Java NFS server and against
#                                            knfsd over RDMA on rxe and siw (dd, direct I/O): MB/s and the ratio
#   benchmarks/target/perftest-compare-bridge.csv one oncrpc4j service over oncrpc4j's TCP and over the bridge
#                                            (RPC-over-RDMA), one JVM: NULL round trips, 1 MiB GET and PUT MB/s
#
# Environment: PERF_SIZES (default "8 64 512 4096 65536"; "all" = every power of two 8 B .. 64 KiB), PERF_ITERS
# (1000, perftest's default for latency), PERF_BW_ITERS (5000, perftest's default for bandwidth), PERF_TESTS,
# PERF_SERVER_DEV/PERF_CLIENT_DEV/PERF_SERVER_IP (rxe1/rxe0/10.77.0.2; siw1/siw0/10.77.1.2 for iWARP, without
# atomic_lat), PERF_WARMUP (unmeasured rdma-tool iterations first; default: as many as measured, since a JVM
# interprets the loop until its JIT compiles it, and the steady state is what a service sees), TESTBED_TIMEOUT
# (s, default 3600), PERF_RPC (1; 0 skips the RPC part), PERF_RPC_FILE_MIB (64: the file NfsRpcBench writes and
# reads back in calls of 256 KiB), PERF_RPC_IO_ITERS (2 timed passes each), PERF_RPC_INFLIGHT ("1 4": calls in flight),
# PERF_RPC_TRANSPORTS ("tcp rdma"), PERF_RPC_BUSY (1; 0 skips the busy-polling NULL rows), PERF_RPC_SIW (0; 1 also
# runs the RDMA client against knfsd over siw, rows RPC-RDMA-SIW), PERF_NFS_SERVER_JAR (nfs/target/nfs-server.jar),
# PERF_KNFS (1; 0 skips the kernel client's Java-server-vs-knfsd part), PERF_KNFS_MIB (64: the dd file's size),
# PERF_KNFS_WARM_MIB (16), PERF_KNFS_JIT_QUIET (3), PERF_KNFS_JIT_CPU_PCT (2), PERF_KNFS_WARM_WINDOW (as many passes as
# the timed rounds' traffic) and PERF_KNFS_WARM_MAX (150): the Java server is warmed by passes of WARM_MIB until the
# last WINDOW see at most JIT_QUIET compilations or its compiler threads at most JIT_CPU_PCT percent of its CPU (see
# perftest/compare-in-guest.sh),
# PERF_BRIDGE (1; 0 skips the oncrpc4j bridge part), PERF_BRIDGE_IO_ITERS (32 GETs and 32 PUTs), PERF_BRIDGE_SIZE
# (1048576: their payload in bytes), PERF_BINDING (1; 0 skips the host benchmark of the binding's own cost,
# benchmarks/binding-cost.sh, whose table is appended to perftest-compare.md).
# Only the kernel client part: PERF_TESTS=none PERF_RPC=0 PERF_BRIDGE=0 benchmarks/perftest-compare.sh
# Only the oncrpc4j bridge part: PERF_TESTS=none PERF_RPC=0 PERF_KNFS=0 benchmarks/perftest-compare.sh
# Issue 26's figures, each beside its target, three runs of the kernel-anchored parts in one boot: issue-figures.sh
#
# Under emulation (TCG) absolute figures are not hardware figures; both implementations pay the same emulation,
# so the ratios are the point.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
cd "$root"
# shellcheck source=../soft-roce-ci/bin/jdk.sh
source soft-roce-ci/bin/jdk.sh
find_jdk25

if [[ ${PERF_SIZES:-} == all ]]; then
  PERF_SIZES="8 16 32 64 128 256 512 1024 2048 4096 8192 16384 32768 65536"
fi
export PERF_SIZES PERF_ITERS PERF_BW_ITERS PERF_TESTS PERF_SERVER_DEV PERF_CLIENT_DEV PERF_SERVER_IP PERF_WARMUP

echo "[perftest-compare] building rdma-tool, nfs-server.jar and benchmarks.jar ..." >&2
# (no javadoc or sources jars: not needed to run)
./mvnw -B -q -pl rdma-tool,nfs,benchmarks -am package -DskipTests -Dmaven.javadoc.skip -Dmaven.source.skip
mkdir -p benchmarks/target
raw=benchmarks/target/perftest-raw.csv
# earlier runs' tables and plot go: a part this run skips (PERF_RPC=0, PERF_KNFS=0, PERF_BRIDGE=0) must not show old
# figures
rm -f "$raw" benchmarks/target/perftest-compare*.csv benchmarks/target/perftest-compare.md benchmarks/target/perftest-compare.svg
env_args=""
for v in PERF_SIZES PERF_ITERS PERF_BW_ITERS PERF_TESTS PERF_SERVER_DEV PERF_CLIENT_DEV PERF_SERVER_IP PERF_JAVA_OPTS PERF_WARMUP PERF_RPC PERF_RPC_IO_ITERS PERF_RPC_FILE_MIB PERF_RPC_INFLIGHT PERF_RPC_TRANSPORTS PERF_RPC_BUSY PERF_RPC_SIW PERF_KNFS PERF_KNFS_MIB PERF_KNFS_ROUNDS PERF_KNFS_WARM_MIB PERF_KNFS_JIT_QUIET PERF_KNFS_JIT_CPU_PCT PERF_KNFS_WARM_WINDOW PERF_KNFS_WARM_MAX \
         PERF_BRIDGE PERF_BRIDGE_IO_ITERS PERF_BRIDGE_SIZE; do
  [[ -n ${!v:-} ]] && env_args+="$v=$(printf '%q' "${!v}") "
done
start=$SECONDS
rc=0
echo "[perftest-compare] booting the testbed VM; in it each measurement prints [compare N/TOTAL, time, time left]" >&2
soft-roce-ci/bin/testbed run --timeout "${TESTBED_TIMEOUT:-5400}" -- \
  "${env_args}benchmarks/perftest/compare-in-guest.sh rdma-tool/target/rdma-tool.jar $raw benchmarks/target/benchmarks.jar" || rc=$?
[[ -s $raw ]] || { echo "perftest-compare: no figures ($raw is empty); VM exit $rc" >&2; exit 1; }

benchmarks/perftest/table.sh "$raw" benchmarks/target/perftest-compare.csv benchmarks/target/perftest-compare.md \
  "$(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m), testbed VM ($(cat ~/.cache/panama-rdma/testbed/kvm-* 2>/dev/null | head -n 1 || echo tcg)), ${PERF_CLIENT_DEV:-rxe0} -> ${PERF_SERVER_DEV:-rxe1}, $((SECONDS - start)) s"
where="$(date -u +%Y-%m-%d), $(nproc) cores, ${PERF_CLIENT_DEV:-rxe0} -> ${PERF_SERVER_DEV:-rxe1}, testbed VM"
"$JAVA_HOME/bin/java" -cp benchmarks/target/benchmarks.jar org.panamardma.benchmarks.plot.ComparePlot benchmarks/target/perftest-compare.svg \
  "perftest (C) and rdma-tool perf (Java), $where (not hardware figures: compare the ratios)" \
  benchmarks/target/perftest-compare.csv benchmarks/target/perftest-compare-rpc.csv \
  benchmarks/target/perftest-compare-knfs.csv benchmarks/target/perftest-compare-bridge.csv || echo "perftest-compare: the SVG plot failed" >&2
# The guard of issue 26's WRITE regression: the Java client's RDMA WRITE against the kernel client's, same knfsd, same boot
if [[ ${PERF_RPC:-1} == 1 && ${PERF_KNFS:-1} == 1 ]]; then
  benchmarks/perftest/write-guard.sh "$raw" || rc=1
fi
# The binding's own cost on the host CPU (no device, the stub provider): after the VM, so neither disturbs the other
if [[ ${PERF_BINDING:-1} == 1 ]]; then
  echo "[perftest-compare] the binding's own cost on the host CPU (benchmarks/binding-cost.sh, about 10 minutes) ..." >&2
  if benchmarks/binding-cost.sh >benchmarks/target/binding-cost.log 2>&1; then
    { echo; cat benchmarks/target/binding-cost/binding-cost.md; } >>benchmarks/target/perftest-compare.md
  else
    echo "perftest-compare: binding-cost.sh failed (benchmarks/target/binding-cost.log)" >&2
    rc=1
  fi
fi
cat benchmarks/target/perftest-compare.md
exit $rc
