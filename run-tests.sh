#!/usr/bin/env bash
# Runs every test: the host-side tests, then every device test inside the soft-RoCE / soft-iWARP testbed VM
# (rxe and siw, built and cached on first use; needs root for that first build). Extra arguments go to Maven.
set -euo pipefail
cd "$(dirname "$0")"
source soft-roce-ci/bin/jdk.sh
find_jdk25
soft-roce-ci/bin/testbed check
exec ./mvnw -B verify -Ptestbed "$@"
