#!/usr/bin/env bash
# The long soak with kills of the RPC-over-RDMA server (issue 12; rpcrdma/SOAK.md): builds the project, then runs
# RoceSoakDeviceTest (clients on rxe0, server on rxe1) and IwarpSoakDeviceTest (siw0 -> siw1) in the testbed VM,
# one VM run per device, one after the other, with CALLS checked calls and a client process killed every KILL_EVERY.
#
#   soft-roce-ci/tests/soak.sh [CALLS [KILL_EVERY [rxe|siw|both]]]      default: 100000 10000 both
#
# Environment: SOAK_TIMEOUT (seconds per VM run, default 10800), SOAK_OPTS (more -D options for the test JVM, e.g.
# "-Dsoak.depth=4 -Dsoak.connections=8 -Dsoak.victimConnections=1"), SOAK_SKIP_BUILD=1 (use the jars already built),
# SOAK_LOG_DIR (where each device's log goes, default target/soak). Exit code: 0 if every device's soak passed.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
calls=${1:-100000}
kill_every=${2:-10000}
which=${3:-both}
timeout=${SOAK_TIMEOUT:-10800}
logs=${SOAK_LOG_DIR:-$root/target/soak}
[[ $calls =~ ^[0-9]+$ && $kill_every =~ ^[0-9]+$ && $kill_every -gt 0 ]] || { echo "usage: $0 [CALLS [KILL_EVERY [rxe|siw|both]]]" >&2; exit 2; }
case $which in
  rxe) classes=(RoceSoakDeviceTest) ;;
  siw) classes=(IwarpSoakDeviceTest) ;;
  both) classes=(RoceSoakDeviceTest IwarpSoakDeviceTest) ;;
  *) echo "device: rxe, siw or both, not $which" >&2; exit 2 ;;
esac

cd "$root"
source soft-roce-ci/bin/jdk.sh
find_jdk25 || exit 1
if [[ ${SOAK_SKIP_BUILD:-0} != 1 ]]; then
  ./mvnw -B -q -Ptestbed package -DskipTests || exit 1
fi
mkdir -p "$logs"
rc=0
for class in "${classes[@]}"; do
  log="$logs/$class-$calls-$kill_every.log"
  echo "soak: $class, $calls calls, a kill every $kill_every; log $log"
  # run-suite.sh runs one JVM; the soak's size reaches it through JAVA_TOOL_OPTIONS (the victim JVMs it starts see
  # the same options, harmlessly). Each device's JUnit XML goes to its own folder.
  (cd soft-roce-ci/device-suite && ../bin/testbed run --timeout "$timeout" -- \
    "JAVA_TOOL_OPTIONS='-Dsoak.calls=$calls -Dsoak.killEvery=$kill_every ${SOAK_OPTS:-}' REPORTS_DIR=/job/reports-$class \
     ./run-suite.sh target/lib --select-class org.panamardma.rpcrdma.server.$class") 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  echo "soak: $class exit $status"
  sed -n '/^soak figures/,/^-----/p' "$log"
  ((status == 0)) || rc=1
done
exit $rc
