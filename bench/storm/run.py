#!/usr/bin/env python3
"""sparse and Apache Storm side by side (issue 14): the same multilang components, in one
invocation, alternating, on

    sparse      `sparse run`
    local       Storm's local mode: a LocalCluster in one JVM (what `storm local` runs), the
                topology jar first on its classpath so Storm finds the components in its resources/
    cluster     the single-node cluster of scripts/storm-cluster.sh (ZooKeeper, Nimbus,
                Supervisor, a worker JVM), topologies sent with `sparse submit`

for these pipelines (every spout with message ids, acking on, topology.max.spout.pending 2000):

    python      spout -> pass bolt -> sink bolt, sparse_multilang components (components.py)
    storm.py    the same pipeline written with Storm's own storm.py (stormpy_components.py)
    cpp         the C++ adapter's sentence spout -> split -> a counting sink (cpp/progress_sink.cpp)
    kafka       Kafka -> Python bolt (components.py KafkaPass) -> Kafka, on a real Apache Kafka
                broker (scripts/kafka-server.sh). sparse runs its built-in kafka_spout/kafka_bolt;
                Storm runs its own storm-kafka-client KafkaSpout/KafkaBolt (sparse's built-ins run
                only inside sparse's runtime), so that row compares the platforms' Kafka clients too

Every sink appends its count to a file (progress.py), so throughput and the first tuple are
measured the same way everywhere. For each run: start -> first tuple at the sink; after --warmup
seconds, a --seconds window in which throughput at the sink and the CPU of all processes (from
/proc: every process of the run and its children; on the cluster the ZooKeeper, Nimbus and
Supervisor JVMs too) are measured; peak memory is the largest sum of RSS of those processes seen
(sampled every 0.2 s) over the whole run; complete latency is each platform's own figure
(sparse's --stats-json, Storm's all-time statistics from Nimbus / the LocalCluster).

    bench/storm/run.py BUILD_DIR [--seconds 6] [--warmup 4] [--rounds 1]
        [--only python,cpp,...] [--runners sparse,local,cluster]
        [--nimbus HOST:PORT --cluster-dir DIR] [--bootstrap HOST:PORT]

Needs Java 17+ and Maven (scripts/setup.sh), the peers cache (scripts/peers.sh: storm.py), and
BUILD_DIR built with the targets sparse, sparse_example_sentence_spout,
sparse_example_split_sentence and sparse_bench_progress_sink. Starts the cluster and the Kafka
broker itself unless given; prints a markdown table and the ratios.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
cache = os.environ.get("SPARSE_PEERS_DIR", os.path.expanduser("~/.cache/sparse-peers"))
PAGE = os.sysconf("SC_PAGE_SIZE")
TICK = os.sysconf("SC_CLK_TCK")
PENDING = 2000
PIPELINES = ["python", "storm.py", "cpp", "kafka"]
RUNNERS = ["sparse", "local", "cluster"]


def log(*args):
    print(*args, file=sys.stderr, flush=True)


# --- processes: CPU and memory from /proc ------------------------------------------------------

def proc_table():
    """pid -> (ppid, cpu seconds incl. waited-for children, rss bytes) for every process."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        # fields[0] is field 3 (state): ppid 4, utime 14, stime 15, cutime 16, cstime 17, rss 24
        cpu = sum(int(fields[i]) for i in (11, 12, 13, 14)) / TICK
        out[int(name)] = (int(fields[1]), cpu, int(fields[21]) * PAGE)
    return out


def storm_workers():
    """Pids of Storm worker processes (the worker JVM and the LogWriter that wraps it)."""
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % name, "rb") as f:
                if b"org.apache.storm.daemon.worker.Worker" in f.read():
                    pids.append(int(name))
        except OSError:
            continue
    return pids


