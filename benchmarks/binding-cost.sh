#!/usr/bin/env bash
# What the Java binding itself costs per post+poll on this host's CPU (issue 15, item 3): BindingCostBenchmark runs
# every request (SEND, WRITE, READ, FetchAdd on both send paths; FLUSH and ATOMIC WRITE on the extended one) through
# verbs-ffm's QueuePair / CompletionQueue and through a C loop making the same calls on the same QP, against the stub
# provider (native-headers/stub: no RDMA device, no libibverbs needed; gcc and the rdma-core 56 header set are:
# native-headers/headers/fetch.sh debian13). Writes benchmarks/target/binding-cost/binding-cost.md (the README's
# table: Java, C, Java - C, Java / C per request, against the target Java <= C + 25 ns) beside JMH's CSV and log.
#
#   benchmarks/binding-cost.sh                  # builds benchmarks.jar if missing, then runs (about 4 minutes)
#   JMH_ARGS="-f 1 -wi 5 -i 10" benchmarks/binding-cost.sh
#   MVN_ARGS="-Dmaven.repo.local=..." benchmarks/binding-cost.sh
#   benchmarks/binding-cost.sh --table          # only writes the table again from the last run's CSV
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
  # shellcheck disable=SC2086 # JMH_ARGS is a list of options
  "$java" --enable-native-access=ALL-UNNAMED -jar "$jar" 'BindingCostBenchmark' ${JMH_ARGS:--f 1 -wi 3 -i 5 -w 1s -r 1s} \
    -rf csv -rff "$out/jmh.csv" | tee "$out/jmh.log"
  echo "$((SECONDS - start))" > "$out/seconds"
fi

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
jdk=$("$java" -version 2>&1 | head -1)
{
  echo "Binding cost on the host CPU, $(date -u +%Y-%m-%d), $(nproc) cores, ${cpu:-unknown CPU}, $jdk, $(cat "$out/seconds") s."
  echo "ns per post+poll (JMH average time, ${JMH_ARGS:--f 1 -wi 3 -i 5 -w 1s -r 1s}); Java: verbs-ffm's QueuePair and"
  echo "CompletionQueue; C: the same calls through the same function pointers (stub_bench.c); target Java - C <= $target_ns ns."
  echo
  echo "| request | path | Java ns (± 99.9%) | C ns (± 99.9%) | Java - C ns | Java / C | target |"
  echo "|---|---|---:|---:|---:|---:|---|"
  # JMH's CSV: "Benchmark","Mode","Threads","Samples","Score","Score Error (99.9%)","Unit","Param: request"
  awk -F, -v target="$target_ns" '
    NR > 1 {
      gsub(/["\r]/, "");
      split($1, b, "."); method = b[length(b)];
      score[$8, method] = $5; error[$8, method] = $6; if (!($8 in seen)) { seen[$8] = 1; order[++n] = $8 }
    }
    END {
      for (i = 1; i <= n; i++) {
        r = order[i]; j = score[r, "java"]; c = score[r, "c"];
        split(r, p, "/"); path = p[2] == "ext" ? "extended (ibv_wr_*, ibv_start_poll)" : "legacy (ibv_post_send, ibv_poll_cq)";
        d = j - c;
        printf "| %s | %s | %.1f ± %.1f | %.1f ± %.1f | %.1f | %.2f | %s |\n", p[1], path, j, error[r, "java"], c,
          error[r, "c"], d, j / c, (d <= target ? "met" : "missed");
      }
    }' "$out/jmh.csv"
} > "$out/binding-cost.md"
cat "$out/binding-cost.md"
