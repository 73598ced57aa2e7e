#!/usr/bin/env bash
# Fuzzes one decoder of rpcrdma (or verbs-ffm's: the RFC 7306 agent's) with Jazzer for a number of executions
# (FUZZING.md).
#
#   rpcrdma/fuzz.sh TARGET [EXECUTIONS]   fuzz TARGET (default 10000000 executions), niced, keeping the corpus
#                                         (bounded-xdr is in oncrpc4j-rdma, agent in verbs-ffm: corpus and log there)
#   rpcrdma/fuzz.sh list                  the targets
#   rpcrdma/fuzz.sh seeds                 regenerate the committed seed corpus (FuzzSeeds)
#
# The generated corpus grows in rpcrdma/.cifuzz-corpus/<class>/<method>/ (not committed) and is read back by the
# next run; a crashing input is written by Jazzer to src/test/resources/<package>/<Class>Inputs/<method>/, where
# every ./mvnw verify replays it. JAZZER_MAX_DURATION (default 24h) stops a run early.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"

declare -A targets=(
  [header]=org.panamardma.rpcrdma.RpcRdmaHeaderFuzzTest#decode
  [handler]=org.panamardma.rpcrdma.server.RpcRdmaCallHandlerFuzzTest#handle
  [assembler]=org.panamardma.rpcrdma.server.CallAssemblerFuzzTest#assemble
  [reply]=org.panamardma.rpcrdma.client.ReplyDecodingFuzzTest#decode
  [xdr]=org.panamardma.xdr.XdrDecoderFuzzTest#getters
  [rpc]=org.panamardma.oncrpc.RpcMessageFuzzTest#decode
  [record]=org.panamardma.oncrpc.RecordMarkingFuzzTest#feed
  [private-data]=org.panamardma.rpcrdma.ConnectPrivateDataFuzzTest#decode
  [tcp-connection]=org.panamardma.oncrpc.tcp.TcpConnectionFuzzTest#stream
  [bounded-xdr]=org.panamardma.oncrpc4j.BoundedXdrFuzzTest#getters
  [agent]=org.panamardma.verbs.connection.agent.AgentFuzzTest#receive
)
# the module of each target that is not in rpcrdma
declare -A modules=(
  [bounded-xdr]=oncrpc4j-rdma
  [agent]=verbs-ffm
)
order=(header handler assembler reply xdr rpc record private-data tcp-connection bounded-xdr agent)

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
    ./mvnw -B -q -pl rpcrdma -am test-compile dependency:build-classpath -Dmdep.includeScope=test \
      -Dmdep.outputFile=target/fuzz.classpath
    cd "$here"
    exec "$JAVA_HOME/bin/java" -cp "target/test-classes:target/classes:$(cat target/fuzz.classpath)" \
      org.panamardma.rpcrdma.FuzzSeeds src/test/resources ;;
esac

test="${targets[$1]:-}"
[[ -n "$test" ]] || usage
module="${modules[$1]:-rpcrdma}"
moduledir="$root/$module"
executions="${2:-10000000}"
[[ "$executions" =~ ^[0-9]+$ ]] || usage
mkdir -p "$moduledir/target/fuzz-logs"
log="$moduledir/target/fuzz-logs/$1.log"
cd "$root"
echo "fuzzing $test for $executions executions; log: $log" >&2
set +e
JAZZER_FUZZ=1 JAZZER_MAX_EXECUTIONS="$executions" JAZZER_MAX_DURATION="${JAZZER_MAX_DURATION:-24h}" \
  nice -n 10 ./mvnw -B -pl "$module" -am test -Dtest="$test" -Dsurefire.failIfNoSpecifiedTests=false \
  -Djacoco.skip=true -DstubProvider.skip=true 2>&1 | tee "$log" | grep -E '^(#[0-9]+\s+(DONE|pulse)|Done [0-9]+ runs|==|\[(ERROR|INFO)\] (Tests run|BUILD))'
status=${PIPESTATUS[0]}
set -e
corpus="$moduledir/.cifuzz-corpus/${test%#*}/${test#*#}"
echo "corpus: $(find "$corpus" -type f 2>/dev/null | wc -l) files in $corpus" >&2
exit "$status"