class Sampler(threading.Thread):
    """Every 0.2 s: the processes under `roots()` (and the roots), their summed RSS (the peak is
    kept) and each one's CPU time (the last value seen is kept, so a process that ended still
    counts)."""

    def __init__(self, roots):
        super().__init__(daemon=True)
        self.roots = roots
        self.cpu = {}
        self.peak_rss = 0
        self.stopped = threading.Event()
        self.lock = threading.Lock()

    def sample(self):
        table = proc_table()
        children = {}
        for pid, (ppid, _, _) in table.items():
            children.setdefault(ppid, []).append(pid)
        todo = [p for p in self.roots() if p in table]
        seen = set()
        while todo:
            pid = todo.pop()
            if pid in seen:
                continue
            seen.add(pid)
            todo.extend(children.get(pid, []))
        with self.lock:
            rss = 0
            for pid in seen:
                _, cpu, r = table[pid]
                self.cpu[pid] = max(cpu, self.cpu.get(pid, 0.0))
                rss += r
            self.peak_rss = max(self.peak_rss, rss)

    def run(self):
        while not self.stopped.wait(0.2):
            self.sample()

    def cpu_total(self):
        self.sample()
        with self.lock:
            return sum(self.cpu.values())

    def stop(self):
        self.stopped.set()
        self.join()


# --- progress files (progress.py's format) -----------------------------------------------------

def progress(folder, who="sink"):
    """All `time count total` lines of `who`'s files in `folder` (the sinks', or the spouts'
    that measure their own complete latency), per file."""
    files = []
    for name in sorted(os.listdir(folder)):
        if not name.startswith(who + "-"):
            continue
        lines = []
        with open(os.path.join(folder, name)) as f:
            for line in f:
                parts = line.split()
                if len(parts) in (2, 3) and line.endswith("\n"):  # C++ sink: no total
                    lines.append((float(parts[0]), int(parts[1]),
                                  float(parts[2]) if len(parts) == 3 else 0.0))
        files.append(lines)
    return files


def first_tuple_time(folder):
    firsts = [lines[0][0] for lines in progress(folder) if lines]
    return min(firsts) if firsts else None


def count_at(folder, t, who="sink"):
    """(count, total) of all of `who`'s files at wall-clock time t (the last line at or before t)."""
    count, total = 0, 0.0
    for lines in progress(folder, who):
        before = [(c, x) for (when, c, x) in lines if when <= t]
        if before:
            count += before[-1][0]
            total += before[-1][1]
    return count, total


def wait_first_tuple(folder, limit, alive):
    deadline = time.time() + limit
    while time.time() < deadline:
        t = first_tuple_time(folder)
        if t is not None:
            return t
        if not alive():
            return None
        time.sleep(0.05)
    return None


# --- the pipelines ---------------------------------------------------------------------------

def python_components(kind):
    def sparse_mod(cls):
        return ["python3", "-m", "sparse_multilang.run", "components:" + cls]

    def storm_py(which):
        return ["python3", "stormpy_components.py", which]

    if kind == "python":
        return sparse_mod("FastSpout"), sparse_mod("PassBolt"), sparse_mod("SinkBolt")
    return storm_py("spout"), storm_py("pass"), storm_py("sink")


def pipeline(kind, build, bench_dir, bootstrap=None, topics=None, spout_properties=None):
    """The topology as sparse YAML (a dict) with its components; shell components only, except
    for kafka (the built-ins)."""
    config = {"topology.max.spout.pending": PENDING, "bench.dir": bench_dir}
    if kind in ("python", "storm.py"):
        spout, pas, sink = python_components(kind)
        comps = [
            {"id": "spout", "type": "spout", "command": spout, "fields": ["n", "payload"]},
            {"id": "pass", "type": "bolt", "command": pas, "fields": ["n", "payload"],
             "inputs": [{"from": "spout", "grouping": "shuffle"}]},
            {"id": "sink", "type": "bolt", "command": sink, "fields": [],
             "inputs": [{"from": "pass", "grouping": "shuffle"}]},
        ]
    elif kind == "cpp":
        bindir = os.path.join(os.path.abspath(build), "bin")
        comps = [
            {"id": "spout", "type": "spout", "command": [bindir + "/sparse_example_sentence_spout"],
             "fields": ["sentence"]},
            {"id": "split", "type": "bolt", "command": [bindir + "/sparse_example_split_sentence"],
             "fields": ["word"], "inputs": [{"from": "spout", "grouping": "shuffle"}]},
            {"id": "sink", "type": "bolt", "command": [bindir + "/sparse_bench_progress_sink"],
             "fields": [], "inputs": [{"from": "split", "grouping": "fields", "fields": ["word"]}]},
        ]
    else:
        transform = ["python3", "-m", "sparse_multilang.run", "components:KafkaPass"]
        comps = [
            {"id": "spout", "type": "spout", "kind": "kafka_spout", "bootstrap": bootstrap,
             "topic": topics[0], "group": topics[2], "properties": spout_properties or {}},
            {"id": "transform", "type": "bolt", "command": transform, "fields": ["key", "message"],
             "inputs": [{"from": "spout", "grouping": "shuffle"}]},
            {"id": "publish", "type": "bolt", "kind": "kafka_bolt", "bootstrap": bootstrap,
             "topic": topics[1], "inputs": [{"from": "transform", "grouping": "shuffle"}]},
        ]
    return config, comps


