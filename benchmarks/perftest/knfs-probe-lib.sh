# Sourced by knfs-cpu-probe.sh, knfs-wakeups.sh, knfs-profile.sh, knfs-timeline.sh and compare-in-guest.sh (in the
# guest): probe LABEL MNT OP times one dd of $mib MiB in blocks of $bs against the mount, with the guest's CPU split
# over it and, for a Java server ($java_nfs), its threads'; start_servers JAR starts knfsd and the Java server
# ($java_nfs); warm_up MNT passes traffic through a mount before it is measured; warm_until_quiet warms a Java server
# until its JIT is quiet; knfs_dd turns dd's last line into MB/s (also for rpc-bisect.sh's guest script).
ticks=$(getconf CLK_TCK)
cpu_now() { awk '/^cpu / { print $2 + $3, $4, $8, $5, $6 + $7, $9 }' /proc/stat; } # user+nice system softirq idle iowait+irq steal
threads_now() { # tid comm cputicks for every thread of $1
  local t
  for t in /proc/"$1"/task/*; do
    awk -v tid="${t##*/}" '{ sub(/^[0-9]+ \(/, ""); n = index($0, ") "); comm = substr($0, 1, n - 1)
      split(substr($0, n + 2), f, " "); print tid, comm, f[12] + f[13] }' "$t/stat" 2>/dev/null
  done
}
knfs_dd() { # prints MB/s of a dd line "N bytes (...) copied, S s, ..." (nothing for a dd that failed)
  awk '/copied/ { match($0, /copied, [0-9.]+ s/); s = substr($0, RSTART + 8, RLENGTH - 10)
                  printf "%.3f", ($1 / 1048576) / s }'
}
probe() { # label mnt op
  local label=$1 mnt=$2 op=$3 c0 c1 t0 t1 pid
  pid=$java_nfs # (not pgrep -f: this script's own command line names the jar)
  c0=$(cpu_now); [[ -n $pid ]] && threads_now "$pid" >/tmp/threads0
  t0=$(date +%s.%N)
  if [[ $op == write ]]; then
    dd if=/dev/zero of="$mnt/probe" bs="$bs" count=$((mib * 1048576 / bs)) oflag=direct 2>/dev/null
  else
    dd if="$mnt/probe" of=/dev/null bs="$bs" iflag=direct 2>/dev/null
  fi
  t1=$(date +%s.%N)
  c1=$(cpu_now)
  awk -v label="$label" -v op="$op" -v t0="$t0" -v t1="$t1" -v a="$c0" -v b="$c1" -v hz="$ticks" -v mib="$mib" -v bs="$bs" 'BEGIN {
    split(a, x, " "); split(b, y, " "); el = t1 - t0
    printf "probe %s %s bs=%d: %.1f s, %.2f MB/s, %.1f ms per call; guest CPU over it: user %.1f s, system %.1f s, softirq %.1f s, idle %.1f s, iowait+irq %.1f s, steal %.1f s (of %.1f s on 2 vCPUs)\n",
      label, op, bs, el, mib / el, 1000 * el / (mib * 1048576 / bs), (y[1] - x[1]) / hz, (y[2] - x[2]) / hz, (y[3] - x[3]) / hz, (y[4] - x[4]) / hz,
      (y[5] - x[5]) / hz, (y[6] - x[6]) / hz, 2 * el }'
  if [[ -n $pid && $label == java* ]]; then
    threads_now "$pid" >/tmp/threads1
    # CPU seconds per thread name (several threads may share one), the busiest first
    awk -v hz="$ticks" 'NR == FNR { before[$1] = $NF; next }
      { d = $NF - before[$1]; if (d > 0) { c = $0; sub(/^[0-9]+ /, "", c); sub(/ [0-9]+$/, "", c); sum[c] += d } }
      END { for (c in sum) printf "%.2f %s\n", sum[c] / hz, c }' /tmp/threads0 /tmp/threads1 | sort -rn >/tmp/threads.d
    echo "probe   Java server threads: $(awk '{ t += $1 } END { printf "%.1f", t }' /tmp/threads.d) s CPU in all; busiest: $(head -6 /tmp/threads.d | awk '{ c = $0; sub(/^[^ ]+ /, "", c); printf "%s %s s; ", c, $1 }')"
  fi
}

