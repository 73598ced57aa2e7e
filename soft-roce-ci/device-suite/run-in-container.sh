#!/bin/bash
# Runs inside the testbed VM (the trixie image, after the device suite): the CI proof of the privileged-container
# testbed. Starts Docker in the guest, imports the container image from the root file system the VM image carries
# (built on the host from Debian packages; nothing is pulled), and runs a part of the device suite inside the
# container through testcontainers (soft-roce-ci/container/run.sh), on the container's own rxe8/rxe9 and siw8/siw9:
# device listing and attributes, WRITE/READ/atomics, an rdma_cm connection, a connection-layer WRITE/READ round and
# an RPC-over-RDMA echo, each on rxe and siw. Prints "container-suite: N passed, F failed, S skipped" and fails if
# anything failed, was skipped or did not run (then "container-suite: FAILED: <why>" where nothing ran).
#
#   run-in-container.sh [--test-class CLASS | --test-method METHOD]...      default: the selection below
#
# Environment: CONTAINER_SUITE_TIMEOUT (seconds for the container's suite, default 900), DOCKERD_WAIT (seconds for
# dockerd to answer, default 180).
set -uo pipefail
cd "$(dirname "$0")"
start=$SECONDS
say() { printf 'container-suite: %s\n' "$*"; }

t=org.panamardma.testbed.RdmaTestDevice
tests=(
  --test-class org.panamardma.verbs.DeviceListDeviceTest
  --test-class org.panamardma.verbs.DeviceQueryDeviceTest
  --test-method org.panamardma.verbs.RoceOperationsDeviceTest#writeChangesRemoteMemory
  --test-method org.panamardma.verbs.RoceOperationsDeviceTest#readFetchesRemoteMemory
  --test-method org.panamardma.verbs.RoceOperationsDeviceTest#fetchAddReturnsTheOldValueAndAddsRemotely
  --test-method org.panamardma.verbs.RoceOperationsDeviceTest#compareSwapSwapsOnlyOnMatch
  --test-method "org.panamardma.verbs.cm.CmRoceDeviceTest#connectsOverIpv4WithPrivateDataThenWriteFlushAtomicWriteFetchAddAndDisconnect($t)"
  --test-method "org.panamardma.verbs.cm.CmIwarpDeviceTest#connectsWithPrivateDataBothWaysAndMovesBytes($t)"
  --test-method "org.panamardma.verbs.connection.RoceConnectionDeviceTest#writeThenReadThroughFutures($t)"
  --test-method "org.panamardma.verbs.connection.IwarpConnectionDeviceTest#writeThenReadThroughFutures($t)"
  --test-method "org.panamardma.rpcrdma.server.RoceJavaClientServerDeviceTest#nullAndSmallEchoInline($t)"
  --test-method "org.panamardma.rpcrdma.server.IwarpJavaClientServerDeviceTest#nullAndSmallEchoInline($t)"
)
(($#)) && tests=("$@")

# --- Docker in the guest: no bridge and no iptables (the container uses the guest's network namespace), a bounded
# wait, and the daemon's log when it does not come up.
# containerd runs as a daemon of its own, started and waited for here: a dockerd that starts its own containerd gives
# up on it after a fixed wait ("failed to start containerd: timeout waiting for containerd to start", seen in a CI
# rehearsal on an overloaded host, containerd itself up in 2.7 s), and the fallback to the vfs driver then ran the
# guest's disk full. Our wait lasts while containerd is alive, up to DOCKERD_WAIT.
containerd_log=/tmp/containerd.log
containerd_sock=/run/containerd/containerd.sock
start_containerd() {
  [[ -n ${containerd_pid:-} ]] && kill -0 "$containerd_pid" 2>/dev/null && return 0
  containerd >"$containerd_log" 2>&1 &
  containerd_pid=$!
  local begin=$SECONDS
  while ((SECONDS - begin < ${DOCKERD_WAIT:-180})); do
    if [[ -S $containerd_sock ]] && timeout 20 ctr --address "$containerd_sock" version >/dev/null 2>&1; then
      say "containerd answered after $((SECONDS - begin)) s"
      return 0
    fi
    kill -0 "$containerd_pid" 2>/dev/null || break
    sleep 1
  done
  say "containerd did not answer within $((SECONDS - begin)) s; its log:"
  tail -n 20 "$containerd_log" | sed 's/^/  containerd: /'
  return 1
}
dockerd_log=/tmp/dockerd.log
start_dockerd() {
  local driver=$1
  mountpoint -q /sys/fs/cgroup || mount -t cgroup2 cgroup2 /sys/fs/cgroup
  modprobe -a overlay veth 2>/dev/null
  start_containerd || return 1
  dockerd --iptables=false --ip6tables=false --bridge=none --storage-driver="$driver" \
    --containerd="$containerd_sock" --host unix:///var/run/docker.sock >"$dockerd_log" 2>&1 &
  dockerd_pid=$!
  local begin=$SECONDS next=$((SECONDS + 20)) problem
  while ((SECONDS - begin < ${DOCKERD_WAIT:-180})); do
    if problem=$(timeout 20 docker info 2>&1 >/dev/null); then
      say "dockerd ($driver) answered after $((SECONDS - begin)) s"
      return 0
    fi
    kill -0 "$dockerd_pid" 2>/dev/null || break
    if ((SECONDS >= next)); then
      say "waiting for dockerd ($driver), $((SECONDS - begin)) s: ${problem##*$'\n'}; its log: $(tail -n 1 "$dockerd_log" | cut -c1-160)"
      next=$((SECONDS + 20))
    fi
    sleep 2
  done
  say "dockerd ($driver) did not answer within $((SECONDS - begin)) s; its log:"
  tail -n 40 "$dockerd_log" | sed 's/^/  dockerd: /'
  kill "$dockerd_pid" 2>/dev/null
  wait "$dockerd_pid" 2>/dev/null
  return 1
}
stop_dockerd() {
  if [[ -n ${dockerd_pid:-} ]]; then
    kill "$dockerd_pid" 2>/dev/null
    wait "$dockerd_pid" 2>/dev/null
  fi
  if [[ -n ${containerd_pid:-} ]]; then
    kill "$containerd_pid" 2>/dev/null
    wait "$containerd_pid" 2>/dev/null
  fi
}
trap stop_dockerd EXIT

# overlay2, tried twice (a second start finds its binaries in the page cache), before vfs, which copies every layer
if ! { start_dockerd overlay2 || start_dockerd overlay2 || start_dockerd vfs; }; then
  say "FAILED: Docker did not start in the guest"
  exit 1
fi
phase_docker=$((SECONDS - start))

rootfs=/var/lib/testbed/container-rootfs.tar
if [[ ! -f $rootfs ]]; then
  say "FAILED: no $rootfs in this image (suite conf: container_rootfs=yes)"
  exit 1
fi
if ! ../container/import-image.sh "$rootfs"; then
  say "FAILED: docker import of $rootfs failed"
  exit 1
fi
phase_import=$((SECONDS - start - phase_docker))

out=/tmp/container-run.log
../container/run.sh --timeout "${CONTAINER_SUITE_TIMEOUT:-900}" "${tests[@]}" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
summary=$(grep -hE '^\[container\] device-suite: [0-9]+ passed' "$out" | tail -n 1 | sed 's/^\[container\] device-suite: //')
echo "container-suite: phases: dockerd $phase_docker s, image import $phase_import s, container run $((SECONDS - start - phase_docker - phase_import)) s"
if [[ -z $summary ]]; then
  say "FAILED: the suite did not run in the container (exit $rc)"
  exit 1
fi
say "$summary, through the container on rxe8/rxe9 and siw8/siw9 (exit $rc, $((SECONDS - start)) s)"
exit "$rc"
