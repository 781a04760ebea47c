#!/usr/bin/env bash
# Installs what building and testing sparse needs, from Debian's packages only. Idempotent: only
# missing packages are installed. Works as root or through sudo.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git python3
  libboost-dev libboost-filesystem-dev libboost-system-dev
  nlohmann-json3-dev libsimdjson-dev libyaml-cpp-dev libcli11-dev
  librdkafka-dev libthrift-dev thrift-compiler libzip-dev
  libgtest-dev libgmock-dev libbenchmark-dev libmsgpack-cxx-dev
  clang-format procps
)
if [ "${SPARSE_WITH_BROWSER:-1}" = 1 ]; then
  packages+=(chromium graphviz)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages already installed"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
  else
    echo "setup: need root or sudo to install: ${missing[*]}" >&2
    exit 1
  fi
fi
echo "setup: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
