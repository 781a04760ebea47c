#!/usr/bin/env bash
# A real Apache Kafka broker on this machine, for users and tests (the embedded broker of
# `sparse kafka serve` stays the default; this one is the real thing):
#
#   scripts/kafka-server.sh fetch        resolve Kafka's jars into the cache (prints the folder)
#   scripts/kafka-server.sh start [DIR]  start one broker+controller JVM in KRaft mode (no
#                                        ZooKeeper) on loopback, data in DIR (default: a new
#                                        temporary folder); waits until it serves and prints its
#                                        bootstrap address, 127.0.0.1:PORT, on stdout
#   scripts/kafka-server.sh stop DIR     stop that broker (cleanly, then SIGKILL after 30 s) and
#                                        remove DIR
#   scripts/kafka-server.sh restart DIR  kill that broker with SIGKILL and start it again, same
#                                        ports and data (a broker crash, for tests)
#
# The jars (org.apache.kafka:kafka_2.13 and its runtime dependencies, the version pinned in
# tests/jvm/kafka/pom.xml) are resolved with Maven into
# ${SPARSE_PEERS_DIR:-$HOME/.cache/sparse-peers}/kafka/<version>/, never into the repo; once there,
# `fetch` costs well under a second. Needs Java >= 17 and Maven (scripts/setup.sh installs both).
#
# Environment:
#   SPARSE_KAFKA_OWNER_PID   start: stop the broker and remove DIR once this process is gone
#                            (tests pass their own pid, so a killed test leaves no JVM behind)
#   SPARSE_KAFKA_HEAP        start: the JVM's heap options (default -Xms256m -Xmx512m)
#   SPARSE_KAFKA_START_SECS  start: how long to wait for the broker (default 120)
#   JAVA                     the java binary (default: java on PATH)
# Exits non-zero, saying why, when something is missing or the broker does not come up.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
pom="$root/tests/jvm/kafka/pom.xml"
cache="${SPARSE_PEERS_DIR:-$HOME/.cache/sparse-peers}/kafka"
java="${JAVA:-java}"

die() {
  echo "kafka-server: $*" >&2
  exit 1
}

usage() {
  echo "usage: scripts/kafka-server.sh fetch | start [DIR] | stop DIR | restart DIR" >&2
  exit 2
}

# Prints the folder holding the jars of the pinned version, resolving them first if needed.
fetch() {
  local version want jars
  version="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$pom" | head -n1)"
  [ -n "$version" ] || die "no <kafka.version> in $pom"
  jars="$cache/$version"
  want="$(cksum <"$pom")"
  mkdir -p "$cache" || die "cannot create the cache folder $cache"
  # One resolution at a time per cache (several test binaries may start together).
  if command -v flock >/dev/null 2>&1; then
    exec 8>"$cache/.lock"
    flock 8
  fi
  if [ "$(cat "$jars/.sparse-stamp" 2>/dev/null || true)" != "$want" ] ||
    [ ! -s "$jars/kafka_2.13-$version.jar" ]; then
    command -v mvn >/dev/null 2>&1 || die "mvn not found (scripts/setup.sh installs maven)"
    echo "kafka-server: resolving Apache Kafka $version with Maven into $jars" >&2
    rm -rf "$jars" "$jars.tmp"
    mkdir -p "$jars.tmp"
    if ! mvn -B -q -f "$pom" dependency:copy-dependencies -DincludeScope=runtime \
      -DoutputDirectory="$jars.tmp" >"$cache/maven.log" 2>&1; then
      tail -n 20 "$cache/maven.log" >&2
      rm -rf "$jars.tmp"
      die "Maven could not resolve org.apache.kafka:kafka_2.13:$version (log: $cache/maven.log)"
    fi
    echo "$want" >"$jars.tmp/.sparse-stamp"
    mv "$jars.tmp" "$jars"
  fi
  if command -v flock >/dev/null 2>&1; then
    exec 8>&-
  fi
  echo "$jars"
}

check_java() {
  command -v "$java" >/dev/null 2>&1 || die "$java not found: Kafka needs Java >= 17 (scripts/setup.sh installs default-jdk-headless)"
  local major
  major="$("$java" -XshowSettings:properties -version 2>&1 |
    sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p')"
  [ -n "$major" ] && [ "$major" -ge 17 ] ||
    die "$java is Java ${major:-unknown}; Kafka's broker needs Java >= 17"
}

# Two free loopback ports (the broker's and the controller's). The kernel picks them; the short
# window before the broker binds them is the price of not parsing the broker's log for a port.
free_ports() {
  python3 - <<'PY' || die "python3 could not find free ports"
import socket
socks = []
for _ in range(2):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
}

