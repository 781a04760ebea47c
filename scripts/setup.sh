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
  clang-format clang-tidy procps
  clang libclang-rt-14-dev  # libFuzzer for scripts/fuzz.sh (docs/fuzzing.md)
)
if [ "${SPARSE_WITH_BROWSER:-1}" = 1 ]; then
  packages+=(chromium graphviz)
fi
# The real peers of tests/peers (scripts/peers.sh fetches them): Storm's storm.rb needs Ruby,
# storm.js Node.js, Maven (on a JDK) resolves Storm's jars, and pystorm/streamparse go into a
# virtualenv. Ruby, Node.js, Java and Maven may come from elsewhere than Debian (an SDK manager,
# the machine's image): only when the command is missing is the Debian package added, so apt
# never replaces or shadows them.
command -v ruby >/dev/null 2>&1 || packages+=(ruby)
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v java >/dev/null 2>&1 || packages+=(default-jdk-headless)
command -v mvn >/dev/null 2>&1 || packages+=(maven)
# Debian's python3 has no ensurepip without python3-venv; another python3 on PATH may have it.
if ! command -v python3 >/dev/null 2>&1 || ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
  packages+=(python3-venv)
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