# start_servers JAR: knfsd (the test resources' script) and the Java NFS server of JAR (pid in java_nfs), exporting
# /srv/panama-java-probe on rxe's and siw's addresses, port 32050 (MOUNT 32048).
# PROBE_JAVA_OPTS: more options for the Java server, e.g. a JFR recording:
#   PROBE_JAVA_OPTS=-XX:StartFlightRecording=filename=/work/main/target/probe.jfr,settings=profile
start_servers() {
  modprobe nfsv3; modprobe rpcrdma
  nfs/src/test/resources/org/panamardma/nfs/start-nfs-server.sh >/tmp/nfs-start.log 2>&1 || { tail /tmp/nfs-start.log; exit 1; }
  rm -rf /srv/panama-java-probe /run/panama-java-probe-state; mkdir -p /srv/panama-java-probe; chmod 0777 /srv/panama-java-probe
  # no_root_squash as knfsd's export (start-nfs-server.sh): both serve the dd's root alike, neither switches to
  # another user's credentials per call; PROBE_SERVER_OPTS adds options (e.g. --all-squash to measure the switch)
  # shellcheck disable=SC2086 # the options are words
  java -XX:+UseSerialGC ${PROBE_JAVA_OPTS:-} -jar "$1" --export /srv/panama-java-probe --state /run/panama-java-probe-state \
    --no-rpcbind --tcp 0.0.0.0:32049 --mount 0.0.0.0:32048 --rdma 10.77.0.2:32050 --rdma 10.77.1.2:32050 \
    --no-root-squash ${PROBE_SERVER_OPTS:-} >/tmp/java-nfs-probe.log 2>&1 &
  java_nfs=$!
  for _ in $(seq 1 240); do grep -q 'nfs-server: ready' /tmp/java-nfs-probe.log && break; sleep 0.5; done
}

# warm_up MNT: PROBE_WARM_PASSES (default $1 of the caller's choosing, else 1) passes of PROBE_WARM_COUNT (32) blocks
# of $bs written and read back: the Java server's JIT compiles its paths there, as a long-running server's would
# have (under TCG it needs tens of megabytes of traffic to settle)
warm_up() {
  local mnt=$1 passes=${PROBE_WARM_PASSES:-${2:-1}}
  for _ in $(seq 1 "$passes"); do
    dd if=/dev/zero of="$mnt/warm" bs="$bs" count="${PROBE_WARM_COUNT:-32}" oflag=direct 2>/dev/null
    dd if="$mnt/warm" of=/dev/null bs="$bs" iflag=direct 2>/dev/null
  done
  rm -f "$mnt/warm"
}

# jit_compilations LOG: the compilations a Java server started with -Xlog:jit+compilation=debug:file=LOG logged so far
jit_compilations() { local n; n=$(grep -c 'jit,compilation' "$1" 2>/dev/null); echo "${n:-0}"; }

