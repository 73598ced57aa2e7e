#!/usr/bin/env bash
# Builds the JMH benchmarks jar and runs the data-path benchmarks on rxe0/rxe1 inside the soft-RoCE testbed VM,
# with JMH's GC profiler (gc.alloc.rate.norm: bytes allocated per operation).
#
#   benchmarks/run-in-testbed.sh                    all data-path benchmarks
#   benchmarks/run-in-testbed.sh 'rdmaWrite.*'      only those matching (any further JMH arguments are passed on)
#
# Environment:
#   JMH_OPTS        fork/iteration options (default: -f 1 -wi 4 -w 3s -i 3 -r 3s). Sized for the guest under TCG
#                   emulation, where a JVM is ~15x slower than the host and one verbs operation takes ~1 ms: 12 s of
#                   warmup is ~10,000 operations, past C2's thresholds (C2 and its escape analysis are what the
#                   allocation figures are about). The whole run takes about 8 minutes.
#   BENCH_JVM_OPTS  extra options of the guest JVM (inherited by JMH's forks), e.g. -XX:StartFlightRecording=...
#                   (No -XX:TieredStopAtLevel=1 here, unlike the device suite: C2 and its escape analysis are part of
#                   what the allocation figures prove.)
#   TESTBED_TIMEOUT wall-clock limit of the VM run in seconds (default 1800)
#
# Results: JMH's report on stdout, and benchmarks/target/jmh-data-path.csv. Besides gc.alloc.rate.norm (which
# counts every thread of the JVM) the run reports worker.alloc.norm, the benchmark thread's own B/op
# (WorkerAllocationProfiler explains why both). Figures under TCG emulation are not
# hardware figures; the allocation figures (B/op) are the point.
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
cd "$root"

if [[ -z ${JAVA_HOME:-} ]]; then
  for j in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/java-25-openjdk-amd64; do
    if [[ -x $j/bin/java ]]; then export JAVA_HOME=$j; break; fi
  done
fi

./mvnw -B -q -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip -Dmaven.source.skip

jar=benchmarks/target/benchmarks.jar
csv=benchmarks/target/jmh-data-path.csv
[[ -f $jar ]] || { echo "run-in-testbed: $jar was not built" >&2; exit 1; }
rm -f "$csv"

jmh_opts=${JMH_OPTS:--f 1 -wi 4 -w 3s -i 3 -r 3s}
args=("$@")
((${#args[@]} > 0)) || args=('org.panamardma.benchmarks.DataPathBenchmark')

# one bash command line for the guest; word-split JMH_OPTS/BENCH_JVM_OPTS on purpose, quote the rest
# --sun-misc-unsafe-memory-access=allow: JMH 1.37 itself calls sun.misc.Unsafe (org.openjdk.jmh.util.Utils), which
# JDK 25 warns about in the launcher and in every fork (forks inherit the launching JVM's options)
guest_cmd="java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow ${BENCH_JVM_OPTS:-} -jar $jar $jmh_opts"
for a in "${args[@]}"; do guest_cmd+=" $(printf '%q' "$a")"; done
# -prof gc: JMH's gc.alloc.rate.norm (all threads of the JVM); WorkerAllocationProfiler: the benchmark thread alone
guest_cmd+=" -prof gc -prof org.panamardma.benchmarks.WorkerAllocationProfiler -rf csv -rff $csv"

echo "run-in-testbed: $guest_cmd" >&2
soft-roce-ci/bin/testbed run --timeout "${TESTBED_TIMEOUT:-1800}" -- "$guest_cmd"
