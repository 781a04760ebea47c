#!/usr/bin/env bash
# Runs clang-tidy with the project's .clang-tidy on sources: the files given, else those that
# differ from origin/main (or main), else every .cpp under src/. Needs a configured build with
# compile_commands.json (./scripts/build.sh makes one; SPARSE_BUILD_DIR to choose). Each file
# costs ~10 s of CPU, so the whole tree (~200 files) is a job for a quiet machine, not for CI.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${SPARSE_BUILD_DIR:-$root/build}"
cd "$root"
command -v clang-tidy >/dev/null || { echo "tidy: clang-tidy is not installed (apt-get install clang-tidy)" >&2; exit 2; }
[[ -f "$build/compile_commands.json" ]] || { echo "tidy: no $build/compile_commands.json; run ./scripts/build.sh first" >&2; exit 2; }
files=("$@")
if [[ ${#files[@]} -eq 0 ]]; then
  base=$(git rev-parse --verify -q origin/main || git rev-parse --verify -q main || true)
  if [[ -n "$base" ]]; then
    mapfile -t files < <(git diff --name-only "$base" -- 'src/*.cpp' | while read -r f; do [[ -f $f ]] && echo "$f"; done)
  fi
  if [[ ${#files[@]} -eq 0 ]]; then mapfile -t files < <(git ls-files 'src/*.cpp'); fi
fi
# Unity builds list batch files, not sources; clang-tidy needs the per-file commands.
if grep -q '/Unity/unity_' "$build/compile_commands.json"; then
  echo "tidy: $build is a unity build; configure one with -DSPARSE_UNITY_BUILD=OFF (SPARSE_BUILD_DIR)" >&2
  exit 2
fi
jobs="${SPARSE_JOBS:-$(nproc)}"
printf '%s\n' "${files[@]}" | xargs -P "$jobs" -n 1 clang-tidy -p "$build" --quiet
echo "tidy: ${#files[@]} files clean"
