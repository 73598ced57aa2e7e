#!/usr/bin/env bash
# What the Java binding itself costs on this host's CPU (issues 15 and 26), against the stub provider
# (native-headers/stub: no RDMA device, no libibverbs needed; gcc and the rdma-core 56 header set are:
# native-headers/headers/fetch.sh debian13), each figure beside its target:
#   - BindingCostBenchmark: one signaled request and the poll of its completion, per request type and path (ext: an
#     extended QP and CQ as the library uses them; legacy: a plain QP and CQ; wr: every request through ibv_wr_* and
#     ibv_start_poll, the extended path before issue 26, for comparison), Java through QueuePair / CompletionQueue and
#     C through the same function pointers on the same QP. Target: Java - C <= 15 ns (best iterations).
#   - the same requests with -Dpanama.rdma.criticalDowncalls=false: what the critical downcalls save.
#   - MessageRateBenchmark: 1-byte RDMA WRITEs on one QP in batches of 1 and 16 (the last of a batch signaled), Java
#     and C. Target: Java >= 0.9 x C's operations per second; and what Java would reach on a ConnectX where C posts
#     2.6 M single WRITEs per second per QP, given what Java adds per WRITE here.
# Writes benchmarks/target/binding-cost/binding-cost.md (the tables of benchmarks/README.md) beside JMH's log.
#
#   benchmarks/binding-cost.sh                  # builds benchmarks.jar if missing, then runs (about 8 minutes)
#   JMH_ARGS="-f 1 -wi 5 -i 10" benchmarks/binding-cost.sh
#   MVN_ARGS="-Dmaven.repo.local=..." benchmarks/binding-cost.sh
#   REQUESTS="WRITE/ext WRITE/legacy" RATES="ext/16" CRITICAL_REQUESTS="" benchmarks/binding-cost.sh   # some only
#   benchmarks/binding-cost.sh --table          # only writes the tables again from the last run's log
#   benchmarks/binding-cost.sh --cpu            # the same figures by thread CPU time (~4 minutes; a loaded host)
#   benchmarks/binding-cost.sh --cpu-table      # only writes that table again from the last --cpu run
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
jar=$here/target/benchmarks.jar
out=$here/target/binding-cost
target_ns=15
target_rate=0.9
connectx_mops=2.6
jmh_args=${JMH_ARGS:--f 1 -wi 3 -i 5 -w 1s -r 1s}

# One JMH run per request, so that its Java and C figures are measured a few seconds apart, not minutes (JMH runs
# every parameter of one method before the next method): what else runs on the host drifts over minutes. Each run is
# preceded in the log by "### run KIND LABEL", which the tables below read.
run() { # kind label benchmark [jmh options...]
  local kind=$1 label=$2 benchmark=$3
  shift 3
  echo "### run $kind $label" >>"$out/jmh.log"
  # shellcheck disable=SC2086 # jmh_args is a list of options
  # JMH 1.37 calls sun.misc.Unsafe (org.openjdk.jmh.util.Utils): allowed, or JDK 25 warns here and in every fork
  "$java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -jar "$jar" "$benchmark" "$@" \
    $jmh_args | tee -a "$out/jmh.log"
}

