#!/usr/bin/env bash
# The main job on the embedded default testbed: builds the project, boots the soft-RoCE / soft-iWARP VM and runs
# the demo in it (for now: the RDMA devices as panama-rdma's verbs-ffm sees them through FFM).
set -euo pipefail
cd "$(dirname "$0")"
source soft-roce-ci/bin/jdk.sh
find_jdk25
soft-roce-ci/bin/testbed check
echo "[demo] building (./mvnw -q package -DskipTests) ..."
./mvnw -B -q package -DskipTests
exec soft-roce-ci/bin/testbed run --timeout 900 -- \
  'java --enable-native-access=ALL-UNNAMED -cp verbs-ffm/target/classes org.panamardma.verbs.tools.RdmaTool devinfo'
