#!/usr/bin/env bash
# Runs inside the testbed VM (see ../perftest-compare.sh): perftest's C tools and rdma-tool's perf on the same
# devices (client rxe0 -> server rxe1 by default), same sizes, same iteration counts, one after the other, and
# writes one CSV of both: impl,test,size,iters,p50_us,p99_us,avg_us,bw_MBps.
#
# perftest's definitions (t_typical = median of the iters-1 post-to-post gaps, halved for the ping-pong tests; 99%
# percentile; BW average in MB/s of 2^20 bytes) are the ones rdma-tool perf implements, so the columns compare.
set -uo pipefail

jar=$1 out=$2 bench_jar=${3:-}
server_ip=${PERF_SERVER_IP:-10.77.0.2}
server_dev=${PERF_SERVER_DEV:-rxe1}
client_dev=${PERF_CLIENT_DEV:-rxe0}
iters=${PERF_ITERS:-1000}
bw_iters=${PERF_BW_ITERS:-5000}
# unmeasured iterations before rdma-tool's measured ones (its JIT's warm-up; perftest's C loop needs none)
warmup=${PERF_WARMUP:-}
sizes=${PERF_SIZES:-8 64 512 4096 65536}
tests=${PERF_TESTS:-send_lat write_lat read_lat atomic_lat write_bw}
[[ $tests == none ]] && tests=""
java_opts=${PERF_JAVA_OPTS:-}
c_port=18600

say() { echo "[compare] $*" >&2; }

# Progress: every measurement is a step, announced with its number, the time so far and an estimate of the time left
# (the steps so far, averaged: the kernel NFS part and the 64 KiB sizes take longer than the rest).
steps_total=0 steps_done=0 run_start=$SECONDS
[[ ${PERF_KNFS:-1} == 1 ]] && steps_total=$((steps_total + 1))
[[ -n $bench_jar && ${PERF_RPC:-1} == 1 ]] && steps_total=$((steps_total + $(wc -w <<<"${PERF_RPC_TRANSPORTS:-tcp rdma}")))
[[ -n $bench_jar && ${PERF_RPC:-1} == 1 && ${PERF_RPC_SIW:-0} == 1 ]] && steps_total=$((steps_total + 1))
[[ -n $bench_jar && ${PERF_BRIDGE:-1} == 1 ]] && steps_total=$((steps_total + 1))
for t in $tests; do
  if [[ $t == atomic_lat ]]; then steps_total=$((steps_total + 2)); else steps_total=$((steps_total + 2 * $(wc -w <<<"$sizes"))); fi
done
step() {
  steps_done=$((steps_done + 1))
  local elapsed=$((SECONDS - run_start)) left=""
  ((steps_done > 1)) && left=", about $((elapsed * (steps_total - steps_done + 1) / (steps_done - 1))) s left"
  echo "[compare $steps_done/$steps_total, ${elapsed} s$left] $*" >&2
}
echo "impl,test,size,iters,p50_us,p99_us,avg_us,bw_MBps" >"$out"