# --cpu: the same requests timed by thread CPU time (BindingCpuTime: least of 400 samples of 10 calls, Java and C
# alternating), which a loaded host moves by a few ns where it moves JMH's wall-clock figures by tens or hundreds
if [[ ${1:-} == --cpu* ]]; then
  if [[ $1 == --cpu ]]; then
    # shellcheck disable=SC2086 # MVN_ARGS is a list of options
    [[ -f $jar ]] || (cd "$root" && ./mvnw -B -q ${MVN_ARGS:-} -pl benchmarks -am package -DskipTests)
    mkdir -p "$out"
    all="SEND/ext SEND/legacy WRITE/ext WRITE/legacy READ/ext READ/legacy FETCH_ADD/ext FETCH_ADD/legacy FLUSH/ext
      ATOMIC_WRITE/ext WRITE/wr"
    rates=${RATES:-ext/1 ext/16 legacy/1 legacy/16}
    # shellcheck disable=SC2086 # lists of words
    "$java" --enable-native-access=ALL-UNNAMED -cp "$jar" org.panamardma.benchmarks.BindingCpuTime ${REQUESTS:-$all} \
      $(for r in $rates; do echo "rate/$r"; done) call/critical call/plain | tee "$out/cpu.log"
    echo
  fi
  awk -v target="$target_ns" -v target_rate="$target_rate" -v cx="$connectx_mops" '
    $1 != "cpu" { next }
    { split($2, p, "/"); j = substr($3, 6) + 0; c = substr($4, 3) + 0 }
    p[1] == "call" { printf "one call into a no-op, %s: Java %.1f ns, C %.1f ns\n", p[2], j, c; next }
    p[1] == "rate" {
      if (!rh++) { print "| message rate | batch | Java ns/WRITE | C ns/WRITE | Java / C (ops/s) | target >= " target_rate " | on a ConnectX (C " cx " M/s) |"
                   print "|---|---:|---:|---:|---:|---|---:|" }
      cxj = 1000 / (1000 / cx + j - c)
      printf "| %s | %d | %.1f | %.1f | %.2f | %s | %.2f M/s (%.2fx) |\n", p[2], p[3], j, c, c / j,
        (c / j >= target_rate) ? "met" : "missed", cxj, cxj / cx
      next }
    { if (!h++) { print "| request | path | Java ns | C ns | Java - C | target <= " target " ns |"; print "|---|---|---:|---:|---:|---|" }
      d = j - c
      printf "| %s | %s | %.1f | %.1f | %.1f | %s |\n", p[1], p[2], j, c, d, (p[2] == "wr") ? "(ibv_wr_* for comparison)" : (d <= target) ? "met" : sprintf("missed by %.1f ns", d - target) }
  ' "$out/cpu.log" | tee "$out/binding-cost-cpu.md"
  exit 0
fi

if [[ ${1:-} != --table ]]; then
  if [[ ! -f $jar ]]; then
    # shellcheck disable=SC2086 # MVN_ARGS is a list of options
    (cd "$root" && ./mvnw -B -q ${MVN_ARGS:-} -pl benchmarks -am package -DskipTests)
  fi
  mkdir -p "$out"
  start=$SECONDS
  : >"$out/jmh.log"
  # the benchmark's requests, as JMH lists them: param "request" = {SEND/ext, SEND/legacy, ...}
  requests=$("$java" --sun-misc-unsafe-memory-access=allow -jar "$jar" -lp 'BindingCostBenchmark.java$' | grep -m1 'param "request"' \
    | sed 's/.*{\(.*\)}.*/\1/; s/,/ /g')
  for request in ${REQUESTS:-$requests}; do
    run cost "$request" 'BindingCostBenchmark' -p request="$request"
  done
  for request in ${CRITICAL_REQUESTS-WRITE/ext WRITE/legacy}; do
    run plain "$request" 'BindingCostBenchmark' -p request="$request" \
      -jvmArgsAppend -Dpanama.rdma.criticalDowncalls=false
  done
  for rate in ${RATES:-ext/1 ext/16 legacy/1 legacy/16}; do
    run rate "$rate" 'MessageRateBenchmark' -p path="${rate%/*}" -p batch="${rate#*/}"
  done
  echo "$((SECONDS - start))" >"$out/seconds"
  echo "$jmh_args" >"$out/jmh-args"
