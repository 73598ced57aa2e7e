#!/bin/sh
# Writes jextract @argfiles from the symbols list, one per header class of org.panamardma.verbs.ffi:
#   rdma_cma_h   rdma_* / RDMA_* names (librdmacm)
#   verbs_h      everything else (libibverbs; also the kernel uapi constants verbs.h includes, e.g. IB_UVERBS_*)
# Usage: native-headers/symbols/jextract-args.sh [SYMBOLS] [OUT_DIR]   (defaults: ffi.symbols next to this script,
# native-headers/target/jextract). Then, per argfile (jextract 22+; see native-headers/README.md):
#   jextract @native-headers/target/jextract/verbs_h.args native-headers/include/panama_rdma.h
set -eu
here=$(cd "$(dirname "$0")" && pwd)
symbols=${1:-$here/ffi.symbols}
out=${2:-$here/../target/jextract}
mkdir -p "$out"
awk -v out="$out" '
  function class(name) {
    if (name ~ /^(rdma_|RDMA_)/) return "rdma_cma_h"
    return "verbs_h"
  }
  function emit(name, option,   c, f) {
    c = class(name); f = out "/" c ".args"
    if (!(c in started)) {
      started[c] = 1
      print "--output verbs-ffm/src/main/java" > f
      print "--target-package org.panamardma.verbs.ffi" > f
      print "--header-class-name " c > f
      if (c == "verbs_h") print "--library ibverbs" > f
      if (c == "rdma_cma_h") print "--library rdmacm" > f
    }
    print option " " name > f
  }
  { sub(/#.*/, ""); $1 = $1 }
  $1 == "struct" { emit($2, "--include-struct") }
  $1 == "union"  { emit($2, "--include-union") }
  $1 == "const"  { emit($2, "--include-constant") }
  $1 == "func"   { emit($2, "--include-function") }
  END { for (c in started) print out "/" c ".args" }
' "$symbols"
