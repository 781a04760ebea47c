#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, docs/fuzzing.md) with clang into build-fuzz/ (override with
# SPARSE_FUZZ_BUILD_DIR) and runs them.
#
#   scripts/fuzz.sh                     build only
#   scripts/fuzz.sh --smoke             every target on its committed seeds, then a few seconds of
#                                       fuzzing each (CI; all targets together in about 2 minutes)
#   scripts/fuzz.sh --run TARGET SECS   one target for SECS seconds, one process; the corpus it grows
#                                       goes to fuzz/corpus-grown/TARGET (gitignored), crashes to
#                                       fuzz/findings/TARGET (gitignored)
#   scripts/fuzz.sh --list              the targets
#
# SPARSE_FUZZ_SMOKE_SECONDS sets the per-target fuzzing time of --smoke (default 8).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${SPARSE_FUZZ_BUILD_DIR:-$root/build-fuzz}"
jobs="${SPARSE_JOBS:-$(nproc)}"

targets() {
  sed -n 's/^sparse_fuzz_target(\([a-z_0-9]*\).*/\1/p' "$root/fuzz/CMakeLists.txt"
}

build() {
  if ! command -v clang++ >/dev/null 2>&1; then
    echo "fuzz: clang++ is missing (scripts/setup.sh installs clang and libclang-rt-14-dev)" >&2
    exit 1
  fi
  # Tests and benchmarks stay out; warnings are not errors (-Werror is for the g++ build).
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DSPARSE_FUZZ=ON \
    -DSPARSE_BUILD_TESTS=OFF -DSPARSE_BUILD_BENCH=OFF -DSPARSE_WERROR=OFF >/dev/null
  cmake --build "$build" -j "$jobs" --target fuzz_all
}

# run TARGET SECONDS CORPUS_DIR...: fuzz for SECONDS, new inputs into the first CORPUS_DIR.
run() {
  local target="$1" seconds="$2"
  shift 2
  local findings="$root/fuzz/findings/$target"
  mkdir -p "$findings"
  local dict=()
  [ -f "$root/fuzz/$target.dict" ] && dict=(-dict="$root/fuzz/$target.dict")
  "$build/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$findings/" "${dict[@]}" "$@"
}

case "${1:-}" in
  "")
    build
    ;;
  --list)
    targets
    ;;
  --smoke)
    start=$(date +%s)
    build
    seconds="${SPARSE_FUZZ_SMOKE_SECONDS:-8}"
    scratch="$(mktemp -d)"
    trap 'rm -rf "$scratch"' EXIT
    for t in $(targets); do
      echo "fuzz: $t"
      # The seeds are read but never written: new inputs go to a scratch folder.
      mkdir -p "$scratch/$t"
      run "$t" "$seconds" "$scratch/$t" "$root/fuzz/corpus/$t" 2>"$scratch/$t.log" || {
        tail -n 40 "$scratch/$t.log" >&2
        echo "fuzz: $t FAILED (the input is in fuzz/findings/$t)" >&2
        exit 1
      }
      grep -E "stat::number_of_executed_units|INFO: seed corpus|cov:" "$scratch/$t.log" | tail -n 2
    done
    echo "fuzz: smoke run passed ($(($(date +%s) - start)) s including the build)"
    ;;
  --run)
    [ $# -eq 3 ] || { echo "usage: scripts/fuzz.sh --run TARGET SECONDS" >&2; exit 2; }
    build
    grown="$root/fuzz/corpus-grown/$2"
    mkdir -p "$grown"
    run "$2" "$3" "$grown" "$root/fuzz/corpus/$2"
    ;;
  *)
    echo "usage: scripts/fuzz.sh [--smoke | --run TARGET SECONDS | --list]" >&2
    exit 2
    ;;
esac
