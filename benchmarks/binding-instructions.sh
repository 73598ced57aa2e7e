#!/usr/bin/env bash
# Instructions per post+poll, Java and C, counted by callgrind (issue 26): repeatable where wall-clock time is not
# (a shared host moves JMH's figures by tens of ns). Runs BindingInstructionCount (the benchmarks' own methods) under
# valgrind --tool=callgrind, one profile part per side and request, and prints instructions per operation (Ir, of
# the thread that ran them), Java - C and the calls into the provider per operation. An instruction count is not a
# time: an atomic compare-and-swap is one instruction and ~20 cycles; read it beside binding-cost.sh's table.
#
#   benchmarks/binding-instructions.sh                      # the default requests below (about 10 minutes)
#   benchmarks/binding-instructions.sh WRITE/ext rate/ext/16  # some only
#   JAVA_OPTS=-Dpanama.rdma.criticalDowncalls=false benchmarks/binding-instructions.sh WRITE/legacy
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
jar=$here/target/benchmarks.jar
out=$here/target/binding-instructions
command -v valgrind >/dev/null || { echo "binding-instructions: needs valgrind (Debian: apt-get install valgrind)"; exit 1; }
[[ -f /usr/include/valgrind/callgrind.h ]] || { echo "binding-instructions: needs valgrind's headers (valgrind/callgrind.h)"; exit 1; }
if [[ ! -f $jar ]]; then
  # shellcheck disable=SC2086
  (cd "$root" && ./mvnw -B -q ${MVN_ARGS:-} -pl benchmarks -am package -DskipTests)
fi
requests=("$@")
((${#requests[@]})) || requests=(SEND/ext SEND/legacy WRITE/ext WRITE/legacy READ/ext READ/legacy FETCH_ADD/ext
  FETCH_ADD/legacy FLUSH/ext ATOMIC_WRITE/ext WRITE/wr rate/ext/1 rate/ext/16 rate/legacy/1 rate/legacy/16)
rm -rf "$out"
mkdir -p "$out"
# shellcheck disable=SC2086 # JAVA_OPTS is a list of options
(cd "$out" && valgrind --tool=callgrind --smc-check=all-non-file --separate-threads=yes --collect-atstart=yes \
  --callgrind-out-file="$out/callgrind.out.%p" \
  "$java" --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -XX:-BackgroundCompilation -Xss4m ${JAVA_OPTS:-} \
  -Dwarmup="${WARMUP:-300}" -Dcalls="${CALLS:-10}" \
  -cp "$jar" org.panamardma.benchmarks.BindingInstructionCount "${requests[@]}") >"$out/run.log" 2>&1 \
  || { tail -n 30 "$out/run.log"; exit 1; }

# each dump part (callgrind.out.PID.PART-TID) names its trigger in "desc: Trigger: Client Request: <why>"; the
# thread that ran the measured calls has by far the most instructions of the part
{
  echo "Instructions per operation (callgrind Ir of the measuring thread), $(date -u +%Y-%m-%d), $("$java" -version 2>&1 | head -1)."
  echo
  echo "| request | Java Ir/op | C Ir/op | Java - C | Java / C |"
  echo "|---|---:|---:|---:|---:|"
  for f in "$out"/callgrind.out.*; do
    why=$(grep -m1 '^desc: Trigger: Client Request: ' "$f" | sed 's/^desc: Trigger: Client Request: //') || continue
    total=$(grep -m1 '^totals: ' "$f" | awk '{print $2}')
    [[ -n $why && -n $total ]] && echo "$why $total"
  done | awk '
    { side = $1; req = $2; ops = $3; sub(/^ops=/, "", ops); ir = $4;
      k = side SUBSEP req; if (!(k in best) || ir > best[k]) { best[k] = ir; n[k] = ops }
      if (!(req in seen)) { seen[req] = 1; order[++count] = req } }
    END { for (i = 1; i <= count; i++) { r = order[i]; j = "java" SUBSEP r; c = "c" SUBSEP r;
      if (!(j in best) || !(c in best)) continue;
      jv = best[j] / n[j]; cv = best[c] / n[c];
      printf "| %s | %.1f | %.1f | %.1f | %.2f |\n", r, jv, cv, jv - cv, jv / cv } }'
} | tee "$out/binding-instructions.md"
