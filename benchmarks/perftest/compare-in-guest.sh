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
java_opts=${PERF_JAVA_OPTS:-}
c_port=18600

say() { echo "[compare] $*" >&2; }
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
  for attempt in 1 2 3 4 5 6 7 8 9 10; do
    sleep 1
    if timeout 600 "$tool" -d "$client_dev" "${args[@]}" "$server_ip" >/tmp/perftest-client.log 2>&1; then
      break
    fi
    # not yet listening: refused, or (rdma_cm) REJECTED; retried
    grep -q -i 'refused\|Couldn.t connect\|Unable to\|REJECTED' /tmp/perftest-client.log || break
  done
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
java $java_opts -jar "$jar" perf --server --bind "$server_ip" --port 18515 >/tmp/rdma-tool-server.log 2>&1 &
java_server=$!
trap 'kill $java_server 2>/dev/null' EXIT
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
# (benchmarks' NfsRpcBench): NULL round trips, 1 MiB READ and WRITE throughput (calls of 256 KiB). The floor is perftest's send latency.
run_rpc() {
  local transport=$1
  if ! timeout 900 java --enable-native-access=ALL-UNNAMED $java_opts -cp "$bench_jar" org.panamardma.benchmarks.NfsRpcBench --transport "$transport" \
       --server "$server_ip" --iters "$iters" --warmup "${warmup:-$iters}" --io-iters "${PERF_RPC_IO_ITERS:-32}" \
       >/tmp/nfs-bench.log 2>/tmp/nfs-bench.err; then
    say "NfsRpcBench over $transport failed:"; tail -n 20 /tmp/nfs-bench.err >&2
    return 1
  fi
  grep '^RPC-' /tmp/nfs-bench.log >>"$out"
}

rc=0
if [[ -n $bench_jar && ${PERF_RPC:-1} == 1 ]]; then
  say "RPC: starting knfsd"
  if nfs/src/test/resources/org/panamardma/nfs/start-nfs-server.sh >/tmp/nfs-start.log 2>&1; then
    for transport in tcp rdma; do
      say "RPC over $transport: NULL x $iters, READ/WRITE of 1 MiB x ${PERF_RPC_IO_ITERS:-32}"
      run_rpc "$transport" || rc=1
    done
    nfs/src/test/resources/org/panamardma/nfs/start-nfs-server.sh stop >/dev/null 2>&1
  else
    say "knfsd did not start:"; tail -n 20 /tmp/nfs-start.log >&2; rc=1
  fi
fi
for test in $tests; do
  n=$iters; [[ $test == write_bw ]] && n=$bw_iters
  test_sizes=$sizes; [[ $test == atomic_lat ]] && test_sizes=8
  for size in $test_sizes; do
    say "$test $size B x $n: perftest"
    run_perftest "$test" "$size" "$n" || rc=1
    say "$test $size B x $n: rdma-tool perf"
    run_java "$test" "$size" "$n" || rc=1
  done
done
exit $rc
