#!/usr/bin/env bash
# Installs dependencies, builds sparse and runs every test (unit, Python adapter, integration
# with real child processes, Kafka against an embedded broker, Nimbus against a Thrift server,
# Storm's own multilang libraries and pystorm/streamparse components, fetched by scripts/peers.sh).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
"$root/scripts/peers.sh"   # the real Storm/pystorm peers that tests/peers runs against
cd "${SPARSE_BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "${SPARSE_TEST_JOBS:-2}" --timeout 600 "$@"
