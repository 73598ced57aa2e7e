#!/usr/bin/env bash
# Every figure of issue 26 in ONE table, each beside its target (figure | measured | target | verdict):
#   (a) the binding's cost, Java - C per post+poll, both paths, every request type, on the stub provider
#       (binding-cost.sh --cpu: thread CPU time, which a shared host disturbs least); target <= 15 ns;
#   (b) the message rate of 1-byte WRITEs, batches 1 and 16, Java / C on the stub, target >= 0.9x, and what Java would
#       reach on a ConnectX (C 2.6 M posts/s per QP plus what Java adds per WRITE here);
#   (c) the kernel as anchor, one boot of the testbed VM, the median of FIGURES_RUNS (3) runs' ratios: the kernel NFS
#       client against the Java NFS server over knfsd (256 KiB and 1 MiB, READ and WRITE, rxe and siw), target
#       >= 1.0x (both servers warmed by an untimed pass, then alternated knfsd java java knfsd within each run, so
#       that a load swing on the shared host meets both; a run's ratio pairs the sides round by round); the Java NFS
#       client over the kernel client (1 and 4 calls in flight, rxe and siw), target >= 0.9x;
#   (d) the server's ibv_reg_mr / ibv_dereg_mr over 1,000 READs and 1,000 WRITEs after warm-up on rxe and siw (the
#       Roce/IwarpSteadyStateRegistrationDeviceTest device tests, same boot), target 0;
#   (e) the WRITE regression guard (perftest/write-guard.sh's ratio and floor, from the same runs).
# The VM part starts first and the host part (a, b) runs while it does: the VM spends most of its time waiting on
# emulated devices, and the host figures are CPU time, not wall-clock time.
#
#   benchmarks/issue-figures.sh            # writes benchmarks/target/issue-figures/figures.md. On a quiet host
#                                          # (2026-11-28, JIT-quiet warm-ups over the timed traffic): the kernel
#                                          # client's part 23-31 min for 2-3 runs (the Java server warmed once per
#                                          # boot, 17 min of it), the Java client's 18-20 min per run (one JVM per
#                                          # device, both settings), the registration count ~25 min: under 2 h
#   benchmarks/issue-figures.sh --quick    # one run of 16 MiB files, 200 calls per device, three requests
#   benchmarks/issue-figures.sh --readme   # and puts the table into benchmarks/README.md's generated section
#   benchmarks/issue-figures.sh --table    # only prints the table again from the last run's files (--readme too)
# Environment: FIGURES_RUNS (3), FIGURES_VM (1; 0 skips the VM part), FIGURES_HOST (1; 0 skips the host part),
# FIGURES_BUILD (1; 0 uses the jars already built), TESTBED_TIMEOUT (s, 10800: 5400 cut the run of 2026-11-28
# before the registration count), TESTBED_MEM_MB and TESTBED_IMAGE (as testbed's), REQUESTS and RATES
# (binding-cost.sh's).
# Exit code: 0 if every figure was measured (met or missed: the table says which), 1 if a part failed.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
cd "$root"
# shellcheck source=../soft-roce-ci/bin/jdk.sh
source soft-roce-ci/bin/jdk.sh
find_jdk25
export JAVA_HOME

quick=0 readme=0 table_only=0
for a in "$@"; do
  case $a in
    --quick) quick=1 ;; --readme) readme=1 ;; --table) table_only=1 ;;
    *) echo "usage: $0 [--quick] [--readme] [--table]" >&2; exit 2 ;;
  esac
done
out=benchmarks/target/issue-figures
vm=$out/vm
cpu_log=benchmarks/target/binding-cost/cpu.log

table() {
  local load
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  {
    echo "Issue 26's figures, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . || echo '+changes'),"
    echo "$(nproc) cores, host load average at the end ${load}; $(cat "$out/conditions" 2>/dev/null || echo 'conditions unknown')."
    echo
    benchmarks/perftest/figures-table.sh "$( [[ -f $cpu_log ]] && echo "$cpu_log" || echo /dev/null)" "$vm" \
      benchmarks/results/write-guard.floor
  } >"$out/figures.md"
  cat "$out/figures.md"
}