# perftest: start the server, then the client (retrying while the server is not yet listening); parse the
# client's result line. Latency lines: #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%.
# Bandwidth lines: #bytes #iterations BW_peak BW_average MsgRate.
run_perftest() {
  local test=$1 size=$2 n=$3 tool args line attempt
  case $test in
    send_lat) tool=ib_send_lat ;; write_lat) tool=ib_write_lat ;; read_lat) tool=ib_read_lat ;;
    atomic_lat) tool=ib_atomic_lat ;; write_bw) tool=ib_write_bw ;;
  esac
  args=(-R -F -n "$n" -p $((c_port++)))
  [[ $test == atomic_lat ]] && args+=(-A FETCH_AND_ADD) || args+=(-s "$size")
  # perftest sends small messages inline by default; rdma-tool perf does not: -I 0 makes them alike
  [[ $test == send_lat || $test == write_lat || $test == write_bw ]] && args+=(-I 0)
  timeout 600 "$tool" -d "$server_dev" "${args[@]}" >/tmp/perftest-server.log 2>&1 &
  local server=$!
  local client_rc=1
  for attempt in 1 2 3 4 5 6 7 8 9 10; do
    sleep 1
    timeout 600 "$tool" -d "$client_dev" "${args[@]}" "$server_ip" >/tmp/perftest-client.log 2>&1
    client_rc=$?
    ((client_rc == 0)) && break
    # not yet listening: refused, or (rdma_cm) REJECTED; retried
    grep -q -i 'refused\|Couldn.t connect\|Unable to\|REJECTED' /tmp/perftest-client.log || break
  done
  # a client that failed otherwise (perftest's ib_send_lat client once died of SIGSEGV) leaves its server waiting
  # for a peer until its timeout: end it now
  ((client_rc == 0)) || { say "perftest $tool client exit $client_rc"; kill "$server" 2>/dev/null; }
  wait "$server" 2>/dev/null
  line=$(awk -v s="$([[ $test == atomic_lat ]] && echo 8 || echo "$size")" '$1 == s && NF >= 5 { l = $0 } END { print l }' /tmp/perftest-client.log)
  if [[ -z $line ]]; then
    say "perftest $tool size $size produced no result:"; tail -n 15 /tmp/perftest-client.log >&2
    return 1
  fi
  if [[ $test == write_bw ]]; then
    awk -v t="$test" '{ printf "C,%s,%s,%s,,,,%s\n", t, $1, $2, $4 }' <<<"$line" >>"$out"
  else
    awk -v t="$test" '{ printf "C,%s,%s,%s,%s,%s,%s,\n", t, $1, $2, $5, $8, $6 }' <<<"$line" >>"$out"
  fi
}

# rdma-tool perf: one server for the whole run, one client invocation per test and size (--csv lines).
# (none without perftest rows: PERF_TESTS=none)
if [[ -n $tests ]]; then
  java $java_opts -jar "$jar" perf --server --bind "$server_ip" --port 18515 >/tmp/rdma-tool-server.log 2>&1 &
  java_server=$!
  trap 'kill $java_server 2>/dev/null' EXIT
fi
run_java() {
  local test=$1 size=$2 n=$3 attempt
  for attempt in 1 2 3 4 5 6 7 8 9 10; do
    if timeout 900 java $java_opts -jar "$jar" perf "$server_ip" --port 18515 --test "$test" --size "$size" \
         --iters "$n" --warmup "${warmup:-$n}" --csv --timeout 300 >/tmp/rdma-tool-client.log 2>&1; then
      grep -v '^test,' /tmp/rdma-tool-client.log | grep "^$test," | sed 's/^/Java,/' >>"$out"
      return 0
    fi
    grep -q -i 'refused\|REJECTED' /tmp/rdma-tool-client.log || break
    sleep 2
  done
  say "rdma-tool perf $test size $size failed:"; tail -n 15 /tmp/rdma-tool-client.log >&2
  return 1
}

