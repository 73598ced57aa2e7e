#!/usr/bin/env bash
# Fuzzes one decoder of the NFS server with Jazzer for a number of executions (nfs/FUZZING.md), as rpcrdma/fuzz.sh.
#
#   nfs/fuzz.sh TARGET [EXECUTIONS]   fuzz TARGET (default 10000000 executions), niced, keeping the corpus
#   nfs/fuzz.sh list                  the targets
#   nfs/fuzz.sh seeds                 regenerate the committed seed corpus (NfsFuzzSeeds)
#
# The generated corpus grows in nfs/.cifuzz-corpus/<class>/<method>/ (not committed) and is read back by the next
# run; a crashing input is written by Jazzer to src/test/resources/<package>/<Class>Inputs/<method>/, where every
# ./mvnw verify replays it. JAZZER_MAX_DURATION (default 24h) stops a run early.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"

declare -A targets=(
  [nfs-args]=org.panamardma.nfs.server.Nfs3ArgumentsFuzzTest#decode
  [file-handle]=org.panamardma.nfs.server.FileHandlesFuzzTest#decode
  [sattr]=org.panamardma.nfs.server.Sattr3FuzzTest#decode
  [mount]=org.panamardma.nfs.server.MountFuzzTest#decode
)
order=(nfs-args file-handle sattr mount)

if [[ -z "${JAVA_HOME:-}" || ! -x "$JAVA_HOME/bin/java" ]] || ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -q '"2[5-9]'; then
  for candidate in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*25*; do
    if [[ -x "$candidate/bin/java" ]]; then export JAVA_HOME="$candidate"; break; fi
  done
fi

usage() {
  echo "usage: $0 TARGET [EXECUTIONS] | list | seeds" >&2
  echo "targets: ${order[*]}" >&2
  exit 2
}

[[ $# -ge 1 ]] || usage
case "$1" in
  list)
    for t in "${order[@]}"; do echo "$t ${targets[$t]}"; done
    exit 0 ;;
  seeds)
    cd "$root"
    ./mvnw -B -q -pl nfs -am test-compile dependency:build-classpath -Dmdep.includeScope=test \
      -Dmdep.outputFile=target/fuzz.classpath
    cd "$here"
    exec "$JAVA_HOME/bin/java" -cp "target/test-classes:target/classes:$(cat target/fuzz.classpath)" \
      org.panamardma.nfs.server.NfsFuzzSeeds src/test/resources ;;
esac

test="${targets[$1]:-}"
[[ -n "$test" ]] || usage
executions="${2:-10000000}"
[[ "$executions" =~ ^[0-9]+$ ]] || usage
mkdir -p "$here/target/fuzz-logs"
log="$here/target/fuzz-logs/$1.log"
cd "$root"
echo "fuzzing $test for $executions executions; log: $log" >&2
set +e
JAZZER_FUZZ=1 JAZZER_MAX_EXECUTIONS="$executions" JAZZER_MAX_DURATION="${JAZZER_MAX_DURATION:-24h}" \
  nice -n 10 ./mvnw -B -pl nfs -am test -Dtest="$test" -Dsurefire.failIfNoSpecifiedTests=false \
  -Djacoco.skip=true 2>&1 | tee "$log" | grep -E '^(#[0-9]+\s+(DONE|pulse)|Done [0-9]+ runs|==|\[(ERROR|INFO)\] (Tests run|BUILD))'
status=${PIPESTATUS[0]}
set -e
corpus="$here/.cifuzz-corpus/${test%#*}/${test#*#}"
echo "corpus: $(find "$corpus" -type f 2>/dev/null | wc -l) files in $corpus" >&2
exit "$status"
