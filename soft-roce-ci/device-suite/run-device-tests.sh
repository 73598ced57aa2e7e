#!/usr/bin/env bash
# The device suite where this machine can run it (this module's pom, -Ptestbed, phase verify): prints the testbed
# provider ProviderChoice picks (the host's own devices; else the privileged container, where Docker answers and the
# kernel has rdma_rxe and siw; else the VMs) and runs the suite there.
#
#   run-device-tests.sh TIMEOUT_SECONDS MODE IMAGES     the arguments of run-in-vms.sh (used by the VM provider)
#
# TESTBED_PROVIDER (host, container or vm; the pom's -Dtestbed.provider) overrides the choice.
#   host       run-suite.sh right here, on this machine's devices (-Ptestbed keeps device tests out of surefire)
#   container  soft-roce-ci/container: the image is built if missing (root, debootstrap), then every device test
#              except those that need the VM's kernel NFS server and client, or its emulated persistent memory, the
#              README's verbs example on rxe (it names rxe0), and the ABI probe (it needs a compiler the image lacks)
#              runs inside the container
#   vm         run-in-vms.sh: the whole suite in the VM of each image (and the container phase in the trixie one)
set -uo pipefail
cd "$(dirname "$0")"
java=java
[[ -n ${JAVA_HOME:-} ]] && java=$JAVA_HOME/bin/java
choice=$("$java" -Dpanama.testbed.provider="${TESTBED_PROVIDER:-}" -cp ../junit/target/classes \
  org.panamardma.testbed.ProviderChoice) || { echo "run-device-tests: the provider choice failed: $choice"; exit 125; }
provider=$(sed -n 's/^provider=//p' <<<"$choice")
echo "run-device-tests: $(sed -n 2p <<<"$choice")"
case $provider in
  host)
    REPORTS_DIR=$PWD/target/host-reports exec ./run-suite.sh target/lib
    ;;
  container)
    ../container/import-image.sh || { echo "run-device-tests: the container image could not be built"; exit 125; }
    # the VM's kernel NFS server and client, its persistent memory, and the README's verbs example, which names the
    # VM's rxe0 (the container's devices are rxe8/rxe9 and siw8/siw9, apart from a VM's)
    vm_only='.*\.(KernelNfsOverRdma|RoceKnfsdRdma|IwarpKnfsdRdma|KnfsdTcp|RoceKernelClientJavaServer|IwarpKernelClientJavaServer|RoceKernelClientExportOptions|IwarpKernelClientExportOptions|RoceIdleServerCpu|IwarpIdleServerCpu|PersistentFlush|RoceReadmeExamples)DeviceTest'
    exec ../container/run.sh --timeout "${1:-3000}" -- \
      "SUITE_TAGS=rdma-device SUITE_EXCLUDE_CLASSNAME='$vm_only' SUITE_ORDER='${SUITE_ORDER:-default}' SUITE_ORDER_SEED='${SUITE_ORDER_SEED:-}' REPORTS_DIR=$PWD/target/container-reports ./run-suite.sh target/lib"
    ;;
  vm)
    exec ./run-in-vms.sh "$@"
    ;;
  *)
    echo "run-device-tests: unknown provider '$provider'"
    exit 125
    ;;
esac