def sparse_yaml(name, config, comps):
    def component(c):
        out = {"id": c["id"]}
        if c.get("kind") == "kafka_spout":
            out["builtin"] = "kafka_spout"
            out["options"] = {"bootstrap_servers": c["bootstrap"], "topics": [c["topic"]],
                              "group_id": c["group"], "start": "earliest"}
            if c.get("properties"):
                out["options"]["properties"] = c["properties"]
        elif c.get("kind") == "kafka_bolt":
            out["builtin"] = "kafka_bolt"
            out["options"] = {"bootstrap_servers": c["bootstrap"], "topic": c["topic"],
                              "key_field": "key", "value_field": "message"}
        else:
            out["command"] = c["command"]
            if c["fields"]:
                out["outputs"] = c["fields"]
        if c.get("inputs"):
            out["inputs"] = c["inputs"]
        return out

    doc = {"name": name, "config": config,
           "spouts": [component(c) for c in comps if c["type"] == "spout"],
           "bolts": [component(c) for c in comps if c["type"] == "bolt"]}
    return json.dumps(doc, indent=1)  # JSON is YAML


def storm_spec(name, config, comps, extra_config=None):
    """BenchTopology's spec: shell components run the launchers of the jar `sparse jar` wrote."""
    spec_comps = []
    for c in comps:
        s = dict(c)
        if not c.get("kind"):
            s["kind"] = "shell"
            s["command"] = ["sh", "_sparse/launch/%s.sh" % c["id"]]
        spec_comps.append(s)
    conf = dict(config)
    conf.update(extra_config or {})
    return {"name": name, "config": conf, "components": spec_comps}


def write_project(folder, kind, name, config, comps):
    """A folder `sparse jar`/`run`/`submit` take: the topology file and the Python components.
    For kafka, the jar Storm gets comes from a shell-only stand-in (the built-ins have no
    launcher), whose transform launcher is the same."""
    os.makedirs(folder)
    for f in ("components.py", "stormpy_components.py", "progress.py"):
        shutil.copy(os.path.join(here, f), folder)
    shutil.copy(os.path.join(cache, "storm", "storm.py"), folder)
    with open(os.path.join(folder, "topo.yaml"), "w") as f:
        f.write(sparse_yaml(name, config, comps))
    if kind == "kafka":
        stand_in = [{"id": "spout", "type": "spout", "command": python_components("python")[0],
                     "fields": ["n", "payload"]}] + [
            dict(c, inputs=[{"from": "spout", "grouping": "shuffle"}]) for c in comps
            if c["id"] == "transform"]
        with open(os.path.join(folder, "jar.yaml"), "w") as f:
            f.write(sparse_yaml(name, config, stand_in))


# --- the runners ---------------------------------------------------------------------------

class Env:
    def __init__(self, args):
        self.args = args
        self.sparse = os.path.join(os.path.abspath(args.build), "bin", "sparse")
        self.storm_home = None
        self.bench_home = None
        self.nimbus = args.nimbus
        self.cluster_dir = args.cluster_dir
        self.bootstrap = args.bootstrap
        self.started_cluster = False
        self.kafka_dir = None
        self.input_topic = None
        self.input_records = 0

    def java_cp(self, jar=None):
        parts = ([jar] if jar else []) + [
            os.path.join(self.bench_home, "build", "sparse-storm-bench.jar"),
            os.path.join(self.storm_home, "lib", "*"),
            os.path.join(self.bench_home, "kafka-lib", "*")]
        return ":".join(parts)

    def worker_jars(self):
        """What a worker needs for the Kafka pipeline beyond Storm: our spout/bolt classes and
        storm-kafka-client with the Kafka client."""
        lib = os.path.join(self.bench_home, "kafka-lib")
        return [os.path.join(self.bench_home, "build", "sparse-storm-bench.jar")] + [
            os.path.join(lib, j) for j in sorted(os.listdir(lib))]


