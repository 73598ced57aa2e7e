#!/usr/bin/env bash
# Which commit changed the Java NFS client's throughput against knfsd? Builds benchmarks.jar at each COMMIT given
# (git archive into a scratch directory, offline Maven: no worktree is touched), boots the testbed VM once, starts
# knfsd and runs NfsRpcBench over RPC-over-RDMA with every jar in turn, ROUNDS times interleaved (so host load spreads
# over all of them alike), then prints each commit's median WRITE and READ MB/s and its ratio to the first commit's.
# Compare within one run only: the emulated testbed's figures move with the host's load, their ratios much less.
# Usage: benchmarks/perftest/rpc-bisect.sh COMMIT... (from the repository root; ROUNDS=3, IO_ITERS=32, DEVICE=rxe)
set -euo pipefail
(($#)) || { echo "usage: $0 COMMIT..." >&2; exit 2; }
work=benchmarks/target/rpc-bisect
rm -rf "$work"; mkdir -p "$work"
i=0
for c in "$@"; do
  i=$((i + 1))
  src=$(mktemp -d)
  git archive "$c" | tar -x -C "$src"
  echo "[rpc-bisect] building benchmarks.jar at $c ..." >&2
  (cd "$src" && ./mvnw -B -q -o -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip -Dmaven.source.skip) >&2
  cp "$src/benchmarks/target/benchmarks.jar" "$work/$(printf %02d $i)-$(git rev-parse --short "$c").jar"
  rm -rf "$src"
done
ip=10.77.0.2; [[ ${DEVICE:-rxe} == siw ]] && ip=10.77.1.2
cat >"$work/in-guest.sh" <<GUEST
#!/usr/bin/env bash
set -uo pipefail
modprobe nfsv3; modprobe rpcrdma
nfs/src/test/resources/org/panamardma/nfs/start-nfs-server.sh >/tmp/nfs-start.log 2>&1 || { tail -20 /tmp/nfs-start.log; exit 1; }
for round in \$(seq 1 ${ROUNDS:-3}); do
  for jar in $work/*.jar; do
    timeout 900 java --enable-native-access=ALL-UNNAMED -cp "\$jar" org.panamardma.benchmarks.NfsRpcBench --transport rdma \
      --server $ip --iters 50 --warmup 50 --io-iters ${IO_ITERS:-32} >/tmp/b.log 2>/tmp/b.err \
      || { echo "\$(basename "\$jar") failed" >&2; tail -5 /tmp/b.err >&2; continue; }
    grep -E '^RPC-RDMA,nfs_(write|read),' /tmp/b.log | sed "s|^|\$(basename "\$jar" .jar),|"
  done
done >$work/raw.csv
nfs/src/test/resources/org/panamardma/nfs/start-nfs-server.sh stop >/dev/null 2>&1
GUEST
chmod +x "$work/in-guest.sh"
soft-roce-ci/bin/testbed run --timeout "${TESTBED_TIMEOUT:-3600}" -- "$work/in-guest.sh"
# columns of raw.csv: jar,impl,test,size,iters,p50,p99,avg,bw
awk -F, '{ v[$1, $3, ++n[$1, $3]] = $9; jars[$1] = 1; if (!($1 in order)) { order[$1] = ++k; name[k] = $1 } }
  function median(j, t,   m, a, i, x, y) { m = n[j, t]; for (i = 1; i <= m; i++) a[i] = v[j, t, i]
    for (x = 1; x <= m; x++) for (y = x + 1; y <= m; y++) if (a[y] < a[x]) { t0 = a[x]; a[x] = a[y]; a[y] = t0 }
    return m ? a[int((m + 1) / 2)] : 0 }
  END { printf "%-14s %10s %7s %10s %7s\n", "commit", "WRITE MB/s", "ratio", "READ MB/s", "ratio"
        w0 = median(name[1], "nfs_write"); r0 = median(name[1], "nfs_read")
        for (i = 1; i <= k; i++) { w = median(name[i], "nfs_write"); r = median(name[i], "nfs_read")
          printf "%-14s %10.2f %7.2f %10.2f %7.2f\n", name[i], w, w0 ? w / w0 : 0, r, r0 ? r / r0 : 0 } }' "$work/raw.csv"
