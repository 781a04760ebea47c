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
# Each step says how long it took (CI has 45 minutes on 2 cores; this shows where they go).
started=$(date +%s)
timed() {
  local name="$1" t0
  shift
  t0=$(date +%s)
  local rc=0
  "$@" || rc=$?
  echo "test: $name took $(($(date +%s) - t0)) s (total $(($(date +%s) - started)) s)" >&2
  return "$rc"
}
timed setup "$root/scripts/setup.sh"
timed build "$root/scripts/build.sh"
timed peers "$root/scripts/peers.sh" # the real Storm/pystorm peers that tests/peers runs against
# Storm 2.8.3 for storm_real (tests/jvm/storm) and Apache Kafka for kafka_real (tests/jvm/kafka)
timed storm-fetch "$root/scripts/storm-cluster.sh" fetch >/dev/null
timed kafka-fetch "$root/scripts/kafka-server.sh" fetch >/dev/null
status=0
run_ctest() {
  cd "${SPARSE_BUILD_DIR:-$root/build}" &&
    ctest --output-on-failure -j "${SPARSE_TEST_JOBS:-2}" --timeout 600 "$@"
}
(timed ctest run_ctest "$@") || status=1
# Hardening (docs/testing.md, docs/fuzzing.md): the unit tests and a core integration subset
# under ASan + UBSan, and every libFuzzer target on its seeds plus a few seconds of fuzzing. Run
# with `ctest` args, these are skipped (a label or -R selects a group of the ctest suite only).
if [ "$#" -eq 0 ]; then
  timed format "$root/scripts/check-format.sh" || status=1
  timed sanitize "$root/scripts/sanitize.sh" --ci || status=1
  timed fuzz "$root/scripts/fuzz.sh" --smoke || status=1
fi
exit "$status"