def fetch_storm_side(env):
    env.storm_home = subprocess.run([os.path.join(root, "scripts", "storm-cluster.sh"), "fetch"],
                                    check=True, capture_output=True, text=True).stdout.strip()
    env.bench_home = os.path.join(cache, "storm-bench", os.path.basename(env.storm_home))
    pom = os.path.join(here, "jvm", "pom.xml")
    src = os.path.join(here, "jvm", "src", "main", "java", "sparse", "bench", "storm",
                       "BenchTopology.java")
    stamp = ""
    for p in (pom, src):
        with open(p) as f:
            stamp += f.read()
    stamp_file = os.path.join(env.bench_home, ".stamp")
    if os.path.exists(stamp_file) and open(stamp_file).read() == stamp:
        return
    log("storm bench: resolving storm-kafka-client and building BenchTopology into", env.bench_home)
    os.makedirs(env.bench_home, exist_ok=True)
    r = subprocess.run(["mvn", "-B", "-q", "-f", pom, "package",
                        "-Dsparse.bench.out=" + env.bench_home], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("Maven failed for bench/storm/jvm:\n" + r.stdout[-3000:] + r.stderr[-3000:])
    with open(stamp_file, "w") as f:
        f.write(stamp)


def start_cluster(env):
    if env.nimbus:
        return
    env.cluster_dir = env.cluster_dir or tempfile.mkdtemp(prefix="sparse-bench-storm-")
    log("storm bench: starting the single-node Storm cluster in", env.cluster_dir)
    r = subprocess.run([os.path.join(root, "scripts", "storm-cluster.sh"), "start", env.cluster_dir],
                       capture_output=True, text=True, env=dict(os.environ, SPARSE_STORM_OWNER_PID=str(os.getpid())))
    if r.returncode != 0:
        sys.exit("scripts/storm-cluster.sh start failed:\n" + r.stderr[-3000:])
    env.nimbus = r.stdout.strip().splitlines()[-1]
    env.started_cluster = True


def cluster_roots(env):
    def roots():
        pids = []
        for name in ("zookeeper", "nimbus", "supervisor"):
            try:
                with open(os.path.join(env.cluster_dir, name + ".pid")) as f:
                    pids.append(int(f.read().strip()))
            except (OSError, ValueError):
                pass
        return pids
    return roots


def start_kafka(env, records):
    if not env.bootstrap:
        env.kafka_dir = tempfile.mkdtemp(prefix="sparse-bench-kafka-")
        log("storm bench: starting Apache Kafka in", env.kafka_dir)
        r = subprocess.run([os.path.join(root, "scripts", "kafka-server.sh"), "start", env.kafka_dir],
                           capture_output=True, text=True,
                           env=dict(os.environ, SPARSE_KAFKA_OWNER_PID=str(os.getpid())))
        if r.returncode != 0:
            sys.exit("scripts/kafka-server.sh start failed:\n" + r.stderr[-3000:])
        env.bootstrap = r.stdout.strip().splitlines()[-1]
    env.input_topic = "bench-in-%d" % int(time.time())
    log("storm bench: writing %d records to %s" % (records, env.input_topic))
    lines = "".join("k%d\tvalue-%d-%s\n" % (i % 97, i, "x" * 40) for i in range(records))
    subprocess.run([env.sparse, "kafka", "produce", "-b", env.bootstrap, "-t", env.input_topic,
                    "-k", "\t"], input=lines, text=True, check=True, stdout=subprocess.DEVNULL)
    env.input_records = records


def measure(sampler, folder, launched, alive, args, label):
    """Waits for the first tuple, the warm-up and the window; returns the measured figures."""
    first = wait_first_tuple(folder, args.start_limit, alive)
    if first is None:
        raise RuntimeError("%s: no tuple reached the sink within %d s" % (label, args.start_limit))
    t0 = first + args.warmup
    time.sleep(max(0.0, t0 - time.time()))
    cpu0 = sampler.cpu_total()
    t0 = time.time()
    time.sleep(args.seconds)
    cpu1 = sampler.cpu_total()
    t1 = time.time()
    time.sleep(0.15)  # the sink's line for t1
    n = count_at(folder, t1)[0] - count_at(folder, t0)[0]
    last = max(lines[-1][0] for lines in progress(folder) if lines)
    m = {"first_s": first - launched, "tuples_per_sec": n / (t1 - t0),
         "cpu_us": (cpu1 - cpu0) / max(n, 1) * 1e6, "cores": (cpu1 - cpu0) / (t1 - t0),
         "stalled": last < t1 - 1.0, "tuples": n}
    # The Python spouts time their own trees (progress.Latency): the window's mean.
    (a0, l0), (a1, l1) = count_at(folder, t0, "spout"), count_at(folder, t1, "spout")
    if a1 > a0:
        m["own_latency_ms"] = (l1 - l0) / (a1 - a0)
    return m


def run_sparse(env, kind, tmp, name, config, comps):
    args = env.args
    stats_path = os.path.join(tmp, "stats.json")
    seconds = args.warmup + args.seconds + 6
    cmd = [env.sparse, "run", os.path.join(tmp, "project", "topo.yaml"), "-t", str(seconds),
           "--wait", "5", "--log-dir", os.path.join(tmp, "logs"), "--stats-json", stats_path]
    launched = time.time()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "run.err"), "w"))
    sampler = Sampler(lambda: [proc.pid])
    sampler.start()
    try:
        m = measure(sampler, config["bench.dir"], launched, lambda: proc.poll() is None, args, "sparse")
        proc.wait(timeout=seconds + 60)
    finally:
        if proc.poll() is None:
            proc.kill()
        sampler.stop()
    with open(stats_path) as f:
        stats = json.load(f)
    spout = [c for c in stats["components"] if c["id"] == "spout"][0]
    sink = [c for c in stats["components"] if c["id"] in ("sink", "transform")][0]
    cpu = stats["cpu"]
    m["runtime_us"] = ((cpu["runtime_user_secs"] + cpu["runtime_system_secs"]) /
                       max(sink["executed"], 1) * 1e6)
    latency(m, spout["complete_latency_ms"])
    m["failed"] = spout["failed"]
    m["peak_mib"] = sampler.peak_rss / 2**20
    return m