fi
[[ -f $out/jmh-args ]] && jmh_args=$(cat "$out/jmh-args")

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
jdk=$("$java" -version 2>&1 | head -1)
{
  echo "Binding cost on the host CPU, $(date -u +%Y-%m-%d), $(nproc) cores, ${cpu:-unknown CPU}, $jdk, $(cat "$out/seconds") s."
  echo "JMH average time ($jmh_args), stub provider. Mean ± standard deviation of the measured iterations, and the"
  echo "best iteration: other work on the host only ever adds time, so the difference of the best iterations is what the"
  echo "binding adds, and decides the targets."
  echo
  # JMH's log: "### run KIND LABEL" (ours), "# Benchmark: ...BindingCostBenchmark.java", then "Iteration   N: 38.000
  # ns/op" per measured iteration (warm-up ones say "Warmup Iteration")
  awk -v target="$target_ns" -v target_rate="$target_rate" -v cx="$connectx_mops" '
    /^### run / { kind = $3; label = $4; key = kind SUBSEP label
                  if (!(key in seen)) { seen[key] = 1; order[kind, ++count[kind]] = label } }
    /^# Benchmark: / { n = split($3, b, "."); method = b[n] }
    /^Iteration / {
      v = $3 + 0; k = kind SUBSEP label SUBSEP method;
      sum[k] += v; sq[k] += v * v; it[k]++;
      if (!(k in best) || v < best[k]) best[k] = v;
    }
    function mean(k) { return sum[k] / it[k] }
    function sd(k,  m) { m = mean(k); return it[k] > 1 ? sqrt((sq[k] - it[k] * m * m) / (it[k] - 1)) : 0 }
    function has(k) { return (k "java") in it && (k "c") in it }
    function pathname(p) {
      if (p == "ext") return "extended (ibv_post_send or ibv_wr_*, ibv_poll_cq)";
      if (p == "legacy") return "legacy (ibv_post_send, ibv_poll_cq)";
      return "every request through ibv_wr_*, ibv_start_poll (the extended path before issue 26)";
    }
    END {
      print "ns per post+poll: Java through verbs-ffm'"'"'s QueuePair and CompletionQueue, C through the same function pointers on"
      print "the same QP (stub_bench.c). Target: Java - C <= " target " ns, best iterations, on both paths for every request."
      print ""
      print "| request | path | Java ns | C ns | Java - C, means | Java - C, best | Java / C, best | target |"
      print "|---|---|---:|---:|---:|---:|---:|---|"
      for (i = 1; i <= count["cost"]; i++) {
        r = order["cost", i]; p0 = "cost" SUBSEP r SUBSEP; if (!has(p0)) continue;
        j = p0 "java"; c = p0 "c"; split(r, p, "/"); d = best[j] - best[c];
        verdict = p[2] == "wr" ? "(for comparison)" : d <= target ? "met" : "missed by " sprintf("%.0f", d - target) " ns";
        printf "| %s | %s | %.1f ± %.1f (best %.1f) | %.1f ± %.1f (best %.1f) | %.1f | %.1f | %.2f | %s |\n",
          p[1], pathname(p[2]), mean(j), sd(j), best[j], mean(c), sd(c), best[c], mean(j) - mean(c), d,
          best[j] / best[c], verdict;
      }
      if (count["plain"] > 0) {
        print ""
        print "Critical downcalls (ProviderTraits: the stub, like mlx5, stays in user space, so post_send and poll_cq are"
        print "critical): the same requests with -Dpanama.rdma.criticalDowncalls=false, Java ns per post+poll, best iterations."
        print ""
        print "| request | path | Java, critical | Java, not critical | what critical saves |"
        print "|---|---|---:|---:|---:|"
        for (i = 1; i <= count["plain"]; i++) {
          r = order["plain", i]; a = "cost" SUBSEP r SUBSEP "java"; b2 = "plain" SUBSEP r SUBSEP "java";
          if (!(a in best) || !(b2 in best)) continue;
          split(r, p, "/");
          printf "| %s | %s | %.1f | %.1f | %.1f ns |\n", p[1], pathname(p[2]), best[a], best[b2], best[b2] - best[a];
        }
      }
      if (count["rate"] > 0) {
        print ""
        print "Message rate: 1-byte RDMA WRITEs on one QP, each its own post, the last of a batch signaled and its completion"
        print "polled (MessageRateBenchmark; C: stub_bench.c). ns per WRITE (best iteration) and millions of WRITEs per second."
        print "Target: Java >= " target_rate " x C. ConnectX: C posts " cx " M single WRITEs/s per QP (385 ns each); Java would"
        print "add what it adds here per WRITE."
        print ""
        print "| path | batch | Java ns/WRITE | C ns/WRITE | Java M/s | C M/s | Java / C | target | on a ConnectX (C " cx " M/s) |"
        print "|---|---:|---:|---:|---:|---:|---:|---|---:|"
        for (i = 1; i <= count["rate"]; i++) {
          r = order["rate", i]; p0 = "rate" SUBSEP r SUBSEP; if (!has(p0)) continue;
          j = p0 "java"; c = p0 "c"; split(r, p, "/");
          ratio = best[c] / best[j];
          cxns = 1000 / cx; javacx = 1000 / (cxns + best[j] - best[c]);
          name = p[1] == "ext" ? "extended" : p[1];
          verdict = ratio >= target_rate ? "met" : "missed";
          printf "| %s | %d | %.1f | %.1f | %.1f | %.1f | %.2f | %s | %.2f M/s (%.2fx) |\n", name, p[2], best[j], best[c],
            1000 / best[j], 1000 / best[c], ratio, verdict, javacx, javacx / cx;
        }
      }
    }' "$out/jmh.log"
} >"$out/binding-cost.md"
cat "$out/binding-cost.md"
