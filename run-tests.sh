#!/usr/bin/env bash
# Runs every test: the host-side tests, then every device test inside the soft-RoCE / soft-iWARP testbed VMs, one
# of the Debian 13 image (kernel 6.12, rdma-core 56) and one of the Debian 12 image (kernel 6.1, rdma-core 44), side
# by side (rxe and siw in each; the images are built and cached on first use, which needs root). Extra arguments go
# to Maven, e.g. -Dtestbed.images=trixie (one image) or -Dtestbed.vms=sequential.
# On a machine without the testbed's tools (qemu, debootstrap...) or what the host tests use (gcc, rdma-core's
# libraries): run as root, it installs them with apt-get (soft-roce-ci/bin/host-packages.sh, the list .ci/run uses
# too); otherwise it prints the one command that does and stops (exit 125).
set -euo pipefail
cd "$(dirname "$0")"
source soft-roce-ci/bin/jdk.sh
source soft-roce-ci/bin/host-packages.sh
find_jdk25
ensure_host_packages tests "${host_packages_testbed[@]}" "${host_packages_tests[@]}" || exit 125
for image in trixie bookworm; do soft-roce-ci/bin/testbed --image "$image" check; done
exec ./mvnw -B verify -Ptestbed "$@"
