#!/usr/bin/env bash
# The main job on the embedded default testbed: builds the project (with the runnable verbs-ffm/target/rdma-tool.jar),
# boots the soft-RoCE / soft-iWARP VM and runs rdma-tool in it: the RDMA devices (devinfo), then the demo on
# Soft-RoCE (clients on rxe0, server on rxe1) and on Soft-iWARP (clients on siw0, server on siw1, skipping with a
# printed reason what siw lacks). Exits non-zero if either demo found anything wrong.
set -euo pipefail
cd "$(dirname "$0")"
source soft-roce-ci/bin/jdk.sh
find_jdk25
soft-roce-ci/bin/testbed check
echo "[demo] building (./mvnw -q package -DskipTests) ..."
./mvnw -B -q package -DskipTests
echo "[demo] booting the testbed VM and running rdma-tool in it (a minute or more when the VM is emulated) ..."
# -XX:TieredStopAtLevel=1: C1 only, quicker where the VM is emulated (TCG)
exec soft-roce-ci/bin/testbed run --timeout 900 -- '
tool() { java -XX:TieredStopAtLevel=1 -jar verbs-ffm/target/rdma-tool.jar "$@"; }
rc=0
echo
echo "=== The RDMA devices of the testbed, as verbs-ffm sees them (rdma-tool devinfo) ==="
tool devinfo || rc=1
echo
echo "=== Demo 1: Soft-RoCE (RoCE v2): clients on rxe0 (10.77.0.1), server on rxe1 (10.77.0.2) ==="
tool demo 10.77.0.2 || rc=1
echo
echo "=== Demo 2: Soft-iWARP: clients on siw0 (10.77.1.1), server on siw1 (10.77.1.2) ==="
tool demo 10.77.1.2 || rc=1
echo
if ((rc == 0)); then echo "Both demos ran and checked their results."; else echo "Something failed: see above."; fi
exit $rc
'