def storm_jar(env, tmp, kind):
    project = os.path.join(tmp, "project")
    topo = "jar.yaml" if kind == "kafka" else "topo.yaml"
    r = subprocess.run([env.sparse, "jar", os.path.join(project, topo)], cwd=project,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("sparse jar: " + r.stderr)
    jars = [os.path.join(project, "_build", j) for j in os.listdir(os.path.join(project, "_build"))]
    return jars[0]


def uber_jar(jar, extra, out):
    """`jar` with the classes of every jar in `extra` added (first one wins; signatures and
    manifests of the extras left out)."""
    import zipfile
    seen = set()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for source in [jar] + extra:
            with zipfile.ZipFile(source) as src:
                for item in src.infolist():
                    n = item.filename
                    if n in seen or (source != jar and n.startswith("META-INF/") and
                                     (n.endswith((".SF", ".RSA", ".DSA")) or n == "META-INF/MANIFEST.MF")):
                        continue
                    seen.add(n)
                    z.writestr(item, src.read(n))
    return out


def java():
    return os.path.join(os.environ["JAVA_HOME"], "bin", "java") if os.environ.get("JAVA_HOME") else "java"


def run_local(env, kind, tmp, name, config, comps):
    args = env.args
    jar = storm_jar(env, tmp, kind)
    spec_path = os.path.join(tmp, "spec.json")
    with open(spec_path, "w") as f:
        json.dump(storm_spec(name, config, comps), f)
    stats_path = os.path.join(tmp, "storm-stats.json")
    # The local JVM gets what the cluster's daemons and worker get in scripts/storm-cluster.sh.
    cmd = [java(), "-Xmx512m", "-XX:+UseSerialGC", "-cp", env.java_cp(jar),
           "sparse.bench.storm.BenchTopology", "local", spec_path, stats_path]
    launched = time.time()
    out = open(os.path.join(tmp, "local.log"), "w")
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT,
                            cwd=tmp, start_new_session=True)
    sampler = Sampler(lambda: [proc.pid])
    sampler.start()
    try:
        m = measure(sampler, config["bench.dir"], launched, lambda: proc.poll() is None, args, "local")
        proc.stdin.close()
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        sampler.stop()
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # shell components the halted JVM left behind
        except ProcessLookupError:
            pass
    with open(stats_path) as f:
        stats = json.load(f)["components"]
    latency(m, stats.get("spout", {}).get("complete_latency_ms", float("nan")))
    m["failed"] = stats.get("spout", {}).get("failed", 0)
    m["peak_mib"] = sampler.peak_rss / 2**20
    return m


