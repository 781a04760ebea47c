#!/usr/bin/env bash
# A real single-node Apache Storm cluster on loopback, as in production: ZooKeeper, Nimbus and a
# Supervisor, each its own JVM; the supervisor starts a worker JVM per topology slot, and the
# worker runs shell components (ShellSpout/ShellBolt) from the topology jar's resources/.
#
#   scripts/storm-cluster.sh fetch          resolve Storm with Maven into the cache; print its folder
#   scripts/storm-cluster.sh start [DIR]    start a cluster whose state lives in DIR; when Nimbus
#                                           answers and a supervisor offers slots, print host:port
#   scripts/storm-cluster.sh status [DIR]   which daemons run; Nimbus's host:port if it answers
#   scripts/storm-cluster.sh stop [DIR]     stop the daemons, their workers and shell components
#   scripts/storm-cluster.sh flux SECONDS JAR YAML
#                                           Storm's own Flux (flux-core) in local mode, as `storm
#                                           local` runs it: the Flux YAML in a LocalCluster for
#                                           SECONDS, components from JAR's resources/ (a `sparse jar`)
#
# DIR defaults to $cache/storm-cluster/run. The cache is ${SPARSE_PEERS_DIR:-$HOME/.cache/sparse-peers};
# Storm's jars go to $cache/storm-cluster/<version>/ (version pinned in tests/jvm/storm/pom.xml),
# never into the repo. fetch is idempotent and flock'd; with a warm cache it takes well under a
# second, and start runs it first.
#
# Then:  sparse submit --nimbus "$(scripts/storm-cluster.sh start)"   (or sparse list/kill/...)
#
# Ports are free ones picked at start (ZooKeeper, Nimbus Thrift, supervisor Thrift, worker slots),
# written to DIR/conf/storm.yaml. Daemon logs: DIR/logs/; worker logs:
# DIR/logs/workers-artifacts/<topology-id>/<port>/worker.log.
# Knobs: SPARSE_STORM_OWNER_PID (start: stop the cluster by itself once that process is gone, so
# a test binary that is killed leaves no JVM behind), SPARSE_STORM_SLOTS (worker slots, default 2), SPARSE_STORM_START_TIMEOUT (seconds,
# default 180), JAVA_HOME (else `java` on PATH; Storm 2.8 needs Java 11 or newer).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${SPARSE_PEERS_DIR:-$HOME/.cache/sparse-peers}"
pom="$root/tests/jvm/storm/pom.xml"
tools_src="$root/tests/jvm/storm/src"

die() {
  echo "storm-cluster: $*" >&2
  exit 1
}

storm_version="$(sed -n 's:.*<storm.version>\(.*\)</storm.version>.*:\1:p' "$pom" | head -n1)"
[ -n "$storm_version" ] || die "no <storm.version> in $pom"
home="$cache/storm-cluster/$storm_version"
if [ -n "${JAVA_HOME:-}" ]; then java="$JAVA_HOME/bin/java"; else java="java"; fi

# --- fetch -------------------------------------------------------------------------------------
fetch() {
  mkdir -p "$cache/storm-cluster" || die "cannot create the cache folder $cache/storm-cluster"
  local want have
  want="$( (cat "$pom"; find "$tools_src" -type f -name '*.java' | LC_ALL=C sort | xargs cat) | cksum)"
  have="$(cat "$home/.stamp" 2>/dev/null || true)"
  if [ "$want" = "$have" ] && [ -s "$home/build/sparse-storm-tools.jar" ] && [ -s "$home/flux/flux-core.jar" ]; then
    return 0
  fi
  # One fetch at a time per cache (two test binaries may start together).
  exec 8>"$cache/storm-cluster/.lock"
  flock 8
  have="$(cat "$home/.stamp" 2>/dev/null || true)"
  if [ "$want" != "$have" ] || [ ! -s "$home/build/sparse-storm-tools.jar" ] || [ ! -s "$home/flux/flux-core.jar" ]; then
    command -v mvn >/dev/null 2>&1 || die "mvn not found (scripts/setup.sh installs maven)"
    echo "storm-cluster: resolving Apache Storm $storm_version with Maven into $home" >&2
    rm -rf "$home"
    mkdir -p "$home"
    if ! mvn -B -q -f "$pom" package -Dsparse.storm.out="$home" >"$home/maven.log" 2>&1; then
      tail -n 20 "$home/maven.log" >&2
      die "Maven could not resolve org.apache.storm:storm-server:$storm_version or build tests/jvm/storm (log: $home/maven.log)"
    fi
    local flux_plugin
    flux_plugin="$(sed -n 's:.*<flux.copy.plugin>\(.*\)</flux.copy.plugin>.*:\1:p' "$pom" | head -n1)"
    if ! mvn -B -q -f "$pom" "$flux_plugin" -Dartifact="org.apache.storm:flux-core:$storm_version" \
      -DoutputDirectory="$home/flux" >>"$home/maven.log" 2>&1; then
      tail -n 20 "$home/maven.log" >&2
      die "Maven could not fetch org.apache.storm:flux-core:$storm_version (log: $home/maven.log)"
    fi
    mv "$home/flux/flux-core-$storm_version.jar" "$home/flux/flux-core.jar"
    echo "$want" >"$home/.stamp"
  fi
  flock -u 8
}

