#!/usr/bin/env bash
# Tests failure-report.sh on made-up CI trees: a host test failure, a device test failure with its connection's log
# lines and the kernel's messages, a suite JVM that crashed, and a failure with no report at all. Each case asserts
# on lines the report must print and on its exit code (0: the report must never end CI early, see its header).
# CI runs it first, in a second; it needs only bash, awk and grep.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

# check NAME ROOT IMAGES -- REGEX...: exit code 0 and, for each REGEX, a line of the report matching it
check() {
  local name=$1 root=$2 images=$3; shift 4
  local out rc missing=()
  # shellcheck disable=SC2086 # IMAGES is a word list
  out=$("$here/failure-report.sh" "$root" $images 2>&1); rc=$?
  for regex in "$@"; do grep -Eq -- "$regex" <<<"$out" || missing+=("$regex"); done
  if ((rc == 0 && ${#missing[@]} == 0)); then
    echo "  ok   $name"; passed=$((passed + 1))
  else
    echo "  FAIL $name: exit $rc, no line matching: ${missing[*]}"
    sed 's/^/       /' <<<"$out" | tail -n 20
    failed=$((failed + 1))
  fi
}

# a host module's surefire report: one failed test with an escaped message and four causes (three are printed)
host=$tmp/host
mkdir -p "$host/rpcrdma/target/surefire-reports"
cat > "$host/rpcrdma/target/surefire-reports/TEST-org.example.ChunkTest.xml" <<'XML'
<testsuite name="org.example.ChunkTest" tests="2" failures="1">
<testcase name="passes" classname="org.example.ChunkTest" time="0.1"/>
<testcase name="refusesALongList" classname="org.example.ChunkTest" time="0.2">
<failure message="expected: &lt;4&gt; but was: &lt;5&gt;&#10;in &quot;list&quot;" type="AssertionFailedError">trace
Caused by: java.io.IOException: one
Caused by: java.io.IOException: two
Caused by: java.io.IOException: three
Caused by: java.io.IOException: four
</failure>
</testcase>
</testsuite>
XML
check "a host test failure: name, message, three causes" "$host" "trixie bookworm" -- \
  '^\[ci\] failed tests:$' \
  '^    FAILED \(host\) ChunkTest\.refusesALongList: expected: <4> but was: <5> in "list"$' \
  '^      Caused by: java.io.IOException: three$'
out=$("$here/failure-report.sh" "$host" trixie 2>&1)
if grep -q 'four' <<<"$out" || grep -q 'FAILED.*passes' <<<"$out"; then
  echo "  FAIL a host test failure: a fourth cause or a passed test was printed"; failed=$((failed + 1))
else
  echo "  ok   a host test failure: no fourth cause, no passed test"; passed=$((passed + 1))
fi

# a device test failure in the bookworm VM: the guest log's lines naming its connection, the kernel's messages
dev=$tmp/device
job=$dev/soft-roce-ci/device-suite/target/vm-job-bookworm
mkdir -p "$job/reports" "$dev/soft-roce-ci/device-suite/target/vm-job-trixie/reports"
cat > "$job/reports/TEST-junit-jupiter.xml" <<'XML'
<testsuite name="JUnit Jupiter" tests="2" failures="1">
<testcase name="ok(RdmaTestDevice)" classname="org.panamardma.rpcrdma.IwarpEchoDeviceTest" time="1"/>
<testcase name="thousandCalls(RdmaTestDevice)" classname="org.panamardma.rpcrdma.IwarpEchoDeviceTest" time="9">
<failure message="ConnectionLost: 10.77.2.1:40001 -&gt; 10.77.2.2:20049 queue pair in error" type="ConnectionLost">trace</failure>
</testcase>
</testsuite>
XML
cat > "$job/output.log" <<'LOG'
[main] INFO server listening on 10.77.2.2:20049
[pool-1] WARN RdmaServer - 10.77.2.1:40001 closing: a receive completed with WR_FLUSH_ERR
[pool-1] WARN RdmaServer - 10.77.2.1:40777 closing: unrelated connection
device-suite: 1 passed, 1 failed, 0 skipped (9 s)
device-suite: the guest kernel's last messages about RDMA:
[  453.288635] siw: got TERMINATE. layer 1, type 1, code 0
device-suite: the devices' non-zero hardware counters:
LOG
check "a device test failure: name, message, its connection's log lines, the kernel's messages" "$dev" "trixie bookworm" -- \
  '^    FAILED \(bookworm\) IwarpEchoDeviceTest\.thousandCalls\(RdmaTestDevice\): ConnectionLost: 10\.77\.2\.1:40001 -> 10\.77\.2\.2:20049' \
  '^      log: .*10\.77\.2\.1:40001 closing: a receive completed with WR_FLUSH_ERR' \
  '^      dmesg: .*siw: got TERMINATE\. layer 1, type 1, code 0'

# a suite JVM that crashed in native code: no report, its fatal error header names the signal and frame
crash=$tmp/crash
job=$crash/soft-roce-ci/device-suite/target/vm-job-trixie
mkdir -p "$job"
cat > "$job/output.log" <<'LOG'
# A fatal error has been detected by the Java Runtime Environment:
#
#  SIGSEGV (0xb) at pc=0x00007f, pid=812, tid=830
#
# Problematic frame:
# C  [librxe-rdmav34.so+0x5a2b]
LOG
check "a crashed suite JVM: signal and problematic frame" "$crash" "trixie bookworm" -- \
  '^    CRASHED \(trixie\) #  SIGSEGV \(0xb\)' \
  '^    CRASHED \(trixie\) # C  \[librxe-rdmav34\.so'

# a failure that no report names (an image build, the container phase): say so, exit 0
check "no report names a failure: says where to look" "$tmp/empty" "trixie bookworm" -- \
  '^\[ci\] failed tests:$' '^    \(no test report names a failure'

echo "failure-report: $passed passed, $failed failed"
((failed == 0))
