#!/usr/bin/env bash
# Joins the raw figures of perftest (impl C) and rdma-tool perf (impl Java) into one table: CSV and markdown.
# Usage: table.sh RAW.csv OUT.csv OUT.md "where and when"
# RPC figures (impl RPC-TCP / RPC-RDMA, from NfsRpcBench) become a second table in OUT.md and OUT-rpc.csv.
# The oncrpc4j bridge's figures (impl BRIDGE-TCP4J / BRIDGE-TCP / BRIDGE-RDMA, from BridgeBench) become a table in
# OUT.md and OUT-bridge.csv.
set -euo pipefail
raw=$1 csv=$2 md=$3 where=$4
awk -F, -v csv="$csv" -v md="$md" -v where="$where" '
  NR == 1 { next }
  # several rounds of one kernel-client figure (compare-in-guest.sh alternates the servers): their mean
  $1 ~ /^KNFS-/ { ksum[$1, $2, $3] += $8; kcount[$1, $2, $3]++; knfs[$1, $2, $3] = ksum[$1, $2, $3] / kcount[$1, $2, $3]; hasknfs = 1
                  if (!(($2 "," $3) in kseen)) { kseen[$2 "," $3] = 1; korder[++kn] = $2 "," $3 }; next }
  $1 ~ /^BRIDGE-/ { br[$1, $2, "p50"] = $5; br[$1, $2, "p99"] = $6; br[$1, $2, "bw"] = $8; br[$1, $2, "n"] = $4
                    br[$1, $2, "size"] = $3; hasbridge = 1; next }
  $1 ~ /^RPC-/ { rpc[$1, $2, "p50"] = $5; rpc[$1, $2, "p99"] = $6; rpc[$1, $2, "bw"] = $8; rpc[$1, $2, "n"] = $4
                 if ($2 ~ /^nfs_/) { rpcsize = $3; if (!($2 in rseen)) { rseen[$2] = 1; rorder[++rn] = $2 } }
                 hasrpc = 1; next }
  { key = $2 "," $3; if (!(key in seen)) { seen[key] = 1; order[++n] = key }
    iters[key] = $4; p50[$1, key] = $5; p99[$1, key] = $6; bw[$1, key] = $8 }
  function ratio(j, c) { return (c > 0 && j != "") ? sprintf("%.2f", j / c) : "" }
  function iolabel(t, size,   op, qd) { op = toupper(t); sub(/^NFS_/, "", op); sub(/_QD[0-9]+$/, "", op)
    qd = t; if (sub(/^.*_qd/, "", qd)) return op " " size / 1048576 " MiB, " qd " in flight"; return op " " size / 1048576 " MiB" }
  END {
    print "test,size,iters,c_p50_us,java_p50_us,p50_ratio,c_p99_us,java_p99_us,p99_ratio,c_bw_MBps,java_bw_MBps,bw_ratio" > csv
    print "perftest (C) and rdma-tool perf (Java) on the same device, " where "." > md
    print "Latency in microseconds (perftest definitions: p50 = t_typical, halved round trips for send/write)," > md
    print "bandwidth in MB/s; ratio = Java / C (latency: lower is better; bandwidth: higher is better). Java after" > md
    print "an unmeasured warm-up of as many iterations (rounded up to 256s), perftest (which needs none) without." > md
    print "" > md
    print "| test | size | iters | C p50 | Java p50 | ratio | C p99 | Java p99 | ratio | C MB/s | Java MB/s | ratio |" > md
    print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|" > md
    for (i = 1; i <= n; i++) {
      k = order[i]; split(k, f, ",")
      lat = f[1] != "write_bw"
      r50 = lat ? ratio(p50["Java", k], p50["C", k]) : ""
      r99 = lat ? ratio(p99["Java", k], p99["C", k]) : ""
      rbw = lat ? "" : ratio(bw["Java", k], bw["C", k])
      printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", f[1], f[2], iters[k], \
        lat ? p50["C", k] : "", lat ? p50["Java", k] : "", r50, lat ? p99["C", k] : "", lat ? p99["Java", k] : "", r99, \
        lat ? "" : bw["C", k], lat ? "" : bw["Java", k], rbw > csv
      printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", f[1], f[2], iters[k], \
        lat ? p50["C", k] : "", lat ? p50["Java", k] : "", r50, lat ? p99["C", k] : "", lat ? p99["Java", k] : "", r99, \
        lat ? "" : bw["C", k], lat ? "" : bw["Java", k], rbw > md
    }
    if (hasknfs) {
      kcsv = csv; sub(/\.csv$/, "", kcsv); kcsv = kcsv "-knfs.csv"
      print "op,device,block,knfsd_MBps,java_MBps,java_over_knfsd" > kcsv
      print "" > md
      print "The Linux kernel NFS client (NFSv3 over RPC-over-RDMA, vers=3,proto=rdma,mountproto=tcp,nolock) writing and" > md
      print "reading a file with dd and direct I/O, from the Java NFS server (nfs-server.jar) and from knfsd, same device," > md
      print "same mount options, same boot. MB/s; ratio = Java server / knfsd (higher is better for Java)." > md
      print "" > md
      print "| op | device | block | knfsd MB/s | Java server MB/s | ratio |" > md
      print "|---|---|---:|---:|---:|---:|" > md
      for (i = 1; i <= kn; i++) {
        split(korder[i], f, ","); split(f[1], od, "_")
        k = knfs["KNFS-KNFSD", f[1], f[2]]; j = knfs["KNFS-JAVA", f[1], f[2]]
        printf "| %s | %s | %s KiB | %s | %s | %s |\n", toupper(od[1]), od[2], f[2] / 1024, k, j, ratio(j, k) > md
        printf "%s,%s,%s,%s,%s,%s\n", od[1], od[2], f[2], k, j, ratio(j, k) > kcsv
      }
    }
    if (hasrpc) {
      floor = p50["C", "send_lat,8"]
      rpccsv = csv; sub(/\.csv$/, "", rpccsv); rpccsv = rpccsv "-rpc.csv"
      print "test,stat,iters,tcp,rdma,rdma_over_tcp,floor_us" > rpccsv
      print "" > md
      print "ONC RPC against the guest'"'"'s knfsd (NFSv3), the same Java client code over TCP and over RPC-over-RDMA, on the" > md
      print "same device pair. NULL: round trip in microseconds (not halved; the floor is twice ib_send_lat'"'"'s one-way" > md
      print "8-byte p50, the cheapest round trip the device offers). WRITE/READ: a file of " rpcsize / 1048576 " MiB in calls of 256 KiB" > md
      print "(one at a time, or N in flight), MB/s; WRITE is UNSTABLE with one COMMIT inside the timed span. ratio = RDMA / TCP." > md
      print "" > md
      print "The RDMA client in its latency mode (RpcRdmaClientOptions.busyPoll of 1 ms: its poller keeps polling between" > md
      print "completions instead of sleeping) is the busy-polling NULL rows, beside the same TCP figures." > md
      print "" > md
      print "| measure | iters | TCP | RDMA | ratio | floor (2 x ib_send_lat p50) |" > md
      print "|---|---:|---:|---:|---:|---:|" > md
      nrows = 0
      rows[++nrows] = "rpc_null:p50:NULL p50 (us)"; rows[++nrows] = "rpc_null:p99:NULL p99 (us)"
      if (("RPC-RDMA-BUSY", "rpc_null", "p50") in rpc) {
        rows[++nrows] = "rpc_null_busy:p50:NULL p50, busy-polling RDMA client (us)"
        rows[++nrows] = "rpc_null_busy:p99:NULL p99, busy-polling RDMA client (us)"
      }
      for (i = 1; i <= rn; i++) rows[++nrows] = rorder[i] ":bw:" iolabel(rorder[i], rpcsize) " (MB/s)"
      for (i = 1; i <= nrows; i++) {
        split(rows[i], r, ":")
        if (r[1] == "rpc_null_busy") {
          t = rpc["RPC-TCP", "rpc_null", r[2]]; d = rpc["RPC-RDMA-BUSY", "rpc_null", r[2]]; nn = rpc["RPC-RDMA-BUSY", "rpc_null", "n"]
        } else {
          t = rpc["RPC-TCP", r[1], r[2]]; d = rpc["RPC-RDMA", r[1], r[2]]
          nn = rpc["RPC-RDMA", r[1], "n"] != "" ? rpc["RPC-RDMA", r[1], "n"] : rpc["RPC-TCP", r[1], "n"]
        }
        fl = (r[1] == "rpc_null" && r[2] == "p50" && floor != "") ? sprintf("%.2f", 2 * floor) : ""
        printf "| %s | %s | %s | %s | %s | %s |\n", r[3], nn, t, d, ratio(d, t), fl > md
        printf "%s,%s,%s,%s,%s,%s,%s\n", r[1], r[2], nn, t, d, ratio(d, t), fl > rpccsv
      }
      # The anchor: the kernel'"'"'s NFS client on the same device, against the same knfsd, same boot (run_knfs): bs=256k
      # for one call at a time, bs=1M (the kernel splits it into rsize calls, several in flight) for N in flight.
      if (hasknfs && rn > 0) {
        vcsv = csv; sub(/\.csv$/, "", vcsv); vcsv = vcsv "-vs-kernel.csv"
        print "measure,java_rdma_MBps,kernel_rdma_MBps,java_over_kernel" > vcsv
        print "" > md
        print "The Java NFS client (NfsRpcBench over RPC-over-RDMA) against the Linux kernel'"'"'s NFS client (dd, direct I/O," > md
        print "bs=256k for one call at a time, bs=1M for calls in flight), both reading and writing knfsd over rxe in the same" > md
        print "boot. MB/s; ratio = Java / kernel (higher is better for Java)." > md
        print "" > md
        print "| measure | Java client MB/s | kernel client MB/s | ratio |" > md
        print "|---|---:|---:|---:|" > md
        for (i = 1; i <= rn; i++) {
          t = rorder[i]; op = t; sub(/^nfs_/, "", op); sub(/_qd[0-9]+$/, "", op)
          kb = (t ~ /_qd/) ? 1048576 : 262144; k = ("KNFS-ANCHOR", op "_rxe", kb) in knfs ? knfs["KNFS-ANCHOR", op "_rxe", kb] : knfs["KNFS-KNFSD", op "_rxe", kb]; j = rpc["RPC-RDMA", t, "bw"]
          printf "| %s | %s | %s | %s |\n", iolabel(t, rpcsize), j, k, ratio(j, k) > md
          printf "%s,%s,%s,%s\n", t, j, k, ratio(j, k) > vcsv
        }
      }
    }
    if (hasbridge) {
      bcsv = csv; sub(/\.csv$/, "", bcsv); bcsv = bcsv "-bridge.csv"
      print "measure,stat,size,iters,oncrpc4j_tcp,bridge_rdma,bridge_rdma_over_tcp,our_tcp" > bcsv
      print "" > md
      print "One oncrpc4j service instance (BlobService) in one JVM, served by oncrpc4j'"'"'s own TCP server and by the bridge" > md
      print "(org.panamardma.oncrpc4j) over RPC-over-RDMA, both on the server device'"'"'s address; one call at a time, the same" > md
      print "counts and warm-up for every client. oncrpc4j TCP: oncrpc4j'"'"'s own client (OncRpcClient, RpcCall); bridge RDMA:" > md
      print "this project'"'"'s RpcRdmaClient (PUT'"'"'s data by Read chunk, GET'"'"'s reply by Reply chunk); TCP, our client:" > md
      print "this project'"'"'s TcpRpcClient to the same oncrpc4j TCP server. NULL: round trip in microseconds (not halved);" > md
      print "GET/PUT: MB/s of 2^20 bytes. ratio = bridge RDMA / oncrpc4j TCP (latency: lower is better; MB/s: higher)." > md
      print "" > md
      print "| measure | iters | oncrpc4j TCP | bridge RDMA | ratio | TCP, our client |" > md
      print "|---|---:|---:|---:|---:|---:|" > md
      split("bridge_null:p50:NULL p50 (us),bridge_null:p99:NULL p99 (us),bridge_get:bw:GET (MB/s),bridge_put:bw:PUT (MB/s)", rows, ",")
      for (i = 1; i <= 4; i++) {
        split(rows[i], r, ":")
        t = br["BRIDGE-TCP4J", r[1], r[2]]; d = br["BRIDGE-RDMA", r[1], r[2]]; o = br["BRIDGE-TCP", r[1], r[2]]
        n = br["BRIDGE-RDMA", r[1], "n"]; if (n == "") n = br["BRIDGE-TCP4J", r[1], "n"]
        sz = br["BRIDGE-RDMA", r[1], "size"]; if (sz == "") sz = br["BRIDGE-TCP4J", r[1], "size"]
        label = r[3]; if (r[2] == "bw" && sz != "") label = substr(r[3], 1, 3) " " (sz % 1048576 == 0 ? sz / 1048576 " MiB" : sz / 1024 " KiB") substr(r[3], 4)
        printf "| %s | %s | %s | %s | %s | %s |\n", label, n, t, d, ratio(d, t), o > md
        printf "%s,%s,%s,%s,%s,%s,%s,%s\n", r[1], r[2], sz, n, t, d, ratio(d, t), o > bcsv
      }
    }
  }' "$raw"
