#!/usr/bin/env bash
# RFC 7306 atomics by the connection layer's agent beside rxe's own (issue 29), in one boot of the testbed VM:
# FetchAdd round trips through RdmaConnection on rxe by the device, on rxe by the agent (forced) and on siw by the
# agent, with the default and a busy-polling poller; then operations per second with requests pipelined. Every
# configuration checks the server's counter. Writes benchmarks/target/agent-atomics.csv and prints the table that
# benchmarks/README.md ("RFC 7306 atomics by agent beside rxe's own") quotes.
#
#   benchmarks/agent-atomics.sh [--iters N] [--warmup N] [--pipelined N]     (defaults 1000, 1000, 2000)
#
# TESTBED_TIMEOUT: the VM's wall-clock limit in seconds (default 1800). Under emulation (TCG) the figures are not
# hardware figures: compare the rows with each other (same boot), not with other runs.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
cd "$root"
source soft-roce-ci/bin/jdk.sh
find_jdk25
./mvnw -B -q -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip -Dmaven.source.skip
jar=benchmarks/target/benchmarks.jar
[[ -f $jar ]] || { echo "agent-atomics: $jar was not built" >&2; exit 1; }
args=""
for a in "$@"; do args+=" $(printf '%q' "$a")"; done
soft-roce-ci/bin/testbed run --timeout "${TESTBED_TIMEOUT:-1800}" -- \
  "java --enable-native-access=ALL-UNNAMED -cp $jar org.panamardma.benchmarks.AgentAtomicsBench --csv benchmarks/target/agent-atomics.csv$args"
