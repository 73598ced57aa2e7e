#!/usr/bin/env bash
# Fuzzes one decoder of the project with Jazzer for a number of executions (rpcrdma/FUZZING.md, nfs/FUZZING.md).
# The one fuzzing script: rpcrdma/fuzz.sh, oncrpc/fuzz.sh and nfs/fuzz.sh call it with their module.
#
#   fuzz.sh [--module M] TARGET [EXECUTIONS]   fuzz TARGET, of any module (default 10000000 executions), niced,
#                                              keeping the corpus in the module the target lives in
#   fuzz.sh [--module M] list                  the targets (of module M only, with --module)
#   fuzz.sh --module M seeds                   regenerate module M's committed seed corpus (its seed writer)
#
# The generated corpus grows in <module>/.cifuzz-corpus/<class>/<method>/ (not committed) and is read back by the
# next run; a crashing input is written by Jazzer to src/test/resources/<package>/<Class>Inputs/<method>/, where
# every ./mvnw verify replays it. JAZZER_MAX_DURATION (default 24h) stops a run early.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# target name -> module and test (class#method), in the order `list` prints them
table=(
  "header rpcrdma org.panamardma.rpcrdma.RpcRdmaHeaderFuzzTest#decode"
  "handler rpcrdma org.panamardma.rpcrdma.server.RpcRdmaCallHandlerFuzzTest#handle"
  "assembler rpcrdma org.panamardma.rpcrdma.server.CallAssemblerFuzzTest#assemble"
  "reply rpcrdma org.panamardma.rpcrdma.client.ReplyDecodingFuzzTest#decode"
  "private-data rpcrdma org.panamardma.rpcrdma.ConnectPrivateDataFuzzTest#decode"
  "xdr oncrpc org.panamardma.xdr.XdrDecoderFuzzTest#getters"
  "rpc oncrpc org.panamardma.oncrpc.RpcMessageFuzzTest#decode"
  "record oncrpc org.panamardma.oncrpc.RecordMarkingFuzzTest#feed"
  "tcp-connection oncrpc org.panamardma.oncrpc.tcp.TcpConnectionFuzzTest#stream"
  "bounded-xdr oncrpc4j-rdma org.panamardma.oncrpc4j.BoundedXdrFuzzTest#getters"
  "agent verbs-ffm org.panamardma.verbs.connection.agent.AgentFuzzTest#receive"
  "nfs-args nfs org.panamardma.nfs.server.Nfs3ArgumentsFuzzTest#decode"
  "file-handle nfs org.panamardma.nfs.server.FileHandlesFuzzTest#decode"
  "sattr nfs org.panamardma.nfs.server.Sattr3FuzzTest#decode"
  "mount nfs org.panamardma.nfs.server.MountFuzzTest#decode"
)
# the class that writes each module's committed seeds
declare -A seeders=(
  [rpcrdma]=org.panamardma.rpcrdma.FuzzSeeds
  [oncrpc]=org.panamardma.oncrpc.OncRpcFuzzSeeds
  [nfs]=org.panamardma.nfs.server.NfsFuzzSeeds
)

if [[ -z "${JAVA_HOME:-}" || ! -x "$JAVA_HOME/bin/java" ]] || ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -q '"2[5-9]'; then
  for candidate in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*25*; do
    if [[ -x "$candidate/bin/java" ]]; then export JAVA_HOME="$candidate"; break; fi
  done
fi

only=""
if [[ ${1:-} == --module ]]; then only="${2:?--module needs a module}"; shift 2; fi
usage() {
  echo "usage: $0 [--module M] TARGET [EXECUTIONS] | list | seeds" >&2
  echo "targets: $(only="" list | cut -d' ' -f1 | paste -sd' ')" >&2
  exit 2
}
list() {
  for row in "${table[@]}"; do
    read -r name module test <<<"$row"
    [[ -z $only || $only == "$module" ]] && echo "$name $test"
  done
  return 0
}

[[ $# -ge 1 ]] || usage
case "$1" in
  list) list; exit 0 ;;
  seeds)
    seeder="${seeders[${only:-none}]:-}"
    [[ -n $seeder ]] || { echo "seeds: name a module with seeds: --module ${!seeders[*]}" >&2; exit 2; }
    cd "$root"
    ./mvnw -B -q -pl "$only" -am test-compile dependency:build-classpath -Dmdep.includeScope=test \
      -Dmdep.outputFile=target/fuzz.classpath
    cd "$root/$only"
    exec "$JAVA_HOME/bin/java" -cp "target/test-classes:target/classes:$(cat target/fuzz.classpath)" \
      "$seeder" src/test/resources ;;
esac

module="" test=""
for row in "${table[@]}"; do
  read -r name m t <<<"$row"
  if [[ $name == "$1" ]]; then module=$m test=$t; fi
done
[[ -n "$test" ]] || usage
moduledir="$root/$module"
executions="${2:-10000000}"
[[ "$executions" =~ ^[0-9]+$ ]] || usage
mkdir -p "$moduledir/target/fuzz-logs"
log="$moduledir/target/fuzz-logs/$1.log"
cd "$root"
echo "fuzzing $test for $executions executions; log: $log" >&2
set +e
# -DstubProvider.skip: verbs-ffm's stub-provider test execution would run the target a second time under -Dtest
JAZZER_FUZZ=1 JAZZER_MAX_EXECUTIONS="$executions" JAZZER_MAX_DURATION="${JAZZER_MAX_DURATION:-24h}" \
  nice -n 10 ./mvnw -B -pl "$module" -am test -Dtest="$test" -Dsurefire.failIfNoSpecifiedTests=false \
  -Djacoco.skip=true -DstubProvider.skip=true 2>&1 | tee "$log" | grep -E '^(#[0-9]+\s+(DONE|pulse)|Done [0-9]+ runs|==|\[(ERROR|INFO)\] (Tests run|BUILD))'
status=${PIPESTATUS[0]}
set -e
corpus="$moduledir/.cifuzz-corpus/${test%#*}/${test#*#}"
echo "corpus: $(find "$corpus" -type f 2>/dev/null | wc -l) files in $corpus" >&2
exit "$status"
