#!/usr/bin/env bash
# Which commit changed the Java NFS client's throughput against knfsd? Builds benchmarks.jar at each COMMIT given
# (git archive into a scratch directory, offline Maven: no worktree is touched), boots the testbed VM once, starts
# knfsd and runs NfsRpcBench over RPC-over-RDMA with every jar in turn, ROUNDS times interleaved (so host load spreads
# over all of them alike), with the kernel NFS client's dd (256 KiB, direct I/O, same knfsd, same device) before and
# after each round as the anchor. Prints each commit's median WRITE and READ MB/s, its ratio to the first commit's,
# and its WRITE over the round's kernel dd (what write-guard.sh checks). Compare within one run only: the emulated
# testbed's figures move with the host's load, their ratios much less.
#
# Every commit runs THIS tree's NfsRpcBench, JitWatch and CpuSpan (copied over the commit's own, with the few names that
# changed since 2026-11-23 mapped back): an old commit's own benchmark measured its client before the JIT had
# settled (one pass of warm-up against today's passes until 3 in a row see at most 3 compilations), so two commits
# would differ by how long their harness warmed up. BISECT_OWN_HARNESS=1 builds each commit's own benchmark instead.
#
# Usage: benchmarks/perftest/rpc-bisect.sh COMMIT... (repository root; ROUNDS=3, IO_ITERS=2, FILE_MIB=64, DEVICE=rxe)
# Measured with it: benchmarks/README.md, (e).
set -euo pipefail
(($#)) || { echo "usage: $0 COMMIT..." >&2; exit 2; }
work=benchmarks/target/rpc-bisect
rm -rf "$work"; mkdir -p "$work"
bench=benchmarks/src/main/java/org/panamardma/benchmarks
i=0
for c in "$@"; do
  i=$((i + 1))
  src=$(mktemp -d)
  git archive "$c" | tar -x -C "$src"
  if [[ ${BISECT_OWN_HARNESS:-0} != 1 ]]; then
    cp "$bench/NfsRpcBench.java" "$bench/JitWatch.java" "$bench/CpuSpan.java" "$src/$bench/"
    exposure=rpcrdma/src/main/java/org/panamardma/rpcrdma/client/ChunkExposure.java
    if [[ ! -f $src/$exposure ]]; then # before a2d83ff: one way of exposing chunks, no option to choose it
      printf 'package org.panamardma.rpcrdma.client;\n\npublic enum ChunkExposure { AUTO, MEMORY_WINDOWS, PER_CALL_REGISTRATION }\n' \
        >"$src/$exposure"
      perl -0pi -e 's/\s*\.withExposure\(exposure\)//' "$src/$bench/NfsRpcBench.java"
    fi
    if ! grep -q withBusyPoll "$src/rpcrdma/src/main/java/org/panamardma/rpcrdma/client/RpcRdmaClientOptions.java"; then
      perl -0pi -e 's/\s*\.withBusyPoll\(busyPoll\)//' "$src/$bench/NfsRpcBench.java" # before bf783a9
    fi
    if [[ ! -f $src/nfs/src/main/java/org/panamardma/nfs/Mount3.java ]]; then # before cbe7435: the clients held the numbers
      sed -i -e 's/Portmap\.PORT/PortmapClient.PORT/' \
        -e 's/Mount3\.PROGRAM, Mount3\.VERSION, Portmap\.IPPROTO_TCP/MountClient.PROGRAM, MountClient.VERSION, PortmapClient.IPPROTO_TCP/' \
        -e '/^import org.panamardma.nfs.Mount3;/d; /^import org.panamardma.nfs.Portmap;/d' "$src/$bench/NfsRpcBench.java"
    fi
  fi
  echo "[rpc-bisect] building benchmarks.jar at $c ..." >&2
  (cd "$src" && ./mvnw -B -q -o -pl benchmarks -am package -DskipTests -Dmaven.javadoc.skip -Dmaven.source.skip \
    -Dspotless.check.skip -Dcheckstyle.skip) >&2
  cp "$src/benchmarks/target/benchmarks.jar" "$work/$(printf %02d $i)-$(git rev-parse --short "$c").jar"
  rm -rf "$src"
done
ip=10.77.0.2; [[ ${DEVICE:-rxe} == siw ]] && ip=10.77.1.2
cat >"$work/in-guest.sh" <<GUEST
#!/usr/bin/env bash
set -uo pipefail
modprobe nfsv3; modprobe rpcrdma
source benchmarks/perftest/knfs-probe-lib.sh # knfs_dd
nfs/src/test/resources/org/panamardma/nfs/start-nfs-server.sh >/tmp/nfs-start.log 2>&1 || { tail -20 /tmp/nfs-start.log; exit 1; }
mkdir -p /mnt/rpc-bisect
timeout 120 mount -t nfs -o vers=3,proto=rdma,port=20049,mountport=50892,mountproto=tcp,nolock $ip:/srv/panama-nfs /mnt/rpc-bisect || exit 1
kernel_dd() { # the kernel client's 256 KiB direct WRITE of FILE_MIB, MB/s
  dd if=/dev/zero of=/mnt/rpc-bisect/dd bs=256k count=\$(( ${FILE_MIB:-64} * 4 )) oflag=direct 2>&1 \
    | knfs_dd
  rm -f /mnt/rpc-bisect/dd
}
kernel_dd >/dev/null # the kernel client's first pass is not timed either
for round in \$(seq 1 ${ROUNDS:-3}); do
  echo "kernel,nfs_write,\$round,\$(kernel_dd)"
  for jar in $work/*.jar; do
    timeout 1800 java --enable-native-access=ALL-UNNAMED -cp "\$jar" org.panamardma.benchmarks.NfsRpcBench --transport rdma \
      --server $ip --iters 0 --io-iters ${IO_ITERS:-2} --file-size \$(( ${FILE_MIB:-64} << 20 )) >/tmp/b.log 2>/tmp/b.err \
      || { echo "\$(basename "\$jar") failed" >&2; tail -5 /tmp/b.err >&2; continue; }
    grep -E '^RPC-RDMA,nfs_(write|read),' /tmp/b.log | awk -F, -v j="\$(basename "\$jar" .jar)" -v r=\$round '{ print j "," \$2 "," r "," \$NF }'
    grep -i 'warm-up' /tmp/b.err | sed "s|^|[rpc-bisect] \$(basename "\$jar" .jar) round \$round: |" >&2
  done
  echo "kernel,nfs_write,\$round,\$(kernel_dd)"
done >$work/raw.csv
umount /mnt/rpc-bisect
nfs/src/test/resources/org/panamardma/nfs/start-nfs-server.sh stop >/dev/null 2>&1
GUEST
chmod +x "$work/in-guest.sh"
soft-roce-ci/bin/testbed run --timeout "${TESTBED_TIMEOUT:-5400}" -- "$work/in-guest.sh"
# raw.csv: jar|kernel, test, round, MB/s
awk -F, '
  $1 == "kernel" { if ($4 > 0) { ks[$3] += $4; kn[$3]++ }; next } # a failed dd (no figure) is left out
  { k = $1 SUBSEP $2; v[k, ++n[k]] = $4; rd[k, n[k]] = $3; if (!($1 in seen)) { seen[$1] = 1; name[++m] = $1 } }
  function median(a, c,   i, x, y, t) { for (x = 1; x <= c; x++) for (y = x + 1; y <= c; y++) if (a[y] < a[x]) { t = a[x]; a[x] = a[y]; a[y] = t }
    return c ? a[int((c + 1) / 2)] : 0 }
  function med(j, t,   a, i, c) { c = n[j SUBSEP t]; for (i = 1; i <= c; i++) a[i] = v[j SUBSEP t, i]; return median(a, c) }
  function medk(j,   a, i, c, r) { c = n[j SUBSEP "nfs_write"]
    for (i = 1; i <= c; i++) { r = rd[j SUBSEP "nfs_write", i]; a[i] = kn[r] ? v[j SUBSEP "nfs_write", i] / (ks[r] / kn[r]) : 0 }
    return median(a, c) }
  END { printf "%-14s %10s %7s %10s %7s %14s\n", "commit", "WRITE MB/s", "ratio", "READ MB/s", "ratio", "WRITE/kernel"
        w0 = med(name[1], "nfs_write"); r0 = med(name[1], "nfs_read")
        for (i = 1; i <= m; i++) { w = med(name[i], "nfs_write"); r = med(name[i], "nfs_read")
          printf "%-14s %10.2f %7.2f %10.2f %7.2f %14.2f\n", name[i], w, w0 ? w / w0 : 0, r, r0 ? r / r0 : 0, medk(name[i]) } }' \
  "$work/raw.csv"