# jit_ticks PID: "COMPILER TOTAL", the CPU ticks of the JVM PID's compiler threads ("C1/C2 CompilerThre...") and of the
# whole process so far (on 2 vCPUs HotSpot keeps one of each: their ticks do not vanish with an exiting thread)
jit_ticks() {
  local compiler
  compiler=$(for t in /proc/"$1"/task/*; do cat "$t/stat" 2>/dev/null; done |
    awk '{ sub(/^[0-9]+ \(/, ""); n = index($0, ") "); comm = substr($0, 1, n - 1); split(substr($0, n + 2), f, " ")
           if (comm ~ /^C[12] CompilerThre/) t += f[12] + f[13] } END { print t + 0 }')
  echo "$compiler $(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' /proc/"$1"/stat 2>/dev/null || echo 0)"
}

# thread_ms PID PATTERN: the CPU milliseconds the threads of PID whose names match the awk PATTERN have used so far
# (live threads only). "^C[12] CompilerThre": the JIT; "^ForkJoinPool": the virtual threads' carriers. A timed run
# that took the compiler's CPU shares the guest's two vCPUs with it: under TCG a C2 compilation takes 0.1-0.7 s, and
# beside carriers spinning for work it leaves each kernel step of a call (a journal commit's, a wake-up) waiting for
# the next scheduler tick (issue 26: WRITE's slow mode).
thread_ms() {
  for t in /proc/"$1"/task/*; do cat "$t/stat" 2>/dev/null; done |
    awk -v p="$2" -v hz="$ticks" '{ sub(/^[0-9]+ \(/, ""); n = index($0, ") "); comm = substr($0, 1, n - 1)
      split(substr($0, n + 2), f, " "); if (comm ~ p) t += f[12] + f[13] } END { printf "%d\n", t * 1000 / hz }'
}

# warm_until_quiet JIT_LOG COMMAND...: runs COMMAND (one warm-up pass through the Java server, pid $java_nfs) until the
# server's JIT is quiet over the last PERF_KNFS_WARM_WINDOW passes (3; at least 3): at most PERF_KNFS_JIT_QUIET (3)
# compilations in all, or its compiler threads at most PERF_KNFS_JIT_CPU_PCT (2) percent of the server's CPU time over
# them; at most PERF_KNFS_WARM_MAX (150) passes. One quiet pass is not enough: C2's thresholds are crossed in bursts,
# thousands of calls apart; a window as long as the timed rounds that follow is what makes them quiet too (with 3
# passes of 16 MiB the timed rounds of 2 x 64 MiB saw 4-32 compilations, 2026-11-28), and the compiler's time counts,
# not only the compilations (a few big C2 compilations took a third of the Java client's CPU in its timed READs).
# Prints "N passes, the last W with C compilations, the compiler X s of the server's Y s CPU", and " (NOT quiet ...)"
# if the limit came first. Under TCG the server needs thousands of calls to settle, and a figure taken before
# measures its JIT (2026-11-27: 0.4-0.5x the settled speed after 320 calls).
warm_until_quiet() {
  local log=$1 passes=0 compiled=0 quiet=${PERF_KNFS_JIT_QUIET:-3} pct=${PERF_KNFS_JIT_CPU_PCT:-2} most=${PERF_KNFS_WARM_MAX:-150}
  local window=${PERF_KNFS_WARM_WINDOW:-3} before ticks0 ticks1 counts=() jit=() cpu=() jit_sum=0 cpu_sum=0 i is_quiet=0
  ((window < 3)) && window=3
  shift
  while ((passes < most)); do
    before=$(jit_compilations "$log"); ticks0=$(jit_ticks "${java_nfs:-0}")
    "$@" >/dev/null
    ticks1=$(jit_ticks "${java_nfs:-0}")
    passes=$((passes + 1))
    counts+=($(($(jit_compilations "$log") - before)))
    jit+=($((${ticks1% *} - ${ticks0% *}))); cpu+=($((${ticks1#* } - ${ticks0#* })))
    if ((${#counts[@]} > window)); then counts=("${counts[@]:1}"); jit=("${jit[@]:1}"); cpu=("${cpu[@]:1}"); fi
    ((passes < window)) && continue
    compiled=0 jit_sum=0 cpu_sum=0
    for i in "${!counts[@]}"; do
      compiled=$((compiled + counts[i])); jit_sum=$((jit_sum + jit[i])); cpu_sum=$((cpu_sum + cpu[i]))
    done
    is_quiet=0
    ((compiled <= quiet || (cpu_sum > 0 && 100 * jit_sum <= pct * cpu_sum))) && is_quiet=1
    ((is_quiet)) && break
  done
  echo "$passes passes, the last $window with $compiled compilations, the compiler $(awk -v t="$jit_sum" -v hz="$ticks" 'BEGIN { printf "%.2f", t / hz }') s of the server's $(awk -v t="$cpu_sum" -v hz="$ticks" 'BEGIN { printf "%.2f", t / hz }') s CPU$( ((is_quiet)) || echo ' (NOT quiet: the figures include JIT time)')"
}