# --- helpers -----------------------------------------------------------------------------------
free_ports() { # N free TCP ports on 127.0.0.1, one per line
  python3 - "$1" <<'PY'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
for s in socks:
    print(s.getsockname()[1])
PY
}

alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

conf_value() { # a scalar from DIR/conf/storm.yaml as this script wrote it
  sed -n "s/^$1: *\"\\{0,1\\}\\([^\"]*\\)\"\\{0,1\\}\$/\\1/p" "$dir/conf/storm.yaml" | head -n1
}

# Our own log4j2 configurations: one file per daemon, and the worker's where Storm puts it.
write_log4j() {
  mkdir -p "$dir/log4j2"
  log4j_xml '${sys:storm.log.dir}/${sys:logfile.name}' >"$dir/log4j2/cluster.xml"
  log4j_xml '${sys:workers.artifacts}/${sys:storm.id}/${sys:worker.port}/${sys:logfile.name}' \
    >"$dir/log4j2/worker.xml"
}

log4j_xml() { # FILE_NAME (a log4j2 lookup pattern): the configuration, on stdout
  cat <<XML
<?xml version="1.0" encoding="UTF-8"?>
<Configuration monitorInterval="0">
  <Appenders>
    <File name="file" fileName="$1">
      <PatternLayout pattern="%d{HH:mm:ss.SSS} %-5p [%t] %c{1.} %m%n"/>
    </File>
  </Appenders>
  <Loggers>
    <Logger name="org.apache.storm.shade" level="WARN"/>
    <Root level="INFO"><AppenderRef ref="file"/></Root>
  </Loggers>
</Configuration>
XML
}

# start_daemon NAME MAIN [ARGS...]: a JVM in its own session (so stop can end its process group,
# which holds the workers and shell components a supervisor starts), pid in DIR/NAME.pid.
start_daemon() {
  local name="$1" main="$2" heap="$3"
  shift 3
  setsid "$java" "-Xmx$heap" -XX:+UseSerialGC -Dstorm.home="$dir" -Dstorm.conf.file="$dir/conf/storm.yaml" \
    -Dstorm.log.dir="$dir/logs" -Dlogfile.name="$name.log" -Ddaemon.name="$name" \
    -Dlog4j.configurationFile="$dir/log4j2/cluster.xml" -Dzookeeper.admin.enableServer=false \
    -cp "$dir/lib/*:$dir/conf" "$main" "$@" >"$dir/logs/$name.out" 2>&1 </dev/null &
  echo $! >"$dir/$name.pid"
}

# Ends a daemon's whole process group: TERM, up to 15 s, then KILL.
stop_daemon() {
  local pidfile="$dir/$1.pid" pid i
  [ -s "$pidfile" ] || return 0
  pid="$(cat "$pidfile")"
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 150; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL -- "-$pid" 2>/dev/null || true
  fi
  # Workers outlive a supervisor by design; whatever is left of the group goes too.
  kill -KILL -- "-$pid" 2>/dev/null || true
  rm -f "$pidfile"
}

ready() { # ClusterReady: waits until Nimbus answers and slots are offered; prints host:port
  "$java" -Xmx64m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Dlog4j2.level=WARN \
    -cp "$home/lib/*:$home/build/sparse-storm-tools.jar" sparse.tests.storm.ClusterReady \
    127.0.0.1 "$(conf_value nimbus.thrift.port)" "$1"
}

