#!/usr/bin/env bash
# Checks that bad setups of the testbed give clear errors (issue: "no qemu, no root, no JDK 25, image step
# failure, VM timeout"). Each case runs the real scripts and asserts on their exit code and message.
# Needs root (to run a case as an unprivileged user) and a built image (for the timeout case).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
testbed="$root/soft-roce-ci/bin/testbed"
passed=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect NAME EXPECTED_RC REGEX [--absent REGEX] -- COMMAND...: the exit code, a line matching REGEX, and (with
# --absent) no line matching the second one
expect() {
  local name=$1 want_rc=$2 regex=$3 absent=""; shift 3
  if [[ $1 == --absent ]]; then absent=$2; shift 2; fi
  shift
  local out rc start=$SECONDS
  out=$("$@" 2>&1); rc=$?
  if [[ $rc == "$want_rc" ]] && grep -Eq "$regex" <<<"$out" \
      && { [[ -z $absent ]] || ! grep -Eq "$absent" <<<"$out"; }; then
    echo "  ok   $name (exit $rc, $((SECONDS - start)) s)"; passed=$((passed + 1))
  else
    echo "  FAIL $name: exit $rc (wanted $want_rc), output did not match /$regex/ or matched /$absent/:"
    sed 's/^/       /' <<<"$out" | tail -n 15
    failed=$((failed + 1))
  fi
}

echo "bad-setups: clear errors for bad testbed setups"
expect "no qemu" 125 "missing commands: no-such-qemu.*apt-get install" -- \
  env TESTBED_QEMU=no-such-qemu "$testbed" check
# The unprivileged user runs a copy of the testbed scripts: the clone itself may sit in a folder it cannot traverse
# (a mktemp -d folder is mode 0700), and that must not change what this case checks.
chmod 0755 "$tmp"
mkdir -p "$tmp/unprivileged" && cp -r "$root/soft-roce-ci/bin" "$root/soft-roce-ci/image" "$root/soft-roce-ci/guest" "$tmp/unprivileged/"
chmod -R a+rX "$tmp/unprivileged"
expect "no root for the image build" 125 "building it needs root" -- \
  runuser -u nobody -- env TESTBED_CACHE="$tmp/nobody-cache" HOME="$tmp" "$tmp/unprivileged/bin/testbed" check
expect "image step failure names the step and its log" 125 "FAILED: step 'debootstrap' \(exit [0-9]+; log: .*/logs/debootstrap.log\)" -- \
  env TESTBED_CACHE="$tmp/cache" TESTBED_MIRROR=http://127.0.0.1:9/debian "$testbed" image
expect "unknown --image names the known ones" 125 "unknown image 'sid' \(--image or TESTBED_IMAGE\); known images: bookworm trixie" -- \
  "$testbed" --image sid check
expect "unknown TESTBED_IMAGE, run" 125 "unknown image 'Trixie'.*known images: bookworm trixie" -- \
  env TESTBED_IMAGE=Trixie bash -c "cd '$root' && '$testbed' run -- true"
expect "unknown --image after the command" 125 "unknown image '../trixie'" -- \
  bash -c "cd '$root' && '$testbed' run --image ../trixie -- true"
expect "bookworm image without a JDK 25 to copy in" 125 "TESTBED_GUEST_JDK=$tmp is not a JDK" -- \
  env TESTBED_GUEST_JDK="$tmp" "$testbed" --image bookworm check
expect "no JDK 25 (Maven enforcer)" 1 "needs JDK 25 or later.*Point JAVA_HOME at a JDK 25" -- \
  env JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64 "$root/mvnw" -B -q -N -f "$root/pom.xml" validate
mkdir -p "$tmp/jvm" && ln -s /usr/lib/jvm/java-17-openjdk-amd64 "$tmp/jvm/java-17"
expect "no JDK 25 (scripts)" 1 "needs a JDK 25 or later" -- \
  env JAVA_HOME= PANAMA_JDK_DIR="$tmp/jvm" bash -c "source '$root/soft-roce-ci/bin/jdk.sh' && find_jdk25"
# The two README commands on a machine without qemu (host-packages.sh): a PATH with every command of this one but
# qemu's hides them, as a fresh machine would not have them (nothing is uninstalled).
hidden="$tmp/path-without-qemu"
mkdir -p "$hidden"
for dir in /usr/local/bin /usr/bin /bin; do
  for f in "$dir"/*; do
    name=${f##*/}
    [[ -x $f && ! -d $f && $name != qemu-system-x86_64 && $name != qemu-img && ! -e $hidden/$name ]] || continue
    ln -s "$f" "$hidden/$name"
  done
