#!/usr/bin/env bash
# Configures and builds sparse into build/ and installs it into _install/ (override with
# SPARSE_BUILD_DIR / SPARSE_PREFIX). Extra arguments go to cmake's configure step.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${SPARSE_BUILD_DIR:-$root/build}"
prefix="${SPARSE_PREFIX:-$root/_install}"
jobs="${SPARSE_JOBS:-$(nproc)}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE="${SPARSE_BUILD_TYPE:-RelWithDebInfo}" \
  -DCMAKE_INSTALL_PREFIX="$prefix" "$@" >/dev/null
cmake --build "$build" -j "$jobs"
cmake --install "$build" >/dev/null
echo "build: sparse installed in $prefix/bin/sparse"