def sparse_cli(env, *argv, cwd=None):
    return subprocess.run([env.sparse] + list(argv) + ["--nimbus", env.nimbus], cwd=cwd,
                          capture_output=True, text=True)


def run_cluster(env, kind, tmp, name, config, comps):
    args = env.args
    project = os.path.join(tmp, "project")
    sampler = Sampler(cluster_roots(env))
    sampler.start()
    launched = time.time()
    try:
        if kind == "kafka":
            # A worker's classpath has Storm and the topology jar (a topology.classpath string
            # did not reach the worker's command line when tried), so the jar carries our classes
            # and storm-kafka-client with the Kafka client, as a user's shaded topology jar would.
            jar = uber_jar(storm_jar(env, tmp, kind), env.worker_jars(), os.path.join(tmp, "uber.jar"))
            spec_path = os.path.join(tmp, "spec.json")
            with open(spec_path, "w") as f:
                json.dump(storm_spec(name, config, comps), f)
            r = subprocess.run([java(), "-Xmx256m", "-XX:+UseSerialGC", "-Dstorm.jar=" + jar,
                                "-cp", env.java_cp(), "sparse.bench.storm.BenchTopology", "submit",
                                spec_path, env.nimbus], capture_output=True, text=True, cwd=tmp)
        else:
            r = sparse_cli(env, "submit", os.path.join(project, "topo.yaml"), "-n", name, cwd=project)
        if r.returncode != 0:
            raise RuntimeError("submit failed: " + r.stdout[-2000:] + r.stderr[-2000:])
        m = measure(sampler, config["bench.dir"], launched, lambda: True, args, "cluster")
        stats_path = os.path.join(tmp, "storm-stats.json")
        r = subprocess.run([java(), "-Xmx128m", "-XX:+UseSerialGC", "-cp", env.java_cp(),
                            "sparse.bench.storm.BenchTopology", "stats", name, env.nimbus, stats_path],
                           capture_output=True, text=True)
        stats = json.load(open(stats_path))["components"] if r.returncode == 0 else {}
    finally:
        sparse_cli(env, "kill", name, "-w", "0")
        # Until the worker JVM and its components are gone, so the next run starts clean.
        deadline = time.time() + 60
        while time.time() < deadline:
            listed = sparse_cli(env, "list", "--json")
            try:
                if all(t.get("name") != name for t in json.loads(listed.stdout or "[]")):
                    break
            except ValueError:
                pass
            time.sleep(0.5)
        # Nimbus forgets a killed topology before the Supervisor has stopped its worker, which
        # then shuts down for 2-3 s more: measured, it overlapped the start of the next run.
        while time.time() < deadline and storm_workers():
            time.sleep(0.25)
        time.sleep(1)
        sampler.stop()
    latency(m, stats.get("spout", {}).get("complete_latency_ms", float("nan")))
    m["failed"] = stats.get("spout", {}).get("failed", 0)
    m["peak_mib"] = sampler.peak_rss / 2**20
    return m


# --- main ----------------------------------------------------------------------------------

def latency(m, platform):
    """The spout's own measure when it has one, else the platform's figure (marked *)."""
    if "own_latency_ms" in m:
        m["latency_ms"] = m["own_latency_ms"]
        m["latency_src"] = ""
    else:
        m["latency_ms"] = platform
        m["latency_src"] = "*"
    return m


