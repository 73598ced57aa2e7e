#!/bin/bash
# Runs inside the testbed VM: every device test (JUnit tag rdma-device) and the ABI check of the bindings against
# the installed rdma-core headers (tag rdma-abi, needs gcc and libibverbs-dev) found in the test jars of LIB_DIR, in one
# JVM (each JVM start costs seconds under emulation), with a missing device counted as a failure. Prints the JUnit
# tree and a one-line summary, writes XML reports to /job/reports (the host keeps them in target/vm-job-<image>/reports).
# Fails if any test failed, none ran, or any was skipped: in the VM every device must be there.
#
# The suite runs on the module path, as users of the modules do: the console launcher is the module
# org.junit.platform.console, each test jar is patched into its module (LIB_DIR/test-modules.txt, written by
# test-modules.sh when the suite is packaged), which then also reads JUnit, the testbed extension and the JDK modules the
# tests use, and opens its test packages to JUnit; native access is granted to org.panamardma.verbs and
# org.panamardma.nfs (the NFS server's file-system calls) by name and denied to everything else, so that a restricted call from anywhere else fails instead of printing a warning.
set -uo pipefail
# Extra arguments select what to run instead of every test module, e.g.
#   run-suite.sh target/lib --select-class org.panamardma.verbs.RoceOperationsDeviceTest
lib=${1:?usage: run-suite.sh LIB_DIR [JUnit console selectors...]}
shift
reports=${REPORTS_DIR:-/job/reports}
mkdir -p "$reports"