# benchmarks/README.md's generated section: between the two marker lines, replaced whole
readme_section() {
  awk -v table="$out/figures.md" '
    /^<!-- issue-figures: begin/ { print; while ((getline l < table) > 0) print l; skip = 1; next }
    /^<!-- issue-figures: end/ { skip = 0 }
    !skip' benchmarks/README.md >"$out/README.md.new" && mv "$out/README.md.new" benchmarks/README.md
  echo "[issue-figures] benchmarks/README.md's generated section updated" >&2
}

if ((table_only)); then table; ((readme)) && readme_section; exit 0; fi

runs=${FIGURES_RUNS:-3} steady=1000 mib=64
host_env=()
if ((quick)); then
  runs=${FIGURES_RUNS:-1} steady=200 mib=16
  host_env=(REQUESTS="${REQUESTS:-SEND/ext WRITE/ext WRITE/legacy}" RATES="${RATES:-ext/1 ext/16}")
fi
mkdir -p "$out"
# a part this run skips keeps the last run's figures (the table's header says when that was); a part it runs starts clean
[[ ${FIGURES_VM:-1} == 1 ]] && rm -rf "$vm"
[[ ${FIGURES_HOST:-1} == 1 ]] && rm -f "$cpu_log"
mkdir -p "$vm"
start=$SECONDS

if [[ ${FIGURES_BUILD:-1} == 1 ]]; then
  echo "[issue-figures] building (the testbed profile: the device suite's jars too) ..." >&2
  ./mvnw -B -q -Ptestbed package -DskipTests -Dmaven.javadoc.skip -Dmaven.source.skip
fi
rc=0
vm_pid=""
if [[ ${FIGURES_VM:-1} == 1 ]]; then
  # the guest reads copies, so that the host may rebuild its targets while the VM runs
  cp benchmarks/target/benchmarks.jar nfs/target/nfs-server.jar "$vm/"
  cp -r soft-roce-ci/device-suite/target/lib "$vm/lib"
  echo "[issue-figures] VM part in the background ($runs run(s) of the kernel-anchored figures, then the registration count; log $vm/vm.log)" >&2
  soft-roce-ci/bin/testbed run --timeout "${TESTBED_TIMEOUT:-10800}" -- \
    "FIGURES_RUNS=$runs FIGURES_STEADY_CALLS=$steady PERF_KNFS_MIB=$mib PERF_RPC_FILE_MIB=$mib benchmarks/perftest/figures-in-guest.sh $vm" \
    >"$vm/vm.log" 2>&1 &
  vm_pid=$!
fi
if [[ ${FIGURES_HOST:-1} == 1 ]]; then
  echo "[issue-figures] host part: benchmarks/binding-cost.sh --cpu (log benchmarks/target/binding-cost/cpu.log) ..." >&2
  env "${host_env[@]}" benchmarks/binding-cost.sh --cpu >"$out/host.log" 2>&1 || { echo "[issue-figures] binding-cost.sh --cpu failed ($out/host.log)" >&2; rc=1; }
fi
if [[ -n $vm_pid ]]; then
  echo "[issue-figures] waiting for the VM part ..." >&2
  wait "$vm_pid" || { echo "[issue-figures] the VM part exited $? ($vm/vm.log)" >&2; rc=1; }
  benchmarks/perftest/write-guard.sh "$vm/raw-1.csv" >&2 || true # per run; the table's (e) row is the median
fi
# the conditions of the VM part's figures (a host-only run keeps those of the last VM run, whose figures it shows)
[[ ${FIGURES_VM:-1} == 1 ]] && echo "VM part: $runs run(s) planned in one boot ($(( ${TESTBED_MEM_MB:-4096} )) MiB, image ${TESTBED_IMAGE:-trixie}), ${mib} MiB files, ${steady} steady-state calls per device; $((SECONDS - start)) s in all" \
  >"$out/conditions"
table
((readme)) && readme_section
exit $rc
