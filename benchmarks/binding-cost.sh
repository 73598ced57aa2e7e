#!/usr/bin/env bash
# What the Java binding itself costs per post+poll on this host's CPU (issue 15, item 3): BindingCostBenchmark runs
# every request (SEND, WRITE, READ, FetchAdd on both send paths; FLUSH and ATOMIC WRITE on the extended one) through
# verbs-ffm's QueuePair / CompletionQueue and through a C loop making the same calls on the same QP, against the stub
# provider (native-headers/stub: no RDMA device, no libibverbs needed; gcc and the rdma-core 56 header set are:
# native-headers/headers/fetch.sh debian13). Writes benchmarks/target/binding-cost/binding-cost.md (the README's
# table: Java, C, Java - C, Java / C per request, against the target Java <= C + 25 ns) beside JMH's log.
#
#   benchmarks/binding-cost.sh                  # builds benchmarks.jar if missing, then runs (about 4 minutes)
#   JMH_ARGS="-f 1 -wi 5 -i 10" benchmarks/binding-cost.sh
#   MVN_ARGS="-Dmaven.repo.local=..." benchmarks/binding-cost.sh
#   REQUESTS="WRITE/ext WRITE/legacy" benchmarks/binding-cost.sh   # some of the requests only
#   benchmarks/binding-cost.sh --table          # only writes the table again from the last run's log
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
jar=$here/target/benchmarks.jar
out=$here/target/binding-cost
target_ns=25

if [[ ${1:-} != --table ]]; then
  if [[ ! -f $jar ]]; then
    # shellcheck disable=SC2086 # MVN_ARGS is a list of options
    (cd "$root" && ./mvnw -B -q ${MVN_ARGS:-} -pl benchmarks -am package -DskipTests)
  fi
  mkdir -p "$out"
  start=$SECONDS
  : > "$out/jmh.log"
  # One JMH run per request, so that its Java and C figures are measured a few seconds apart, not minutes (JMH runs
  # every parameter of one method before the next method): what else runs on the host drifts over minutes.
  # the benchmark's requests, as JMH lists them: param "request" = {SEND/ext, SEND/legacy, ...}
  requests=$("$java" --sun-misc-unsafe-memory-access=allow -jar "$jar" -lp 'BindingCostBenchmark.java$' | grep -m1 'param "request"' \
    | sed 's/.*{\(.*\)}.*/\1/; s/,/ /g')
  for request in ${REQUESTS:-$requests}; do
    # shellcheck disable=SC2086 # JMH_ARGS is a list of options
    # JMH 1.37 calls sun.misc.Unsafe (org.openjdk.jmh.util.Utils): allowed, or JDK 25 warns here and in every fork
    "$java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -jar "$jar" 'BindingCostBenchmark' -p request="$request" \
      ${JMH_ARGS:--f 1 -wi 3 -i 5 -w 1s -r 1s} | tee -a "$out/jmh.log"
  done
  echo "$((SECONDS - start))" > "$out/seconds"
fi

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
jdk=$("$java" -version 2>&1 | head -1)
{
  echo "Binding cost on the host CPU, $(date -u +%Y-%m-%d), $(nproc) cores, ${cpu:-unknown CPU}, $jdk, $(cat "$out/seconds") s."
  echo "ns per post+poll (JMH average time, ${JMH_ARGS:--f 1 -wi 3 -i 5 -w 1s -r 1s}): Java through verbs-ffm's QueuePair and"
  echo "CompletionQueue, C through the same function pointers on the same QP (stub_bench.c). Mean ± standard deviation of the"
  echo "measured iterations, and the best iteration: other work on the host only ever adds time, so the difference of the"
  echo "best iterations is the cost the binding adds, and decides the target Java - C <= $target_ns ns."
  echo
  echo "| request | path | Java ns | C ns | Java - C, means | Java - C, best | Java / C, best | target |"
  echo "|---|---|---:|---:|---:|---:|---:|---|"
  # JMH's log: "# Benchmark: ...BindingCostBenchmark.java", "# Parameters: (request = SEND/ext)", then
  # "Iteration   N: 38.000 ns/op" per measured iteration (warm-up ones say "Warmup Iteration")
  awk -v target="$target_ns" '
    /^# Benchmark: / { n = split($3, b, "."); method = b[n] }
    /^# Parameters: / { r = $5; sub(/\)$/, "", r); if (!(r in seen)) { seen[r] = 1; order[++count] = r } }
    /^Iteration / {
      v = $3 + 0; k = r SUBSEP method;
      sum[k] += v; sq[k] += v * v; it[k]++;
      if (!(k in best) || v < best[k]) best[k] = v;
    }
    function mean(k) { return sum[k] / it[k] }
    function sd(k,  m) { m = mean(k); return it[k] > 1 ? sqrt((sq[k] - it[k] * m * m) / (it[k] - 1)) : 0 }
    END {
      for (i = 1; i <= count; i++) {
        r = order[i]; j = r SUBSEP "java"; c = r SUBSEP "c";
        split(r, p, "/");
        path = p[2] == "ext" ? "extended (ibv_wr_*, ibv_start_poll)" : "legacy (ibv_post_send, ibv_poll_cq)";
        d = best[j] - best[c];
        printf "| %s | %s | %.1f ± %.1f (best %.1f) | %.1f ± %.1f (best %.1f) | %.1f | %.1f | %.2f | %s |\n",
          p[1], path, mean(j), sd(j), best[j], mean(c), sd(c), best[c], mean(j) - mean(c), d, best[j] / best[c],
          (d <= target ? "met" : "missed by " sprintf("%.0f", d - target) " ns");
      }
    }' "$out/jmh.log"
} > "$out/binding-cost.md"
cat "$out/binding-cost.md"