def fmt(values, spec):
    return " / ".join(spec % v for v in values)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build", help="the build folder (bin/sparse and the bench components)")
    ap.add_argument("--seconds", type=float, default=6, help="measured window per run")
    ap.add_argument("--warmup", type=float, default=4, help="seconds after the first tuple before the window")
    ap.add_argument("--rounds", type=int, default=1, help="run everything this many times, interleaved")
    ap.add_argument("--only", default=",".join(PIPELINES), help="pipelines: " + ",".join(PIPELINES))
    ap.add_argument("--runners", default=",".join(RUNNERS), help="runners: " + ",".join(RUNNERS))
    ap.add_argument("--nimbus", help="use this running cluster (with --cluster-dir, its state folder)")
    ap.add_argument("--cluster-dir", help="the folder of scripts/storm-cluster.sh start (its *.pid files)")
    ap.add_argument("--bootstrap", help="use this Kafka broker instead of starting one")
    ap.add_argument("--kafka-property", action="append", default=[], metavar="KEY=VALUE",
                    help="a librdkafka consumer property for sparse's kafka_spout (e.g. "
                         "queued.min.messages=100000, to see what its prefetch costs in memory)")
    ap.add_argument("--keep", action="store_true", help="keep every run's files (else only a failed run's)")
    ap.add_argument("--start-limit", type=int, default=180, help="seconds to wait for a first tuple")
    args = ap.parse_args()
    pipelines = [p for p in args.only.split(",") if p]
    runners = [r for r in args.runners.split(",") if r]
    for p in pipelines:
        if p not in PIPELINES:
            sys.exit("unknown pipeline %s (known: %s)" % (p, ", ".join(PIPELINES)))
    for r in runners:
        if r not in RUNNERS:
            sys.exit("unknown runner %s (known: %s)" % (r, ", ".join(RUNNERS)))
    if args.nimbus and not args.cluster_dir:
        sys.exit("--nimbus needs --cluster-dir (the cluster's processes are measured)")

    env = Env(args)
    if not os.path.exists(os.path.join(cache, "storm", "storm.py")):
        sys.exit("no storm.py in %s/storm: run scripts/peers.sh" % cache)
    if "local" in runners or "cluster" in runners:
        fetch_storm_side(env)
    if "cluster" in runners:
        start_cluster(env)
    if "kafka" in pipelines:
        # Enough input for 100,000 records/s over a run: one that runs out stalls its sink and
        # understates its throughput (sparse passed the 30,000/s this was sized for).
        start_kafka(env, int(max(200000, 100000 * (args.warmup + args.seconds + 10))))
    load_before = os.getloadavg()[0]

    results = {}
    runner_fns = {"sparse": run_sparse, "local": run_local, "cluster": run_cluster}
    try:
        for rnd in range(args.rounds):
            for kind in pipelines:
                for runner in runners:
                    tag = "%s-%s-%d-%d" % (kind.replace(".", ""), runner, rnd, int(time.time()) % 100000)
                    name = "bench-" + tag
                    tmp = tempfile.mkdtemp(prefix="sparse-bench-")
                    bench_dir = os.path.join(tmp, "progress")
                    os.makedirs(bench_dir)
                    topics = None
                    if kind == "kafka":
                        topics = (env.input_topic, "bench-out-" + tag, "bench-group-" + tag)
                    config, comps = pipeline(kind, args.build, bench_dir, env.bootstrap, topics,
                                             dict(p.split("=", 1) for p in args.kafka_property))
                    write_project(os.path.join(tmp, "project"), kind, name, config, comps)
                    log("storm bench: %s on %s (round %d) ..." % (kind, runner, rnd + 1))
                    try:
                        m = runner_fns[runner](env, kind, tmp, name, config, comps)
                        m["load"] = os.getloadavg()[0]
                        log("  %.0f tuples/s, %.1f µs CPU/tuple, %.0f MiB, first tuple %.2f s%s"
                            % (m["tuples_per_sec"], m["cpu_us"], m["peak_mib"], m["first_s"],
                               " (the sink stalled: input exhausted?)" if m["stalled"] else ""))
                        if not args.keep:
                            shutil.rmtree(tmp, ignore_errors=True)
                    except Exception as e:  # one failed run does not lose the others
                        log("  failed: %s (files kept in %s)" % (e, tmp))
                        m = None
                    results.setdefault((kind, runner), []).append(m)
    finally:
        if env.started_cluster:
            subprocess.run([os.path.join(root, "scripts", "storm-cluster.sh"), "stop", env.cluster_dir],
                           capture_output=True)
            shutil.rmtree(env.cluster_dir, ignore_errors=True)
        if env.kafka_dir:
            subprocess.run([os.path.join(root, "scripts", "kafka-server.sh"), "stop", env.kafka_dir],
                           capture_output=True)
    report(results, pipelines, runners, args, load_before)