done
chmod -R a+rX "$hidden"
# An ordinary user: the commands say the one command to run as root and stop before building anything (a copy of
# the scripts, as above, for a clone the user cannot traverse).
chmod 0755 "$tmp"
mkdir -p "$tmp/clone/soft-roce-ci"
cp "$root/run-demo.sh" "$root/run-tests.sh" "$tmp/clone/"
cp -r "$root/soft-roce-ci/bin" "$root/soft-roce-ci/image" "$root/soft-roce-ci/guest" "$tmp/clone/soft-roce-ci/"
chmod -R a+rX "$tmp/clone"
expect "run-demo.sh without qemu, not root: prints the install command, stops" 125 \
  "lacks: qemu-system-x86_64 \(qemu-system-x86\), qemu-img \(qemu-utils\)" --absent "building|booting" -- \
  runuser -u nobody -- env PATH="$hidden" HOME="$tmp" "$tmp/clone/run-demo.sh"
expect "... with the exact command" 0 "^    sudo apt-get install -y --no-install-recommends qemu-system-x86 qemu-utils$" -- \
  bash -c "runuser -u nobody -- env PATH='$hidden' HOME='$tmp' '$tmp/clone/run-demo.sh' 2>&1; true"
expect "run-tests.sh without qemu, not root: prints the install command, stops" 125 \
  "^    sudo apt-get install -y --no-install-recommends qemu-system-x86 qemu-utils( |$)" --absent "mvnw|Building|booting" -- \
  runuser -u nobody -- env PATH="$hidden" HOME="$tmp" "$tmp/clone/run-tests.sh"
# Root: the commands run apt-get for exactly what is missing. A stand-in apt-get records its arguments and fails the
# install, so that nothing is installed and the demo stops there.
printf '#!/bin/sh\necho "apt-get $*" >>"%s"\n[ "$1" = update ] || exit 100\n' "$tmp/apt-get.log" >"$tmp/apt-get"
chmod +x "$tmp/apt-get"
expect "run-demo.sh without qemu, root: runs apt-get install, stops when it fails" 125 \
  "installing failed" --absent "building|booting" -- \
  env PATH="$hidden" PANAMA_APT_GET="$tmp/apt-get" "$root/run-demo.sh"
expect "... apt-get was asked for exactly the missing packages" 0 \
  "^apt-get install -y -q --no-install-recommends qemu-system-x86 qemu-utils$" --absent "^apt-get (install|update)$" -- \
  bash -c "cat '$tmp/apt-get.log'; grep -qx 'apt-get update -q' '$tmp/apt-get.log'"
# And once apt-get has installed them (this stand-in puts them on the PATH), the check finds them and passes.
printf '#!/bin/sh\n[ "$1" = install ] && ln -sf /usr/bin/qemu-system-x86_64 /usr/bin/qemu-img "%s/"\nexit 0\n' \
  "$hidden" >"$tmp/apt-get-ok"
chmod +x "$tmp/apt-get-ok"
expect "root: what apt-get installed is found afterwards" 0 "installed: qemu-system-x86 qemu-utils" -- \
  env PATH="$hidden" PANAMA_APT_GET="$tmp/apt-get-ok" bash -c \
  "source '$root/soft-roce-ci/bin/host-packages.sh' && ensure_host_packages demo \"\${host_packages_testbed[@]}\""
# Two deadlines guard a run: the guest's own (half the limit here, 22 s, after the boot) and the host's kill at the
# limit. Which fires first depends on how fast the VM booted (a 14 s boot lets the guest's fire at 36 s): either way
# the command is stopped, the exit code is 124 and the message says so.
expect "VM timeout kills the VM and says so" 124 "did not finish within 45 s|the command timed out after 22 s" -- \
  bash -c "cd '$root' && '$testbed' run --timeout 45 -- sleep 600"
expect "command exit code comes back" 7 "phase command" -- \
  bash -c "cd '$root' && '$testbed' run --timeout 300 -- 'exit 7'"

echo "bad-setups: $passed passed, $failed failed"
((failed == 0))
