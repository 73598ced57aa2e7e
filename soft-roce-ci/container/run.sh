#!/usr/bin/env bash
# Runs a bash command line inside the privileged container (ContainerRun), with two Soft-RoCE devices (rxe8, rxe9)
# and two Soft-iWARP devices (siw8, siw9) of its own, in the current folder (the work tree is shared at the same
# path); prints its output prefixed with [container] and exits with its exit code (124: out of time; 125: the
# testbed failed).
#
#   run.sh [--timeout SECONDS] [--work DIR] -- COMMAND
#   run.sh [--timeout SECONDS] [--test-class CLASS]... [--test-method 'CLASS#METHOD(PARAMETER TYPES)']...
#                                   device tests, by device-suite/run-suite.sh (reports in
#                                   device-suite/target/container-reports)
#
# Needs: Docker, the image (import-image.sh), the kernel modules rdma_rxe and siw loaded on the host or loadable from
# its /lib/modules, and `./mvnw -Ptestbed package` before (target/lib: the class path). JVM options in
# CONTAINER_JAVA_OPTS, e.g. -Dpanama.testbed.container.network=own (ContainerSettings).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(git -C "$here" rev-parse --show-toplevel 2>/dev/null || (cd "$here/../.." && pwd))
jar=$(ls "$here"/target/soft-roce-ci-container-*.jar 2>/dev/null | grep -v -e sources -e javadoc | head -n 1)
[[ -n $jar && -d $here/target/lib ]] || { echo "run.sh: no $here/target/lib or jar: ./mvnw -Ptestbed package first" >&2; exit 125; }
java=java
[[ -n ${JAVA_HOME:-} ]] && java=$JAVA_HOME/bin/java
# testcontainers' resource reaper is an image from a registry: off (RdmaContainer removes its container itself).
# The Docker host's address only matters for published ports, which the container has none of; without the
# override testcontainers asks Docker for the "bridge" network, which a daemon run with --bridge=none lacks.
export TESTCONTAINERS_RYUK_DISABLED=true TESTCONTAINERS_HOST_OVERRIDE=${TESTCONTAINERS_HOST_OVERRIDE:-localhost}
# shellcheck disable=SC2086
exec "$java" --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -XX:TieredStopAtLevel=1 ${CONTAINER_JAVA_OPTS:-} \
  -cp "$jar:$here/target/lib/*" org.panamardma.testbed.container.ContainerRun --work "$work" "$@"
