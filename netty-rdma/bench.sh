#!/bin/bash
# One boot of the testbed VM, one program: Netty echo round trips (64 B, 4 KiB, 64 KiB), 1 MiB-write throughput and a
# gRPC unary call over netty-rdma on rxe and siw and over Netty's NIO and epoll transports on TCP across the same veth
# pair (10.77.0.1 -> 10.77.0.2). Prints a table with the ratios. Build first:
#   ./mvnw -q -Ptestbed package -DskipTests -Dmaven.javadoc.skip
# Usage: netty-rdma/bench.sh [ROUNDS]   (default 2000 round trips per size and 2000 gRPC calls)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here/soft-roce-ci/device-suite"
exec ../bin/testbed run --timeout "${BENCH_TIMEOUT:-3000}" -- \
  "java --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -cp 'target/lib/*' org.panamardma.netty.bench.NettyRdmaBench ${1:-2000}"
