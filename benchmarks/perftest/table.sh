#!/usr/bin/env bash
# Joins the raw figures of perftest (impl C) and rdma-tool perf (impl Java) into one table: CSV and markdown.
# Usage: table.sh RAW.csv OUT.csv OUT.md "where and when"
set -euo pipefail
raw=$1 csv=$2 md=$3 where=$4
awk -F, -v csv="$csv" -v md="$md" -v where="$where" '
  NR == 1 { next }
  { key = $2 "," $3; if (!(key in seen)) { seen[key] = 1; order[++n] = key }
    iters[key] = $4; p50[$1, key] = $5; p99[$1, key] = $6; bw[$1, key] = $8 }
  function ratio(j, c) { return (c > 0 && j != "") ? sprintf("%.2f", j / c) : "" }
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
  }' "$raw"
