#!/usr/bin/env bash
# CI's failure report: which tests failed, by name, with their message and causes, for the host modules and each VM
# image's device suite; for a failed device test also the guest's log lines naming its connections and the guest
# kernel's last RDMA messages; for a suite JVM that crashed without writing a report, its signal and frame.
# The end of CI's output is often all a reader gets to see, so it must say what failed and why, not only how many.
# Bounded: 600 characters of message, 3 causes, 40 lines of context a failed device test.
#
# Usage: failure-report.sh ROOT IMAGE... (ROOT: the clone CI ran in). Always exits 0: no grep that finds nothing may
# end it (it runs after a failure, and it once did: under `set -e -o pipefail` in .ci/run the first empty grep ended
# CI before it had named the failed test). Tested by failure-report-test.sh.
set -u
root=$1; shift
images=("$@")

failed_tests() {
  awk 'function unxml(m) { gsub(/&lt;/, "<", m); gsub(/&gt;/, ">", m); gsub(/&#10;/, " ", m); gsub(/&quot;/, "\"", m)
                           gsub(/&apos;/, "\047", m); gsub(/&amp;/, "\\&", m); return m }
       /<testcase /{ match($0, /name="[^"]*"/); n = substr($0, RSTART + 6, RLENGTH - 7)
                     match($0, /classname="[^"]*"/); c = substr($0, RSTART + 11, RLENGTH - 12); sub(/.*\./, "", c) }
       /<(failure|error)[ >]/{ m = ""; if (match($0, /message="[^"]*"/)) m = substr($0, RSTART + 9, RLENGTH - 10)
                     printf "    FAILED %s%s.%s: %s\n", prefix, c, n, substr(unxml(m), 1, 600); infail = 1; causes = 0 }
       infail && /Caused by:/ && causes < 3 { l = $0; sub(/^[ \t]*/, "", l); printf "      %s\n", substr(unxml(l), 1, 300); causes++ }
       /<\/(failure|error)>/{ infail = 0 }' prefix="$1" "${@:2}"
}

# for a failed device test: the guest's log lines that name its connections (host:port pairs of its message), and the
# guest kernel's last RDMA messages the suite printed: the cause of a lost connection is often only there
failure_context() {
  local out=$1 report=$2 ports
  ports=$(grep -oE '(failure|error) message="[^"]*"' "$report" | grep -oE '10\.77\.[0-9]+\.[0-9]+:[0-9]+' | sed 's/.*://' | sort -u | paste -sd'|')
  if [[ -n $ports ]]; then
    grep -E "(WARN|SEVERE|ERROR).*:($ports)\b|:($ports)\b.*(WARN|SEVERE|ERROR|closing|failed)" "$out" \
      | grep -v '^\s*[|+]' | tail -n 8 | cut -c1-300 | sed 's/^/      log: /'
  fi
  sed -n '/^device-suite: the guest kernel.s last messages about RDMA:/,/^device-suite: the devices/p' "$out" \
    | grep -v '^device-suite:' | tail -n 6 | cut -c1-200 | sed 's/^/      dmesg: /'
}

echo "[ci] failed tests:"
named=0
mapfile -t host_reports < <(cd "$root" && find . -path '*/target/surefire-reports/TEST-*.xml' -print0 \
  | xargs -0 -r grep -lE '<(failure|error)[ >]' | sort)
if ((${#host_reports[@]} > 0)); then
  (cd "$root" && failed_tests "(host) " "${host_reports[@]}")
  named=1
fi
for image in "${images[@]}"; do
  job=$root/soft-roce-ci/device-suite/target/vm-job-$image
  # a JVM that died (a crash in native code) wrote no report: say where it crashed, from its fatal error header
  crashed=$(grep -A1 -E '^# +(SIGSEGV|SIGBUS|SIGABRT|SIGILL|Problematic frame)' "$job/output.log" 2>/dev/null \
    | grep -v '^--$' | head -n 8 | cut -c1-200)
  if [[ -n $crashed ]]; then
    sed "s/^/    CRASHED ($image) /" <<<"$crashed"
    named=1
  fi
  mapfile -t reports < <(grep -lE '<(failure|error)[ >]' "$job"/reports/TEST-*.xml 2>/dev/null)
  for report in "${reports[@]}"; do
    failed_tests "($image) " "$report"
    failure_context "$job/output.log" "$report" | head -n 40
    named=1
  done
done
((named)) || echo "    (no test report names a failure: the failure is in a phase's own output above)"
exit 0