# RPC: NFSv3 against the guest's knfsd, over TCP and over RPC-over-RDMA, same server, same client code
# (benchmarks' NfsRpcBench): NULL round trips, then a file of PERF_RPC_FILE_MIB MiB (64, as the kernel client's dd)
# written and read in calls of 256 KiB, PERF_RPC_IO_ITERS (2) timed passes, with each number of calls in flight of
# PERF_RPC_INFLIGHT ("1 4"; the kernel client's rows to compare with: bs=256k for 1, bs=1M for 4). The floor is
# perftest's send latency.
# run_rpc TRANSPORT [IP [ROW_SUFFIX]]: another IP (siw's 10.77.1.2) names its rows RPC-RDMA<ROW_SUFFIX> (RPC-RDMA-SIW)
# and leaves out the busy-polling rows.
# The kernel client beside the Java client (rows KNFS-ANCHOR, RDMA only): over the same device, against the same knfsd,
# in the same phase of the boot, a dd pass (write then read, direct I/O, PERF_RPC_FILE_MIB) right before and right
# after each NfsRpcBench run, at 256 KiB blocks for one call in flight and 1 MiB (4 calls of 256 KiB) for 4; the row
# is the mean of the two passes. The Java client's ratios (issue 26's (c) client rows and write-guard's (e)) pair
# with these rows: the KNFS-KNFSD rows were measured in another phase, with the Java NFS server running beside
# knfsd, and the two clients' ratio moved from 0.6 to 1.1 between the two pairings (benchmarks/README.md, (e)).
rpc_anchor_mount=/mnt/rpc-anchor
rpc_anchor() { # BS: prints "write MB/s" and "read MB/s" of one kernel client pass at that block size
  local bs=$1 count=$(( ${PERF_RPC_FILE_MIB:-64} * 1048576 / $1 ))
  echo "write $(dd if=/dev/zero of="$rpc_anchor_mount/anchor" bs="$bs" count="$count" oflag=direct 2>&1 | knfs_dd)"
  echo "read $(dd if="$rpc_anchor_mount/anchor" of=/dev/null bs="$bs" iflag=direct 2>&1 | knfs_dd)"
  rm -f "$rpc_anchor_mount/anchor"
}
rpc_anchor_rows() { # DEVICE BS BEFORE AFTER: the mean of the two passes as KNFS-ANCHOR rows (none if a pass failed)
  local device=$1 bs=$2 op
  for op in write read; do
    awk -v op="$op" -v dev="$device" -v bs="$bs" -v n="$(( ${PERF_RPC_FILE_MIB:-64} * 1048576 / bs ))" \
      '$1 == op && $2 > 0 { s += $2; c++ } END { if (c == 2) printf "KNFS-ANCHOR,%s_%s,%d,%d,,,,%.3f\n", op, dev, bs, n, s / c }' \
      <(echo "$3") <(echo "$4")
  done
}
rpc_bs() { echo $(( $1 > 1 ? 1048576 : 262144 )); } # QD: the kernel client's block size beside that setting
rpc_between() { # DONE_QD NEXT_QD (NfsRpcBench --between): the kernel client's pass after one setting, before the next
  rpc_anchor "$(rpc_bs "$1")" >"/tmp/rpc-anchor-after-$1"
  rpc_anchor "$(rpc_bs "$2")" >"/tmp/rpc-anchor-before-$2"
}
run_rpc() {
  local transport=$1 ip=${2:-$server_ip} suffix=${3:-} qd qds anchor=0 device=rxe between=() rc=0
  [[ $ip == 10.77.1.2 ]] && device=siw
  # shellcheck disable=SC2206 # a list of words
  qds=(${PERF_RPC_INFLIGHT:-1 4})
  if [[ $transport == rdma ]]; then
    mkdir -p "$rpc_anchor_mount"
    if knfs_mount knfsd "$ip" "$rpc_anchor_mount"; then
      anchor=1; rpc_anchor 262144 >/dev/null # the kernel client's first pass, untimed
    else
      say "RPC: the kernel client's mount of knfsd over $device failed: no KNFS-ANCHOR rows"
    fi
  fi
  rm -f /tmp/rpc-anchor-before-* /tmp/rpc-anchor-after-*
  if ((anchor)); then
    rpc_anchor "$(rpc_bs "${qds[0]}")" >"/tmp/rpc-anchor-before-${qds[0]}"
    # the JVM runs the passes between its settings (bash -c): the functions and what they read go in its environment
    export -f rpc_between rpc_anchor rpc_bs knfs_dd; export rpc_anchor_mount PERF_RPC_FILE_MIB
    between=(--between 'rpc_between "$@"')
  fi
  # One JVM for every setting, in order, as a long-running client serves both loads (NfsRpcBench's --in-flight list):
  # with a JVM of its own, 4 in flight never got quiet under the emulation (the C2 compiler still working through the
  # client's code after 150 passes of warm-up)
  # shellcheck disable=SC2086 # the options are words
  timeout 3600 java --enable-native-access=ALL-UNNAMED $java_opts -cp "$bench_jar" org.panamardma.benchmarks.NfsRpcBench --transport "$transport" \
    --server "$ip" --iters "$iters" --warmup "${warmup:-$iters}" --io-iters "${PERF_RPC_IO_ITERS:-2}" \
    --file-size "$(( ${PERF_RPC_FILE_MIB:-64} * 1048576 ))" --in-flight "$(IFS=,; echo "${qds[*]}")" "${between[@]}" \
    >/tmp/nfs-bench.log 2>/tmp/nfs-bench.err || rc=$?
  # the rows of the settings it finished, even if a later one failed
  grep '^RPC-' /tmp/nfs-bench.log | sed "s/^\(RPC-[A-Z]*\),/\1$suffix,/" >>"$out"
  # how long its warm-ups took and what its JIT compiled in the timed passes, beside the figures they qualify
  grep -E 'warm-up:|compilations during| compiled: ' /tmp/nfs-bench.err | sed "s/; CPU: .*//; s/^/[compare] NfsRpcBench $device: /" >&2
  if ((rc)); then
    say "NfsRpcBench over $transport to $ip (${qds[*]} in flight) failed:"; tail -n 20 /tmp/nfs-bench.err >&2
    ((anchor)) && umount "$rpc_anchor_mount"
    return 1
  fi
  if ((anchor)); then
    qd=${qds[${#qds[@]} - 1]}
    rpc_anchor "$(rpc_bs "$qd")" >"/tmp/rpc-anchor-after-$qd"
    for qd in "${qds[@]}"; do
      rpc_anchor_rows "$device" "$(rpc_bs "$qd")" "$(cat "/tmp/rpc-anchor-before-$qd" 2>/dev/null)" \
        "$(cat "/tmp/rpc-anchor-after-$qd" 2>/dev/null)" >>"$out"
    done
  fi
  ((anchor)) && umount "$rpc_anchor_mount"
  [[ -n $suffix || ${PERF_RPC_BUSY:-1} != 1 ]] && return 0
  # the RDMA client's latency mode (RpcRdmaClientOptions.busyPoll, 1 ms): NULL round trips only, rows RPC-RDMA-BUSY
  if [[ $transport == rdma ]] && ! timeout 900 java --enable-native-access=ALL-UNNAMED $java_opts -cp "$bench_jar" \
       org.panamardma.benchmarks.NfsRpcBench --transport rdma --busy-poll 1000 --server "$server_ip" --iters "$iters" \
       --warmup "${warmup:-$iters}" --io-iters 0 >/tmp/nfs-bench.log 2>/tmp/nfs-bench.err; then
    say "NfsRpcBench over rdma, busy polling, failed:"; tail -n 20 /tmp/nfs-bench.err >&2
    return 1
  fi
  [[ $transport == rdma ]] && grep '^RPC-' /tmp/nfs-bench.log >>"$out"
  return 0
}

# The oncrpc4j bridge: one oncrpc4j service instance (benchmarks' BlobService) on oncrpc4j's own TCP server and on
# the bridge over RPC-over-RDMA, in one JVM (BridgeBench), both on the server device's address: NULL round trips
# (PERF_ITERS, warm-up PERF_WARMUP) and GET/PUT of PERF_BRIDGE_SIZE bytes (1 MiB) x PERF_BRIDGE_IO_ITERS (32), one
# call at a time, by oncrpc4j's own TCP client, this project's TCP client and its RDMA client. Rows BRIDGE-*.
run_bridge() {
  local result=0
  timeout 1200 java --enable-native-access=ALL-UNNAMED $java_opts -cp "$bench_jar" org.panamardma.benchmarks.BridgeBench \
    --server "$server_ip" --iters "$iters" --warmup "${warmup:-$iters}" --io-iters "${PERF_BRIDGE_IO_ITERS:-32}" \
    --io-size "${PERF_BRIDGE_SIZE:-1048576}" >/tmp/bridge-bench.log 2>/tmp/bridge-bench.err || result=1
  # what was measured before a failure still counts; the log says which devices and paths the calls took
  grep '^BRIDGE-' /tmp/bridge-bench.log | tee -a "$out" | sed 's/^/[compare] bridge: /' >&2
  if ((result)); then
    say "BridgeBench failed:"; tail -n 30 /tmp/bridge-bench.err >&2
  else
    grep -E 'INFO|WARN|ERROR' /tmp/bridge-bench.err | sed 's/^/[compare] bridge: /' >&2
  fi
  return $result
}

# The kernel's NFS client (the guest's xprtrdma) against two servers on the same device, same mount options, same
# boot: the Java server (nfs-server.jar) and knfsd. dd with direct I/O, a file of PERF_KNFS_MIB MiB (64) written
# then read in blocks of 256 KiB and 1 MiB; MB/s of 2^20 bytes. Rows KNFS-JAVA / KNFS-KNFSD,<op>_<device>,<bs>,
# <count>,<round> (PERF_KNFS_ROUNDS rounds, 2). Before them, per device: knfsd gets one untimed pass of
# PERF_KNFS_WARM_MIB (16); the Java server gets such passes until its JIT is quiet over as many passes as make the
# timed rounds' traffic (PERF_KNFS_WARM_WINDOW, 8 for 2 x 64 MiB): at most PERF_KNFS_JIT_QUIET (3) compilations in all
# (its -Xlog:jit+compilation) or its compiler threads at most PERF_KNFS_JIT_CPU_PCT (2, an integer) percent of its
# CPU time, up to PERF_KNFS_WARM_MAX (150) passes (knfs-probe-lib.sh's warm_until_quiet).
# Each server stays mounted from its warm-up to the last round. PERF_KNFS_RUNS (1) runs of those rounds follow the
# one warm-up, the rows of run N going to the file printf PERF_KNFS_RUN_OUT N makes (default: the output file). The
# figures are a long-running server's: under TCG the JIT takes thousands of calls to settle (2026-11-28: 115 passes
# of 16 MiB on rxe, 39 on siw, 25 min of the boot). The old warm-up, one pass of 32 MiB (320 calls), left a server that
# still compiled about 70 methods in its next 128 calls and ran at 0.4-0.5x the settled one's speed (2026-11-27:
# 256 KiB WRITE / READ 45 / 36 ms a call after 512 calls, 22 / 14 ms after 6,000, knfsd 14-18 / 9.5).
# Each timed round logs the compilations it saw, so that a figure taken while the JIT was busy shows.
knfs_mount() { # server: java|knfsd; device: rxe|siw; the server address
  local server=$1 ip=$2 mnt=$3 port mountport
  if [[ $server == java ]]; then port=32050 mountport=32048; else port=20049 mountport=50892; fi
  mkdir -p "$mnt"
  timeout 120 mount -t nfs -o "vers=3,proto=rdma,port=$port,mountport=$mountport,mountproto=tcp,nolock" \
    "$ip:$( [[ $server == java ]] && echo /srv/panama-java-bench || echo /srv/panama-nfs)" "$mnt"
}
knfs_pass() { # mnt MiB: dd write then read at 256 KiB and 1 MiB; prints "op bs count MB/s" lines
  local mnt=$1 mib=$2 bs count
  for bs in 262144 1048576; do
    count=$(( mib * 1048576 / bs ))
    echo "write $bs $count $(dd if=/dev/zero of="$mnt/dd-$bs" bs="$bs" count="$count" oflag=direct 2>&1 | knfs_dd)"
    echo "read $bs $count $(dd if="$mnt/dd-$bs" of=/dev/null bs="$bs" iflag=direct 2>&1 | knfs_dd)"
    rm -f "$mnt/dd-$bs"
  done
}
# shellcheck source=knfs-probe-lib.sh
source "$(dirname "$0")/knfs-probe-lib.sh" # jit_compilations, warm_until_quiet, knfs_dd
run_knfs() {
  local mib=${PERF_KNFS_MIB:-64} java_jar=${PERF_NFS_SERVER_JAR:-nfs/target/nfs-server.jar}
  [[ -f $java_jar ]] || { say "knfs: $java_jar is missing (./mvnw -pl nfs -am package)"; return 1; }
  modprobe nfsv3; modprobe rpcrdma
  nfs/src/test/resources/org/panamardma/nfs/start-nfs-server.sh >/tmp/nfs-start.log 2>&1 \
    || { say "knfsd did not start:"; tail -n 20 /tmp/nfs-start.log >&2; return 1; }
  rm -rf /srv/panama-java-bench /run/panama-java-bench-state; mkdir -p /srv/panama-java-bench
  chmod 0777 /srv/panama-java-bench
  local jit_log=/tmp/java-nfs-bench-jit.log
  rm -f "$jit_log"
  # The export options knfsd's export has (start-nfs-server.sh: no_root_squash), so that both serve the dd's root
  # alike; with root squashed, the Java server's caller thread would switch to nobody's credentials and back each
  # call, which knfsd, serving root as root, does not (benchmarks/results/root-squash-2026-11-29.txt).
  # shellcheck disable=SC2086 # the options are words
  java $java_opts -XX:+UseSerialGC "-Xlog:jit+compilation=debug:file=$jit_log" -jar "$java_jar" --export /srv/panama-java-bench --state /run/panama-java-bench-state \
    --no-rpcbind --tcp 0.0.0.0:32049 --mount 0.0.0.0:32048 --rdma 10.77.0.2:32050 --rdma 10.77.1.2:32050 \
    --no-root-squash >/tmp/java-nfs-bench.log 2>&1 &
  local java_nfs=$! i
  for i in $(seq 1 240); do grep -q 'nfs-server: ready' /tmp/java-nfs-bench.log 2>/dev/null && break; sleep 0.5; done
  grep -q 'nfs-server: ready' /tmp/java-nfs-bench.log || { say "the Java NFS server did not start:"; tail -n 20 /tmp/java-nfs-bench.log >&2; kill $java_nfs; return 1; }
  local result=0 device ip server bs label line round before mnt rounds=${PERF_KNFS_ROUNDS:-2} runs=${PERF_KNFS_RUNS:-1} run
  local in_run rows
  for device in rxe siw; do
    [[ $device == rxe ]] && ip=10.77.0.2 || ip=10.77.1.2
    # Each server is mounted once per device (two mounts side by side, one transport each) and stays mounted through
    # its warm-up and the timed rounds: the figures are a server's steady state, not its first calls on a new
    # connection (a mount per round made the Java server compile 50-120 methods again in each timed round).
    # An untimed pass per server first: knfsd's caches and the device's queues warm; the Java server is warmed until
    # its JIT is quiet, as a long-running server's would be. Then the timed rounds in the order knfsd java, java
    # knfsd, ... (A B B A): a load swing on the shared host meets both sides, and a steady drift cancels in the mean
    # of the rounds' ratios (figures-table.sh pairs the sides round by round)
    local mounted=()
    for server in knfsd java; do
      if knfs_mount "$server" "$ip" "/mnt/knfs-bench-$server"; then mounted+=("$server")
      else say "knfs: mount of $server over $device failed"; result=1; fi
    done
    [[ " ${mounted[*]} " == *" knfsd "* ]] && knfs_pass /mnt/knfs-bench-knfsd "${PERF_KNFS_WARM_MIB:-16}" >/dev/null
    if [[ " ${mounted[*]} " == *" java "* ]]; then
      # quiet over as much traffic as the timed rounds then move (warm_until_quiet's window)
      local warm_mib=${PERF_KNFS_WARM_MIB:-16}
      say "knfs java $device: warmed by passes of $warm_mib MiB: $(PERF_KNFS_WARM_WINDOW=${PERF_KNFS_WARM_WINDOW:-$(((rounds * mib + warm_mib - 1) / warm_mib))} \
        warm_until_quiet "$jit_log" knfs_pass /mnt/knfs-bench-java "$warm_mib")"
    fi
    # PERF_KNFS_RUNS runs of the rounds after the one warm-up (a run's rows go to PERF_KNFS_RUN_OUT's file): the
    # server is a long-running one, warmed once per boot, not once per run (its warm-up is most of this part's time)
    for round in $(seq 1 $((runs * rounds))); do
      local order=(knfsd java); ((round % 2 == 0)) && order=(java knfsd)
      run=$(((round - 1) / rounds + 1)) in_run=$(((round - 1) % rounds + 1)) rows=$out
      # shellcheck disable=SC2059 # the pattern is the caller's: one %d, the run
      [[ -n ${PERF_KNFS_RUN_OUT:-} ]] && rows=$(printf "$PERF_KNFS_RUN_OUT" "$run")
      for server in "${order[@]}"; do
        [[ " ${mounted[*]} " == *" $server "* ]] || continue
        [[ $server == java ]] && label=KNFS-JAVA || label=KNFS-KNFSD
        mnt=/mnt/knfs-bench-$server
        before=$(jit_compilations "$jit_log")
        [[ $server == java ]] && jit0=$(thread_ms "$java_nfs" '^C[12] CompilerThre')
        while read -r op bs count line; do
          echo "$label,${op}_$device,$bs,$count,$in_run,,,$line" >>"$rows"
          say "knfs $server $device $op bs $bs run $run round $in_run: $line MB/s"
        done < <(knfs_pass "$mnt" "$mib")
        [[ $server == java ]] && say "knfs java $device run $run round $in_run: $(($(jit_compilations "$jit_log") - before)) compilations during the round, the compiler $(($(thread_ms "$java_nfs" '^C[12] CompilerThre') - jit0)) ms of CPU"
      done
    done
    for server in "${mounted[@]}"; do umount "/mnt/knfs-bench-$server" || result=1; done
  done
  kill $java_nfs; wait $java_nfs 2>/dev/null
  grep -E ' (WARN|ERROR) ' /tmp/java-nfs-bench.log >&2 && { say "the Java NFS server logged problems"; result=1; }
  nfs/src/test/resources/org/panamardma/nfs/start-nfs-server.sh stop >/dev/null 2>&1
  return $result
}

rc=0
if [[ ${PERF_KNFS:-1} == 1 ]]; then
  step "the kernel NFS client: the Java NFS server vs knfsd, dd direct I/O of ${PERF_KNFS_MIB:-64} MiB on rxe and siw"
  run_knfs || rc=1
fi
if [[ -n $bench_jar && ${PERF_RPC:-1} == 1 ]]; then
  say "RPC: starting knfsd"
  if nfs/src/test/resources/org/panamardma/nfs/start-nfs-server.sh >/tmp/nfs-start.log 2>&1; then
    for transport in ${PERF_RPC_TRANSPORTS:-tcp rdma}; do
      step "RPC over $transport: NULL x $iters, WRITE/READ of ${PERF_RPC_FILE_MIB:-64} MiB x ${PERF_RPC_IO_ITERS:-2}, in flight ${PERF_RPC_INFLIGHT:-1 4}"
      run_rpc "$transport" || rc=1
    done
    if [[ ${PERF_RPC_SIW:-0} == 1 ]]; then
      step "RPC over rdma on siw (10.77.1.2): WRITE/READ of ${PERF_RPC_FILE_MIB:-64} MiB x ${PERF_RPC_IO_ITERS:-2}, in flight ${PERF_RPC_INFLIGHT:-1 4}"
      run_rpc rdma 10.77.1.2 -SIW || rc=1
    fi
    nfs/src/test/resources/org/panamardma/nfs/start-nfs-server.sh stop >/dev/null 2>&1
  else
    say "knfsd did not start:"; tail -n 20 /tmp/nfs-start.log >&2; rc=1
  fi
fi
if [[ -n $bench_jar && ${PERF_BRIDGE:-1} == 1 ]]; then
  step "oncrpc4j bridge: oncrpc4j TCP vs RDMA, NULL x $iters, GET/PUT of ${PERF_BRIDGE_SIZE:-1048576} B x ${PERF_BRIDGE_IO_ITERS:-32}"
  run_bridge || rc=1
fi
for test in $tests; do
  n=$iters; [[ $test == write_bw ]] && n=$bw_iters
  test_sizes=$sizes; [[ $test == atomic_lat ]] && test_sizes=8
  for size in $test_sizes; do
    step "$test $size B x $n: perftest"
    run_perftest "$test" "$size" "$n" || rc=1
    step "$test $size B x $n: rdma-tool perf"
    run_java "$test" "$size" "$n" || rc=1
  done
done
echo "[compare] done: $steps_done steps in $((SECONDS - run_start)) s" >&2
exit $rc
