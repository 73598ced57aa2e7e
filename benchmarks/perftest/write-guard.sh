#!/usr/bin/env bash
# The guard of issue 26's WRITE regression: the Java NFS client's RPC-over-RDMA WRITE against knfsd must keep its
# ratio to the kernel NFS client's WRITE against the same knfsd, on the same device in the same boot (dd, direct
# I/O, 256 KiB blocks: the Java client's call size). A ratio, not a speed: the emulated testbed's absolute figures
# move with the host's load, the two clients' ratio does not. Exits 1 when the ratio is below the floor in
# benchmarks/results/write-guard.floor (a ratio measured on good code, less a margin for run-to-run spread).
# Usage: write-guard.sh RAW.csv [FLOOR_FILE]  (RAW: perftest-compare's raw CSV with RPC-RDMA and KNFS-ANCHOR or KNFS-KNFSD rows)
set -euo pipefail
raw=$1 floor_file=${2:-$(dirname "$0")/../results/write-guard.floor}
floor=$(awk '!/^#/ && NF { print $1; exit }' "$floor_file")
awk -F, -v floor="$floor" '
  $1 == "RPC-RDMA" && $2 == "nfs_write" { java = $8 }
  # the kernel client measured beside the Java client (KNFS-ANCHOR) where the run has it, else the knfs part'"'"'s rows
  $1 == "KNFS-ANCHOR" && $2 == "write_rxe" && $3 == 262144 { asum += $8; acount++; anchor = asum / acount }
  $1 == "KNFS-KNFSD" && $2 == "write_rxe" && $3 == 262144 { ksum += $8; kcount++; knfs = ksum / kcount } # rounds: mean
  END {
    kernel = anchor != "" ? anchor : knfs
    if (java == "" || kernel == "" || kernel <= 0) {
      print "write-guard: no figures to compare (needs PERF_RPC=1 rows and KNFS-ANCHOR or PERF_KNFS=1 rows)" > "/dev/stderr"; exit 2
    }
    r = java / kernel
    printf "write-guard: Java client RDMA WRITE %.2f MB/s, kernel client %.2f MB/s (knfsd, rxe, 256 KiB): ratio %.2f, floor %.2f: %s\n", \
      java, kernel, r, floor, (r >= floor ? "ok" : "REGRESSED")
    exit (r >= floor ? 0 : 1)
  }' "$raw"