def report(results, pipelines, runners, args, load_before):
    print()
    print("%s; --seconds %g --warmup %g --rounds %d; load average %.1f before, %.1f after; %d cores"
          % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), args.seconds, args.warmup,
             args.rounds, load_before, os.getloadavg()[0], os.cpu_count()))
    print()
    print("| pipeline | runner | tuples/s at sink | complete latency ms | CPU µs/tuple (all processes) "
          "| cores used | peak memory MiB (all processes) | start → first tuple s | spout fails |")
    print("|---|---|---|---|---|---|---|---|---|")
    best = {}
    for kind in pipelines:
        for runner in runners:
            rows = [m for m in results.get((kind, runner), []) if m]
            if not rows:
                print("| %s | %s | failed | | | | | | |" % (kind, runner))
                continue
            best[(kind, runner)] = {
                "tps": max(m["tuples_per_sec"] for m in rows),
                "mem": min(m["peak_mib"] for m in rows),
                "cpu": min(m["cpu_us"] for m in rows),
                "first": min(m["first_s"] for m in rows)}
            print("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                kind, runner, fmt([m["tuples_per_sec"] for m in rows], "%.0f"),
                " / ".join("%.1f%s" % (m["latency_ms"], m["latency_src"]) for m in rows), fmt([m["cpu_us"] for m in rows], "%.1f"),
                fmt([m["cores"] for m in rows], "%.2f"), fmt([m["peak_mib"] for m in rows], "%.0f"),
                fmt([m["first_s"] for m in rows], "%.2f"),
                fmt([m["failed"] for m in rows], "%d") + (" (stalled)" if any(m["stalled"] for m in rows) else "")))
    print()
    for kind in pipelines:
        rows = [m for m in results.get((kind, "sparse"), []) if m and "runtime_us" in m]
        if rows:
            print("%s: sparse's runtime process alone, CPU µs per tuple at the sink over the whole run: %s "
                  "(the rest of sparse's figure is the components)" % (kind, fmt([m["runtime_us"] for m in rows], "%.1f")))
    print()
    print("Complete latency: the spout's own measure (emit to ack) for the Python pipelines; * the "
          "platform's figure (sparse's statistics, Storm's 600 s window; nan: Storm reported none, "
          "as in local mode).")
    print()
    print("Ratios, sparse against each Storm runner (best run of each; targets: throughput ≥ 3, "
          "memory ≤ 0.10, sparse's first tuple < 0.5 s):")
    print()
    print("| pipeline | vs | throughput sparse/Storm | CPU per tuple sparse/Storm | memory sparse/Storm | first tuple sparse / Storm s |")
    print("|---|---|---|---|---|---|")
    for kind in pipelines:
        s = best.get((kind, "sparse"))
        for runner in runners:
            o = best.get((kind, runner))
            if runner == "sparse" or not s or not o:
                continue
            print("| %s | %s | %.2f%s | %.2f | %.3f%s | %.2f / %.2f%s |" % (
                kind, runner, s["tps"] / o["tps"], "" if s["tps"] >= 3 * o["tps"] else " (short)",
                s["cpu"] / o["cpu"], s["mem"] / o["mem"], "" if s["mem"] <= 0.1 * o["mem"] else " (short)",
                s["first"], o["first"], "" if s["first"] < 0.5 else " (short)"))


if __name__ == "__main__":
    sys.exit(main())
