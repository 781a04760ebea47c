#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine: install dependencies, build and install sparse,
# scaffold the quickstart project into a scratch folder and run its word count for a few seconds.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
SPARSE_WITH_BROWSER=0 "$root/scripts/setup.sh"
"$root/scripts/build.sh"
sparse="${SPARSE_PREFIX:-$root/_install}/bin/sparse"
scratch="$(mktemp -d)"
cd "$scratch"
"$sparse" quickstart wordcount
cd wordcount
"$sparse" run -t "${SPARSE_DEMO_SECONDS:-10}"
echo "the project is in $scratch/wordcount (logs in $scratch/wordcount/logs)"