start() {
  local dir="${1:-}" jars port cport cluster_id pid deadline
  check_java
  jars="$(fetch)"
  if [ -z "$dir" ]; then
    dir="$(mktemp -d "${TMPDIR:-/tmp}/sparse-kafka.XXXXXX")"
  else
    [ ! -e "$dir/broker.pid" ] || die "$dir already holds a broker (stop it first)"
    mkdir -p "$dir"
  fi
  dir="$(cd "$dir" && pwd)"
  read -r port cport < <(free_ports)
  [ -n "${cport:-}" ] || die "could not find two free loopback ports"
  mkdir -p "$dir/data"
  cat >"$dir/server.properties" <<EOF
# Written by scripts/kafka-server.sh: one node that is broker and KRaft controller at once.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$dir/data
# A single node: every internal topic has one replica.
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
# A group's first member is assigned at once, not after 3 s of waiting for others.
group.initial.rebalance.delay.ms=0
EOF
  cat >"$dir/log4j2.properties" <<EOF
status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = $dir/server.log
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = file
EOF
  # A Kafka cluster id is 16 random bytes in URL-safe base64 without padding; not one starting
  # with '-', which kafka-storage's argument parser would take for an option.
  cluster_id=-
  while [ "${cluster_id#-}" != "$cluster_id" ]; do
    cluster_id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')"
  done
  local jvm=("$java" -Djava.awt.headless=true -Dlog4j2.configurationFile="$dir/log4j2.properties"
    -cp "$jars/*")
  if ! "${jvm[@]}" kafka.tools.StorageTool format -t "$cluster_id" \
    -c "$dir/server.properties" >"$dir/format.log" 2>&1; then
    cat "$dir/format.log" >&2
    die "formatting the log folder $dir/data failed"
  fi
  launch "$dir" || {
    rm -rf "$dir"
    die "the broker exited while starting (its output is above)"
  }
  echo "127.0.0.1:$port" >"$dir/bootstrap"
  echo "kafka-server: Apache Kafka $(basename "$jars") (KRaft) at 127.0.0.1:$port, data and log in $dir;" \
    "stop it with: scripts/kafka-server.sh stop $dir" >&2
  echo "127.0.0.1:$port"
}

# Starts the broker JVM of DIR (configured and formatted) and waits until it serves; with
# SPARSE_KAFKA_OWNER_PID, a watchdog stops it when that process is gone. Fails (status 1) when
# the JVM exits while starting; stops it and dies when it does not start in time.
launch() {
  local dir="$1" jars pid deadline
  jars="$(fetch)"
  local jvm=("$java" -Djava.awt.headless=true -Dlog4j2.configurationFile="$dir/log4j2.properties"
    -cp "$jars/*")
  local started_before
  started_before="$(grep -c "Kafka Server started" "$dir/server.log" 2>/dev/null || true)"
  # shellcheck disable=SC2086 # the heap options are several words
  setsid "${jvm[@]}" ${SPARSE_KAFKA_HEAP:--Xms256m -Xmx512m} -XX:+UseG1GC \
    -XX:MaxGCPauseMillis=20 -XX:+ExitOnOutOfMemoryError \
    kafka.Kafka "$dir/server.properties" </dev/null >>"$dir/kafka.out" 2>&1 &
  pid=$!
  echo "$pid" >"$dir/broker.pid"
  if [ -n "${SPARSE_KAFKA_OWNER_PID:-}" ]; then
    local owner="$SPARSE_KAFKA_OWNER_PID"
    setsid bash -c 'while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 1; done
      kill -0 "$1" 2>/dev/null || "$3" stop "$4"' watchdog "$owner" "$pid" "$0" "$dir" \
      </dev/null >/dev/null 2>&1 &
    echo "$!" >"$dir/watchdog.pid"
  fi
  deadline=$((SECONDS + ${SPARSE_KAFKA_START_SECS:-120}))
  until [ "$(grep -c "Kafka Server started" "$dir/server.log" 2>/dev/null || true)" -gt \
    "${started_before:-0}" ]; do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -n 30 "$dir/kafka.out" "$dir/server.log" >&2 2>/dev/null || true
      return 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      tail -n 30 "$dir/server.log" >&2 2>/dev/null || true
      stop "$dir"
      die "the broker did not start within ${SPARSE_KAFKA_START_SECS:-120} s"
    fi
    sleep 0.2
  done
}

# Kills the broker of DIR with SIGKILL (a crash: nothing flushed, no clean shutdown) and starts
# it again on the same ports with the same data, for tests of what survives a broker failure.
restart() {
  local dir="${1:-}" pid
  [ -n "$dir" ] || usage
  [ -f "$dir/broker.pid" ] || die "$dir holds no broker started by this script"
  check_java
  pid="$(cat "$dir/broker.pid")"
  kill -KILL "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  launch "$dir" || die "the broker exited while restarting (its output is above)"
  cat "$dir/bootstrap"
}

stop() {
  local dir="${1:-}" pid
  [ -n "$dir" ] || usage
  [ -f "$dir/broker.pid" ] || die "$dir holds no broker started by this script"
  pid="$(cat "$dir/broker.pid")"
  # The watchdog, unless it is the caller (bash may exec the command it runs last: then it is
  # this very process).
  local watchdog
  watchdog="$(cat "$dir/watchdog.pid" 2>/dev/null || true)"
  if [ -n "$watchdog" ] && [ "$watchdog" != "$$" ] && [ "$watchdog" != "$PPID" ]; then
    kill "$watchdog" 2>/dev/null || true
  fi
  if kill -TERM "$pid" 2>/dev/null; then
    local deadline=$((SECONDS + 30))
    while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.2; done
    if kill -0 "$pid" 2>/dev/null; then
      echo "kafka-server: the broker did not stop within 30 s; killing it" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -rf "$dir"
}

case "${1:-}" in
  fetch) fetch ;;
  start) start "${2:-}" ;;
  stop) stop "${2:-}" ;;
  restart) restart "${2:-}" ;;
  *) usage ;;
esac
