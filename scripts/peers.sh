#!/usr/bin/env bash
# Fetches the real third-party peers that tests/peers runs sparse against, into a cache outside
# the repo (${SPARSE_PEERS_DIR:-$HOME/.cache/sparse-peers}):
#   venv/   a virtualenv with the pinned PyPI packages of tests/peers/requirements.txt
#           (pystorm, streamparse, msgpack, simplejson, six)
#   storm/  Apache Storm's own multilang libraries storm.py, storm.js and storm.rb, taken from
#           Storm's multilang-python/-javascript/-ruby jars, which Maven resolves through
#           tests/peers/maven/pom.xml (the Storm version is pinned there)
# Idempotent: each part is redone only when its pins changed or it is incomplete, so a warm cache
# costs well under a second. Exits non-zero, saying what failed, when something cannot be fetched.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${SPARSE_PEERS_DIR:-$HOME/.cache/sparse-peers}"
requirements="$root/tests/peers/requirements.txt"
pom="$root/tests/peers/maven/pom.xml"

die() {
  echo "peers: $*" >&2
  exit 1
}

mkdir -p "$cache" || die "cannot create the cache folder $cache"
# One run at a time per cache (ctest helpers or two test runs may call this together).
if command -v flock >/dev/null 2>&1; then
  exec 9>"$cache/.lock"
  flock 9
fi

# --- Python: the virtualenv --------------------------------------------------------------------
python="${SPARSE_PEERS_PYTHON:-python3}"
command -v "$python" >/dev/null 2>&1 || die "$python not found (scripts/setup.sh installs it)"
venv="$cache/venv"
want_py="$( (cat "$requirements"; "$python" -c 'import sys; print(sys.version)') | cksum)"
have_py="$(cat "$venv/.sparse-peers-stamp" 2>/dev/null || true)"
if [ "$want_py" != "$have_py" ] ||
  ! "$venv/bin/python" -c 'import pystorm, streamparse, msgpack, simplejson, six' 2>/dev/null; then
  echo "peers: creating $venv"
  rm -rf "$venv"
  "$python" -m venv "$venv" ||
    die "cannot create a virtualenv with '$python -m venv' (Debian needs python3-venv: scripts/setup.sh)"
  if ! "$venv/bin/pip" install --disable-pip-version-check -q -r "$requirements"; then
    rm -rf "$venv"
    die "pip could not install tests/peers/requirements.txt from PyPI"
  fi
  echo "$want_py" >"$venv/.sparse-peers-stamp"
fi

# --- Storm's multilang libraries ----------------------------------------------------------------
storm_version="$(sed -n 's:.*<storm.version>\(.*\)</storm.version>.*:\1:p' "$pom" | head -n1)"
[ -n "$storm_version" ] || die "no <storm.version> in $pom"
storm="$cache/storm"
if [ "$(cat "$storm/VERSION" 2>/dev/null || true)" != "$storm_version" ] ||
  [ ! -s "$storm/storm.py" ] || [ ! -s "$storm/storm.js" ] || [ ! -s "$storm/storm.rb" ]; then
  command -v mvn >/dev/null 2>&1 || die "mvn not found (scripts/setup.sh installs maven)"
  echo "peers: resolving Storm $storm_version's multilang jars with Maven"
  jars="$cache/jars/$storm_version"
  rm -rf "$jars" "$storm.tmp"
  mkdir -p "$jars" "$storm.tmp"
  if ! mvn -B -q -f "$pom" dependency:copy-dependencies -DoutputDirectory="$jars" \
    -DincludeGroupIds=org.apache.storm >"$cache/maven.log" 2>&1; then
    tail -n 20 "$cache/maven.log" >&2
    die "Maven could not resolve org.apache.storm:multilang-{python,javascript,ruby}:$storm_version (log: $cache/maven.log)"
  fi
  # resources/storm.* is where a Storm jar carries them; pull out exactly those three files.
  "$python" - "$jars" "$storm.tmp" "$storm_version" <<'PY' || die "cannot extract storm.py/js/rb from the jars in $jars"
import os, sys, zipfile
jars, out, version = sys.argv[1:]
for lang, name in (("python", "storm.py"), ("javascript", "storm.js"), ("ruby", "storm.rb")):
    jar = os.path.join(jars, "multilang-%s-%s.jar" % (lang, version))
    with zipfile.ZipFile(jar) as z, open(os.path.join(out, name), "wb") as f:
        f.write(z.read("resources/" + name))
with open(os.path.join(out, "VERSION"), "w") as f:
    f.write(version + "\n")
PY
  rm -rf "$storm"
  mv "$storm.tmp" "$storm"
fi

echo "peers: ready in $cache: venv ($(cd "$venv" && bin/python -c 'import importlib.metadata as m; print(", ".join("%s %s" % (p, m.version(p)) for p in ("pystorm", "streamparse", "msgpack", "simplejson", "six")))')), Storm $storm_version storm.py/storm.js/storm.rb"
