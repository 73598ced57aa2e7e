#!/usr/bin/env bash
# Issue 26's figures in one table, each beside its target: figure | measured | target | met/missed. Markdown on stdout.
# Usage: figures-table.sh CPU_LOG VM_DIR FLOOR_FILE
#   CPU_LOG     binding-cost.sh --cpu's log (BindingCpuTime: "cpu REQUEST java=NS c=NS wall ..."), or /dev/null
#   VM_DIR      figures-in-guest.sh's folder: raw-N.csv (compare-in-guest's rows, one file per run) and
#               registrations.log (the zero-registration device tests' output)
#   FLOOR_FILE  write-guard.sh's floor (benchmarks/results/write-guard.floor)
# The device figures are ratios within one run (the kernel as anchor), the median of the runs' ratios; the spread of
# the runs is printed beside it. A figure whose run produced no rows says "not measured" and counts as missed.
set -euo pipefail
cpu_log=$1 vm=$2 floor_file=$3
floor=$(awk '!/^#/ && NF { print $1; exit }' "$floor_file")
shopt -s nullglob
raws=("$vm"/raw-*.csv)
regs=$vm/registrations.log
[[ -f $regs ]] || regs=/dev/null

# Three kinds of input, told apart by FILENAME: the CPU log, the raw CSVs (several), the registration log.
awk -v cpu_log="$cpu_log" -v regs="$regs" -v floor="$floor" -v target_ns=15 -v target_rate=0.9 -v cx=2.6 '
  function row(figure, measured, target, verdict) { printf "| %s | %s | %s | %s |\n", figure, measured, target, verdict
                                                   if (verdict ~ /^missed/ || verdict == "not measured") missed++; total++ }
  # median of a run-indexed list "v1 v2 v3" (space-separated), and its range
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " "); if (n == 0) return ""
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    lo = a[1]; hi = a[n]; runs = n
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  function spread() { return runs > 1 ? sprintf(" (runs %.2f-%.2f, n=%d)", lo, hi, runs) : " (one run)" }
  # ratio(a, b) per run, for the rows keyed a and b (impl SUBSEP test SUBSEP size) of every run having both. Where
  # both sides have rounds (the kernel client against either server, alternated within a run) the ratio of a run
  # is the geometric mean of the ratios of its rounds (symmetric: 2x then 0.5x is 1x), each pairing the two sides
  # measured next to each other; otherwise the ratio of the means of the rounds
  function ratios(a, b,   r, k, sum, n, list) {
    list = ""
    for (r = 1; r <= nraw; r++) {
      sum = 0; n = 0
      for (k = 1; k <= maxround; k++)
        if ((r SUBSEP a SUBSEP k) in rv && (r SUBSEP b SUBSEP k) in rv && rv[r SUBSEP b SUBSEP k] > 0) {
          sum += log(rv[r SUBSEP a SUBSEP k] / rv[r SUBSEP b SUBSEP k]); n++
        }
      if (n) list = list " " sprintf("%.4f", exp(sum / n))
      else if ((r SUBSEP a) in v && (r SUBSEP b) in v && v[r SUBSEP b] > 0)
        list = list " " sprintf("%.4f", v[r SUBSEP a] / v[r SUBSEP b])
    }
    return list
  }
  # The rows of the kernel client that the Java client is compared with: those measured beside it (KNFS-ANCHOR: the
  # same knfsd, the same phase of the boot, run_rpc of compare-in-guest.sh) where the runs have them, else those of (c)
  function kernel_client(test, bs) { return ((test SUBSEP bs) in anchored ? "KNFS-ANCHOR" : "KNFS-KNFSD") SUBSEP test SUBSEP bs }
  function client_size(impl, test) { return (impl SUBSEP test) in rpcsize ? rpcsize[impl SUBSEP test] : 67108864 }
  function ratio_row(figure, a, b, target,   m) {
    m = median(ratios(a, b))
    if (m == "") { row(figure, "no rows", ">= " target "x", "not measured"); return }
    row(figure, sprintf("%.2fx", m) spread(), ">= " target "x", m >= target ? "met" : sprintf("missed by %.2f", target - m))
  }
  FILENAME == cpu_log && $1 == "cpu" {
    split($2, p, "/"); j = substr($3, index($3, "=") + 1) + 0; c = substr($4, index($4, "=") + 1) + 0
    if (p[1] == "call" || p[1] == "reply" || p[2] == "wr") next
    if (p[1] == "rate") { k = p[2] "/" p[3] (p[4] != "" ? "/" p[4] : ""); rate[++nrate] = k; rj[k] = j; rc[k] = c; next }
    cost[++ncost] = $2; cj[$2] = j; cc[$2] = c; next
  }
  FILENAME == regs && /server registrations/ {
    # "rxe0: 1000 READs and 1000 WRITEs, ... ; server registrations 0, deregistrations 0; ..."
    dev = $1; sub(/:$/, "", dev); calls = $2
    match($0, /server registrations [0-9]+/); reg = substr($0, RSTART + 21, RLENGTH - 21)
    match($0, /deregistrations [0-9]+/); dereg = substr($0, RSTART + 16, RLENGTH - 16)
    regdev[++nreg] = dev; regline[dev] = sprintf("%d ibv_reg_mr, %d ibv_dereg_mr over %d READs + %d WRITEs", reg, dereg, calls, calls)
    regok[dev] = (reg == 0 && dereg == 0); next
  }
  FILENAME != cpu_log && FILENAME != regs && FNR == 1 { nraw++; next }
  FILENAME != cpu_log && FILENAME != regs {
    split($0, f, ","); if (f[8] == "") next
    key = nraw SUBSEP f[1] SUBSEP f[2] SUBSEP f[3]
    vsum[key] += f[8]; vn[key]++; v[key] = vsum[key] / vn[key] # a row without rounds: its value; with: their mean
    if (f[1] == "KNFS-ANCHOR") anchored[f[2] SUBSEP f[3]] = 1
    if (f[1] ~ /^RPC-RDMA/) rpcsize[f[1] SUBSEP f[2]] = f[3] # the file size of the Java client runs (64 MiB; --quick: 16)
    if (f[1] ~ /^KNFS-/ && f[5] ~ /^[0-9]+$/) { rv[key SUBSEP f[5]] = f[8] + 0; if (f[5] + 0 > maxround) maxround = f[5] + 0 }
  }
  END {
    print "| figure | measured | target | verdict |"
    print "|---|---|---|---|"
    # (a) the binding: Java - C per post+poll, thread CPU time, least of the samples
    for (i = 1; i <= ncost; i++) {
      k = cost[i]; split(k, p, "/"); d = cj[k] - cc[k]
      row(sprintf("(a) binding cost, %s, %s QP+CQ (Java - C per post+poll, stub)", p[1], p[2] == "ext" ? "extended" : "legacy"),
          sprintf("%.1f ns (Java %.1f, C %.1f)", d, cj[k], cc[k]), "<= " target_ns " ns",
          d <= target_ns ? "met" : sprintf("missed by %.1f ns", d - target_ns))
    }
    if (!ncost) row("(a) binding cost (binding-cost.sh --cpu)", "no figures", "<= " target_ns " ns", "not measured")
    # (b) message rate on the stub, and what Java would reach on a ConnectX given what it adds per WRITE here
    for (i = 1; i <= nrate; i++) {
      k = rate[i]; split(k, p, "/"); r = rc[k] / rj[k]
      row(sprintf("(b) message rate, 1-byte WRITEs, batch %d%s, %s (Java / C ops/s, stub)", p[2], p[3] == "chain" ? " in one post" : "", p[1] == "ext" ? "extended" : "legacy"),
          sprintf("%.2fx (Java %.1f, C %.1f ns/WRITE)", r, rj[k], rc[k]), ">= " target_rate "x", r >= target_rate ? "met" : sprintf("missed by %.2f", target_rate - r))
      if (p[3] == "chain") continue # the ConnectX figure (2.6 M/s) is of single posts
      cxj = 1000 / (1000 / cx + rj[k] - rc[k])
      row(sprintf("(b) batch %d, %s, projected on a ConnectX (C %s M posts/s + what Java adds here)", p[2], p[1] == "ext" ? "extended" : "legacy", cx),
          sprintf("%.2f M/s (%.2fx C)", cxj, cxj / cx), ">= " target_rate "x", cxj / cx >= target_rate ? "met" : sprintf("missed by %.2f", target_rate - cxj / cx))
    }
    if (!nrate) row("(b) message rate (binding-cost.sh --cpu)", "no figures", ">= " target_rate "x", "not measured")
    # (c) the kernel as anchor: the kernel client against the Java server over knfsd; the Java client over the kernel client
    split("rxe siw", devs, " "); split("write read", ops, " ")
    for (d = 1; d <= 2; d++) for (o = 1; o <= 2; o++) for (s = 1; s <= 2; s++) {
      bs = s == 1 ? 262144 : 1048576
      ratio_row(sprintf("(c) kernel client: Java server / knfsd, %s %s, %s", toupper(ops[o]), bs == 262144 ? "256 KiB" : "1 MiB", devs[d]),
                "KNFS-JAVA" SUBSEP ops[o] "_" devs[d] SUBSEP bs, "KNFS-KNFSD" SUBSEP ops[o] "_" devs[d] SUBSEP bs, "1.0")
    }
    for (d = 1; d <= 2; d++) for (o = 1; o <= 2; o++) for (q = 1; q <= 2; q++) {
      impl = devs[d] == "rxe" ? "RPC-RDMA" : "RPC-RDMA-SIW"
      # the kernel rows to compare with: bs=256k for one call at a time, bs=1M (4 calls of 256 KiB) for 4 in flight
      ratio_row(sprintf("(c) Java NFS client / kernel client, %s, %d in flight, %s", toupper(ops[o]), q == 1 ? 1 : 4, devs[d]),
                impl SUBSEP "nfs_" ops[o] (q == 1 ? "" : "_qd4") SUBSEP client_size(impl, "nfs_" ops[o] (q == 1 ? "" : "_qd4")),
                kernel_client(ops[o] "_" devs[d], q == 1 ? 262144 : 1048576), "0.9")
    }
    # (d) the server registers nothing in steady state
    for (i = 1; i <= nreg; i++) row(sprintf("(d) server ibv_reg_mr + ibv_dereg_mr in steady state, %s", regdev[i]), regline[regdev[i]], "0", regok[regdev[i]] ? "met" : "missed")
    if (!nreg) row("(d) server registrations in steady state (Roce/IwarpSteadyStateRegistrationDeviceTest)", "no figures", "0", "not measured")
    # (e) the WRITE regression guard (write-guard.sh): the Java client RDMA WRITE over the kernel client, knfsd, rxe
    m = median(ratios("RPC-RDMA" SUBSEP "nfs_write" SUBSEP client_size("RPC-RDMA", "nfs_write"), kernel_client("write_rxe", 262144)))
    if (m == "") row("(e) WRITE regression guard (write-guard.sh)", "no rows", ">= " floor "x", "not measured")
    else row("(e) WRITE regression guard: Java client RDMA WRITE / kernel client, knfsd, rxe, 256 KiB", sprintf("%.2fx", m) spread(),
             ">= " floor "x (write-guard.floor)", m >= floor ? "met" : "missed (REGRESSED)")
    printf "\n%d figures, %d met, %d missed or not measured.\n", total, total - missed, missed
  }' "$cpu_log" "${raws[@]}" "$regs"
