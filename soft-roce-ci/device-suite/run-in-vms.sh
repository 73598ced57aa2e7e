#!/usr/bin/env bash
# Runs the device suite (run-suite.sh) in every testbed image, each in its own VM, and keeps each image's job folder
# (console log, output.log, JUnit XML reports) apart in target/vm-job-<image>. Called by this module's pom
# (-Ptestbed, phase verify); runs from this folder.
#
#   run-in-vms.sh TIMEOUT_SECONDS MODE IMAGE...       MODE: parallel (all VMs at once) or sequential; IMAGEs may
#                                                     also come as one comma-separated argument (trixie,bookworm)
#   TESTBED_CONTAINER_IMAGES (default trixie; comma-separated, empty for none): the images whose VM then also runs
#   a part of the suite through the privileged container (run-in-container.sh), in the same boot
#   SUITE_ORDER (random or default; the pom's -Dtestbed.order) and SUITE_ORDER_SEED (-Dtestbed.order.seed): the
#   order the suite's classes and methods run in, in every image (run-suite.sh); each VM prints its seed
#
# Under single-threaded TCG one VM keeps about one host core busy, so on 2 cores the two images' VMs run side by
# side for little more than the longer one's time (soft-roce-ci/README.md, "Device tests", has the figures). Every line of a VM's
# output is prefixed with its image name. Exit code: 0 only if the suite passed in every image; otherwise the first
# failing image's exit code (124 a VM timed out, 125 a testbed failure).
set -uo pipefail
cd "$(dirname "$0")"
timeout=${1:?usage: run-in-vms.sh TIMEOUT_SECONDS parallel|sequential IMAGE...}
mode=${2:?usage: run-in-vms.sh TIMEOUT_SECONDS parallel|sequential IMAGE...}
shift 2
# shellcheck disable=SC2046
set -- $(echo "$*" | tr ',' ' ')
(($#)) || { echo "run-in-vms: no image given" >&2; exit 125; }
case $mode in parallel|sequential) ;; *) echo "run-in-vms: mode parallel or sequential, not $mode" >&2; exit 125 ;; esac
# the images whose VM also runs the privileged-container phase (run-in-container.sh) after the suite: they need
# Docker and the container's root file system in the image (suite-<image>.conf: container_rootfs=yes)
container_images=$(echo "${TESTBED_CONTAINER_IMAGES-trixie}" | tr ',' ' ')

# Where both images run side by side, the longest tests (those whose subject is mostly our own Java code) run in one
# image each, so that the two VMs finish together instead of each running all of them: the iWARP ones in the Debian 13
# image, the RoCE ones in the Debian 12 image. They are the kernel NFS client against the Java NFS server (tree
# copies, fio with verify, the server killed and restarted; 5-10 minutes each under emulation; its export options,
# under a minute), the RPC soak with kills (3-5 minutes), the oncrpc4j bridge (about 4 minutes), the
# close-while-posting races (1-2 minutes), the RFC 7306 agent's 100,000 masked-atomics vectors (1-3 minutes) and
# netty-rdma's classes (echo, TLS, gRPC, robustness: every one over rxe in the Debian 12 image and over siw in the
# Debian 13 image; 2026-11-26: 814 s of test time on rxe, the allocation probe's 314 s included, which runs on rxe
# only; about 9 minutes on siw): about 20 minutes of work each image would otherwise add (CI run of 2026-11-23, 2 cores, both VMs at once, a loaded
# host).
# Every other test runs in both images; with one image (-Dtestbed.images=trixie) nothing is left out.
shard_exclusions() {
  local image=$1 all=" ${*:2} "
  [[ $all == *" trixie "* && $all == *" bookworm "* ]] || return 0
  # The two servers' first-message tests on siw (100 fresh connections each, about a minute each) exercise the same
  # accept path (RdmaServer) on each kernel, one in each image. Both oncrpc4j bridge classes run in Debian 12: the
  # Debian 13 VM also runs the container phase (about 5 minutes), which this evens out. The idle server's CPU (3-5
  # minutes each, mostly its JVM's start) is measured on siw in Debian 13 and on rxe in Debian 12.
  # The masked atomics by CmpSwap loops on rxe (RoceMaskedLoop, about 2 minutes) run in Debian 13.
  case $image in
    trixie) echo '.*\.(RoceKernelClientJavaServer|RoceIdleServerCpu|RoceKernelClientExportOptions|RoceSoak|PostCloseRaceRoce|RoceOncrpc4jBridge|IwarpOncrpc4jBridge|IwarpDemoFirstMessage|RoceAgentVectors|RoceRobustness|RoceGrpc|RoceNettyEcho|RoceTls)DeviceTest' ;;
    bookworm) echo '.*\.(RoceMaskedLoop|IwarpKernelClientJavaServer|IwarpIdleServerCpu|IwarpKernelClientExportOptions|IwarpSoak|PostCloseRaceIwarp|IwarpFirstCall|IwarpAgentVectors|IwarpRobustness|IwarpGrpc|IwarpNettyEcho|IwarpTls)DeviceTest' ;;
  esac
}

# one image's VM: its output prefixed, its exit code in target/vm-job-<image>.rc
run_one() {
  local image=$1 rc=0 start=$SECONDS exclude
  shift
  exclude=$(shard_exclusions "$image" "$@")
  rm -rf "target/vm-job-$image" "target/vm-job-$image.rc"
  # build (or find) this image first: side by side in parallel mode (one build lock per image), and each VM starts
  # as soon as its own image is there (on a fresh machine the Debian 13 image is ready minutes before the other)
  if ! ../bin/testbed --image "$image" image >/dev/null; then
    echo "[$image] run-in-vms: the $image image failed to build"
    echo 125 >"target/vm-job-$image.rc"
    return
  fi
  [[ -z $exclude ]] || echo "[$image] run-in-vms: left to the other image: $exclude"
  local command="SUITE_EXCLUDE_CLASSNAME='$exclude' SUITE_ORDER='${SUITE_ORDER:-default}' SUITE_ORDER_SEED='${SUITE_ORDER_SEED:-}' ./run-suite.sh target/lib"
  if [[ " $container_images " == *" $image "* ]]; then
    # then the privileged-container path, in the same boot: its exit code counts as much as the suite's
    command="$command; suite=\$?; ./run-in-container.sh; container=\$?; exit \$(( suite ? suite : container ))"
    echo "[$image] run-in-vms: then the container phase (run-in-container.sh)"
  fi
  ../bin/testbed --image "$image" run --timeout "$timeout" --keep-job "target/vm-job-$image" -- \
    "$command" 2>&1 | sed -u "s/^/[$image] /"
  rc=${PIPESTATUS[0]}
  echo "$rc" >"target/vm-job-$image.rc"
  echo "[$image] device suite VM exit $rc after $((SECONDS - start)) s"
}

start=$SECONDS
pids=()
for image in "$@"; do
  if [[ $mode == parallel ]]; then
    run_one "$image" "$@" &
    pids+=($!)
  else
    run_one "$image" "$@"
  fi
done
wait "${pids[@]}" 2>/dev/null

rc=0
for image in "$@"; do
  r=$(cat "target/vm-job-$image.rc" 2>/dev/null || echo 125)
  line=$(grep -hE '^device-suite: [0-9]+ passed' "target/vm-job-$image/output.log" 2>/dev/null | tail -n 1)
  echo "run-in-vms: $image: exit $r; ${line:-device-suite: no summary (the suite did not run)}"
  ((r == 0 || rc != 0)) || rc=$r
done
echo "run-in-vms: $* ($mode) took $((SECONDS - start)) s"
exit "$rc"
