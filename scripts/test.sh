#!/usr/bin/env bash
# Installs dependencies, builds sparse and runs every test (unit, Python adapter, integration
# with real child processes, Kafka against an embedded broker, Nimbus against a Thrift server,
# Storm's own multilang libraries and pystorm/streamparse components, fetched by scripts/peers.sh;
# `sparse submit` against a real single-node Storm cluster, scripts/storm-cluster.sh, ctest label
# storm_real; the Kafka spout and end-to-end tests against a real Apache Kafka broker too,
# scripts/kafka-server.sh, label kafka_real), then the formatting check and the sanitizer and
# fuzzing smoke passes.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
"$root/scripts/peers.sh"   # the real Storm/pystorm peers that tests/peers runs against
"$root/scripts/storm-cluster.sh" fetch >/dev/null   # Storm 2.8.3 for storm_real (tests/jvm/storm)
"$root/scripts/kafka-server.sh" fetch >/dev/null    # Apache Kafka for kafka_real (tests/jvm/kafka)
status=0
(cd "${SPARSE_BUILD_DIR:-$root/build}" &&
  ctest --output-on-failure -j "${SPARSE_TEST_JOBS:-2}" --timeout 600 "$@") || status=1
# Hardening (docs/testing.md, docs/fuzzing.md): the unit tests and a core integration subset
# under ASan + UBSan, and every libFuzzer target on its seeds plus a few seconds of fuzzing. Run with `ctest` args, these are
# skipped (a label or -R selects a group of the ctest suite only).
if [ "$#" -eq 0 ]; then
  "$root/scripts/check-format.sh" || status=1
  "$root/scripts/sanitize.sh" --ci || status=1
  "$root/scripts/fuzz.sh" --smoke || status=1
fi
exit "$status"