# --- start/stop/status -------------------------------------------------------------------------
start() {
  fetch
  command -v "$java" >/dev/null 2>&1 || die "java not found (scripts/setup.sh installs default-jdk-headless)"
  mkdir -p "$dir"
  if alive "$dir/nimbus.pid"; then
    echo "storm-cluster: already running in $dir" >&2
    ready 30
    return
  fi
  stop_all # leftovers of a cluster that died
  rm -rf "$dir/storm-local" "$dir/zookeeper" "$dir/logs" "$dir/conf"
  mkdir -p "$dir/conf" "$dir/logs" "$dir/zookeeper"
  ln -sfn "$home/lib" "$dir/lib"
  ln -sfn "$home/lib-worker" "$dir/lib-worker"
  write_log4j
  local slots="${SPARSE_STORM_SLOTS:-2}" ports zk nimbus supervisor slot_list
  mapfile -t ports < <(free_ports $((3 + slots)))
  zk="${ports[0]}" nimbus="${ports[1]}" supervisor="${ports[2]}"
  slot_list="$(printf '%s, ' "${ports[@]:3}")"
  cat >"$dir/zookeeper/zoo.cfg" <<EOF
tickTime=2000
dataDir=$dir/zookeeper
clientPort=$zk
clientPortAddress=127.0.0.1
admin.enableServer=false
maxClientCnxns=0
EOF
  cat >"$dir/conf/storm.yaml" <<EOF
# Written by scripts/storm-cluster.sh: a single-node cluster on loopback.
storm.zookeeper.servers: ["127.0.0.1"]
storm.zookeeper.port: $zk
nimbus.seeds: ["127.0.0.1"]
nimbus.thrift.port: $nimbus
storm.local.hostname: "127.0.0.1"
storm.local.dir: "$dir/storm-local"
storm.log.dir: "$dir/logs"
storm.log4j2.conf.dir: "$dir/log4j2"
supervisor.thrift.port: $supervisor
supervisor.slots.ports: [${slot_list%, }]
worker.heap.memory.mb: 256
worker.childopts: "-Xmx%HEAP-MEM%m -XX:+UseSerialGC"
topology.worker.max.heap.size.mb: 512.0
EOF
  start_daemon zookeeper org.apache.storm.shade.org.apache.zookeeper.server.ZooKeeperServerMain 128m \
    "$dir/zookeeper/zoo.cfg"
  start_daemon nimbus org.apache.storm.daemon.nimbus.Nimbus 512m
  start_daemon supervisor org.apache.storm.daemon.supervisor.Supervisor 256m
  if ! ready "${SPARSE_STORM_START_TIMEOUT:-180}"; then
    local name
    for name in zookeeper nimbus supervisor; do
      alive "$dir/$name.pid" || echo "storm-cluster: $name is not running; its output ($dir/logs/$name.out):" >&2
      alive "$dir/$name.pid" || tail -n 20 "$dir/logs/$name.out" "$dir/logs/$name.log" >&2 2>/dev/null || true
    done
    stop_all
    die "the cluster in $dir did not become ready (logs: $dir/logs)"
  fi
  if [ -n "${SPARSE_STORM_OWNER_PID:-}" ]; then
    setsid bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 2; done; exec "$2" stop "$3"' watchdog \
      "$SPARSE_STORM_OWNER_PID" "$root/scripts/storm-cluster.sh" "$dir" >/dev/null 2>&1 </dev/null &
    echo $! >"$dir/watchdog.pid"
  fi
}

stop_all() {
  # The owner's watchdog, unless this is the watchdog stopping the cluster.
  if [ -s "$dir/watchdog.pid" ] && [ "$(cat "$dir/watchdog.pid")" != "$$" ]; then
    kill "$(cat "$dir/watchdog.pid")" 2>/dev/null || true
  fi
  rm -f "$dir/watchdog.pid"
  stop_daemon supervisor
  stop_daemon nimbus
  stop_daemon zookeeper
}

status() {
  local name running=0
  for name in zookeeper nimbus supervisor; do
    if alive "$dir/$name.pid"; then
      echo "$name: running (pid $(cat "$dir/$name.pid"))"
      running=$((running + 1))
    else
      echo "$name: not running"
    fi
  done
  [ "$running" -gt 0 ] || return 3
  echo "nimbus: $(ready 5 2>&1)"
}

# Storm's Flux in local mode. Storm copies resources/ of the first classpath jar that has one,
# so the topology jar goes first. Components are started by the YAML's own commands, not by
# sparse's launchers, so the jar's Python adapter is put on PYTHONPATH relative to resources/.
flux() {
  [ $# -eq 3 ] || die "usage: storm-cluster.sh flux SECONDS JAR YAML"
  local secs="$1" jar="$2" yaml="$3"
  [ -f "$jar" ] || die "no jar at $jar"
  [ -f "$yaml" ] || die "no Flux YAML at $yaml"
  fetch
  PYTHONPATH="_sparse/python${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 exec "$java" -Xmx512m \
    -XX:+UseSerialGC -Dstorm.local.sleeptime="$secs" -Dstorm.jar="$jar" -cp "$jar:$home/flux/flux-core.jar:$home/lib/*" \
    org.apache.storm.LocalCluster org.apache.storm.flux.Flux --no-splash "$yaml"
}

cmd="${1:-}"
if [ "$cmd" = flux ]; then
  shift
  flux "$@"
fi
dir="${2:-$cache/storm-cluster/run}"
case "$dir" in /*) ;; *) dir="$PWD/$dir" ;; esac
case "$cmd" in
fetch) fetch && echo "$home" ;;
start) start ;;
stop) stop_all ;;
status) status ;;
*)
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
  ;;
esac