list="$lib/test-modules.txt"
[[ -s $list ]] || { echo "device-suite: no $list (test-modules.sh writes it: ./mvnw -Ptestbed package)"; exit 1; }
# the module path: every jar but the test jars (patched in below) and the launcher's class-path edition
modulepath=$(ls "$lib"/*.jar | grep -v -e '-tests\.jar$' -e junit-platform-console-standalone | paste -sd:)
# what test code reads beyond its module's own requires (org.panamardma.testing: the fixtures the modules' tests share,
# test-fixtures.jar)
reads=org.junit.jupiter.api,org.junit.jupiter.params,org.panamardma.testbed,org.panamardma.testing,java.logging,java.management,jdk.management
# netty-rdma's tests use gRPC and Netty's handlers (test dependencies its module does not require)
reads=$reads,io.netty.handler,io.netty.codec.http2,io.grpc,io.grpc.stub,io.grpc.netty,io.grpc.internal
patches=()
modules=()
selectors=()
while read -r jar module packages; do
  patches+=(--patch-module "$module=$lib/$jar" --add-reads "$module=$reads")
  for p in $packages; do patches+=(--add-opens "$module/$p=org.junit.platform.commons"); done
  modules+=("$module")
  selectors+=(--select-module "$module")
done <"$list"
if (($#)); then selectors=("$@"); fi
# SUITE_JAVA_OPTS: more JVM options, e.g. '-Dpanama.nfs.fioMiB=64' for the NFS server tests' full sizes.
# SUITE_EXCLUDE_CLASSNAME: a regular expression of test classes left out (run-in-vms.sh splits the longest ones
# between the images it runs side by side)
# SUITE_TAGS: the JUnit tag expression of the tests run (default 'rdma-device | rdma-abi'; the privileged container,
# which has no compiler for the ABI probe, runs 'rdma-device')
if [[ -n ${SUITE_EXCLUDE_CLASSNAME:-} ]]; then selectors+=(--exclude-classname "$SUITE_EXCLUDE_CLASSNAME"); fi
# SUITE_ORDER=random: the test classes, and the methods of every class that does not order its own
# (@TestMethodOrder), run in a random order (JUnit's ClassOrderer.Random and MethodOrderer.Random), so that a test
# that needs another to have run, or not to have run, before it is found out; the seed is printed, and
# SUITE_ORDER_SEED=<seed> runs that order again (-Dtestbed.order.seed through Maven). Default: JUnit's own order.
order=()
order_note="JUnit's default order"
if [[ ${SUITE_ORDER:-default} == random ]]; then
  seed=${SUITE_ORDER_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
  [[ $seed =~ ^-?[0-9]+$ ]] || { echo "device-suite: SUITE_ORDER_SEED must be a number, not '$seed'"; exit 1; }
  order=(--config 'junit.jupiter.testclass.order.default=org.junit.jupiter.api.ClassOrderer$Random'
    --config 'junit.jupiter.testmethod.order.default=org.junit.jupiter.api.MethodOrderer$Random'
    --config "junit.jupiter.execution.order.random.seed=$seed")
  order_note="random order, seed $seed"
  echo "device-suite: classes and methods in a random order, seed $seed (the same order again: SUITE_ORDER=random SUITE_ORDER_SEED=$seed, or -Dtestbed.order.seed=$seed)"
elif [[ ${SUITE_ORDER:-default} != default ]]; then
  echo "device-suite: SUITE_ORDER is random or default, not '$SUITE_ORDER'"; exit 1
fi

echo "device-suite: java $(java -version 2>&1 | head -n 1); module path $lib, tests patched into ${modules[*]}"
start=$(date +%s)
# -XX:TieredStopAtLevel=1: C1 only; under emulation C2 compiles cost more than they give in a test run.
java --module-path "$modulepath" --add-modules ALL-MODULE-PATH,jdk.management "${patches[@]}" \
  --enable-native-access=org.panamardma.verbs,org.panamardma.nfs --illegal-native-access=deny \
  -Drdma.require=true -XX:+UseSerialGC -XX:TieredStopAtLevel=1 ${SUITE_JAVA_OPTS:-} \
  -m org.junit.platform.console/org.junit.platform.console.ConsoleLauncher execute \
  --disable-banner --disable-ansi-colors --details=tree --details-theme=ascii \
  "${selectors[@]}" "${order[@]}" \
  --include-tag "${SUITE_TAGS:-rdma-device | rdma-abi}" --fail-if-no-tests \
  --reports-dir "$reports"
rc=$?
seconds=$(( $(date +%s) - start ))

xml=$(ls "$reports"/TEST-*.xml 2>/dev/null | head -n 1)
if [[ -z $xml ]]; then
  echo "device-suite: no JUnit XML report written (launcher exit $rc)"
  exit 1
fi
attr() { grep -o -m1 "<testsuite [^>]*" "$xml" | grep -o "$1=\"[0-9]*\"" | grep -o '[0-9]*'; }
tests=$(attr tests); failures=$(attr failures); errors=$(attr errors); skipped=$(attr skipped)
failed=$((failures + errors)); passed=$((tests - failed - skipped))
echo "device-suite: $passed passed, $failed failed, $skipped skipped ($seconds s; $order_note)"
if ((rc != 0 || failed > 0)); then
  # what the kernel said about the devices: the cause of a failure may be only there (siw's MPA exchange, rxe)
  echo "device-suite: the guest kernel's last messages about RDMA:"
  dmesg 2>/dev/null | grep -iE 'siw|rxe|rdma|iw_cm|ib_core|infiniband|rpcrdma|svcrdma' | tail -n 60
  # and the devices' own counters (rxe: retries, sequence errors, duplicate requests, dropped packets...): a lost or
  # stuck operation leaves its trace there; only the non-zero ones
  echo "device-suite: the devices' non-zero hardware counters:"
  for counters in /sys/class/infiniband/*/ports/*/hw_counters; do
    [[ -d $counters ]] || continue
    dev=${counters#/sys/class/infiniband/}; dev=${dev%%/*}
    line=$(cd "$counters" && for c in *; do v=$(cat "$c" 2>/dev/null) && [[ $v != 0 ]] && printf ' %s=%s' "$c" "$v"; done)
    echo "  $dev:${line:- all zero}"
  done
  exit 1
fi
if ((tests == 0)); then echo "device-suite: no device test ran"; exit 1; fi
if ((skipped > 0)); then echo "device-suite: $skipped device tests were skipped; in the VM none may be"; exit 1; fi
exit 0
