"""Runs topologies of real pystorm components (components.py) under the real `sparse` binary.

Environment:
  SPARSE_BINARY     the sparse executable (set by CMake)
  SPARSE_PEERS_DIR  where scripts/peers.sh keeps the peers virtualenv (default
                    ~/.cache/sparse-peers); its venv/bin/python runs the components.

The test runner itself needs only the standard library; pystorm is imported by the components
alone, in the peers virtualenv, as a user's topology would.
"""
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
COMPONENTS = "components.py"
FIXTURES = (COMPONENTS, "payload.py")  # copied into each sandbox

# Every run has a time limit (-t) and the process a deadline above it: a stalled topology fails
# the test, it never hangs it.
HANG_MARGIN_S = 30


def sparse_binary():
    path = os.environ.get("SPARSE_BINARY")
    if not path or not os.access(path, os.X_OK):
        raise AssertionError("SPARSE_BINARY (%r) is not an executable" % (path,))
    return path


def peers_python():
    root = os.environ.get("SPARSE_PEERS_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "sparse-peers")
    return os.path.join(root, "venv", "bin", "python")


def check_peers_python():
    """Fails (not skips) when the peers virtualenv lacks pystorm: these tests exist to prove
    pystorm runs, and a silent skip would prove nothing."""
    python = peers_python()
    probe = subprocess.run([python, "-c", "import pystorm, msgpack, simplejson, six; "
                            "print(pystorm.__version__)"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) \
        if os.path.exists(python) else None
    if probe is None or probe.returncode != 0:
        raise AssertionError(
            "%s cannot import pystorm/msgpack/simplejson/six (run scripts/peers.sh, or set "
            "SPARSE_PEERS_DIR)%s" % (python, "" if probe is None else ":\n" + probe.stdout))
    return probe.stdout.strip()


def component(cid, cls, serializer="json", **fields):
    """A topology entry running components.py's CLASS with the peers interpreter. With msgpack,
    the component is constructed with serializer="msgpack" and the entry says so to sparse."""
    entry = {"id": cid, "command": [peers_python(), COMPONENTS, cls, serializer]}
    if serializer != "json":
        entry["serializer"] = serializer
    entry.update(fields)
    return entry


def inputs(source, grouping="shuffle", fields=None):
    i = {"from": source, "grouping": grouping}
    if fields:
        i["fields"] = fields
    return [i]


class Run(object):
    """One finished `sparse run`: exit code, output, and the --stats-json document."""

    def __init__(self, code, out, err, stats):
        self.code, self.out, self.err, self.stats = code, out, err, stats

    def component(self, cid):
        for c in (self.stats or {}).get("components", []):
            if c["id"] == cid:
                return c
        raise AssertionError("no component %r in the stats: %r" % (cid, self.stats))

    def describe(self):
        return "exit %s\n--- stdout\n%s\n--- stderr\n%s" % (self.code, self.out[-4000:],
                                                            self.err[-6000:])


class SparseTestCase(unittest.TestCase):
    """A sandbox per test: the topology file, a copy of components.py (the resources folder is
    the topology's folder, so commands name it relatively, as users do), out/ for what components
    record, and logs/ written by sparse."""

    @classmethod
    def setUpClass(cls):
        cls.sparse = sparse_binary()
        cls.pystorm_version = check_peers_python()

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="sparse-pystorm-")
        self.out = os.path.join(self.dir, "out")
        os.mkdir(self.out)
        for name in FIXTURES:
            shutil.copy(os.path.join(HERE, name), self.dir)
        self.procs = []

    def tearDown(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        for pid in self.processes_inside():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if os.environ.get("SPARSE_KEEP_SANDBOX"):
            print("sandbox kept: %s" % self.dir)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)

    # ----------------------------------------------------------------------------- running

    def write_topology(self, name, spouts, bolts, config=None):
        # JSON is YAML: the topology is built as data and written in flow style.
        topo = {"name": name, "spouts": spouts, "bolts": bolts}
        if config:
            topo["config"] = config
        with open(os.path.join(self.dir, "topo.yaml"), "w") as f:
            json.dump(topo, f, indent=2)

    def argv(self, limit_s, idle_s, options):
        argv = [self.sparse, "run", "topo.yaml", "-t", str(limit_s),
                "--stats-json", os.path.join(self.dir, "stats.json"),
                "-o", "test.out=" + self.out, "--no-ui",
                # Bounds the drain when a broken runtime hits -t with trees pending.
                "--wait", "10"]
        if idle_s:
            argv += ["--stop-when-idle", str(idle_s)]
        for key, value in (options or {}).items():
            argv += ["-o", "%s=%s" % (key, json.dumps(value))]
        return argv

    def start(self, limit_s=60, idle_s=2, options=None):
        """Starts sparse in the background; finish() waits for it."""
        self.stdout_path = os.path.join(self.dir, "sparse.out")
        self.stderr_path = os.path.join(self.dir, "sparse.err")
        with open(self.stdout_path, "w") as out, open(self.stderr_path, "w") as err:
            p = subprocess.Popen(self.argv(limit_s, idle_s, options), cwd=self.dir,
                                 stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        p.limit_s = limit_s
        self.procs.append(p)
        return p

    def finish(self, p):
        try:
            code = p.wait(timeout=p.limit_s + HANG_MARGIN_S)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            code = "killed: sparse outlived its -t limit by %d s" % HANG_MARGIN_S
        stats = None
        stats_path = os.path.join(self.dir, "stats.json")
        if os.path.exists(stats_path):
            with open(stats_path) as f:
                stats = json.load(f)
        with open(self.stdout_path) as out, open(self.stderr_path) as err:
            return Run(code, out.read(), err.read(), stats)

    def run_topology(self, limit_s=60, idle_s=2, options=None):
        """Runs to completion and checks the things every run must get right: exit 0, stats
        written, and no component process outliving the runtime."""
        run = self.finish(self.start(limit_s, idle_s, options))
        self.assertEqual(run.code, 0, run.describe())
        self.assertIsNotNone(run.stats, "no --stats-json written\n" + run.describe())
        self.assertEqual(self.processes_inside(), [], "a component outlived the runtime")
        return run

    # ----------------------------------------------------------------------------- results

    def lines(self, prefix):
        """Every whole JSON line of out/<prefix>-<task>.jsonl, all tasks."""
        found = []
        for path in sorted(glob.glob(os.path.join(self.out, prefix + "-*.jsonl"))):
            if not re.fullmatch(re.escape(prefix) + r"-\d+\.jsonl", os.path.basename(path)):
                continue
            with open(path) as f:
                text = f.read()
            for line in text.split("\n")[:-1]:  # a line still being written has no "\n" yet
                if line:
                    found.append(json.loads(line))
        return found

    def log_text(self, cid):
        path = os.path.join(self.dir, "logs", cid + ".log")
        self.assertTrue(os.path.exists(path), "no log file %s; logs/ holds %r" % (
            path, os.listdir(os.path.join(self.dir, "logs"))
            if os.path.isdir(os.path.join(self.dir, "logs")) else None))
        with open(path, errors="replace") as f:
            return f.read()

    def assert_each_once(self, numbers, count, what):
        """numbers holds each of 0..count-1 exactly once."""
        seen = {}
        for n in numbers:
            seen[n] = seen.get(n, 0) + 1
        missing = [n for n in range(count) if n not in seen]
        extra = sorted(n for n in seen if not (isinstance(n, int) and 0 <= n < count))
        twice = sorted(n for n, c in seen.items() if c > 1)
        self.assertEqual((missing[:20], len(missing), extra[:20], twice[:20], len(twice)),
                         ([], 0, [], [], 0),
                         "%s: (missing, how many, unexpected, duplicated, how many)" % what)

    def assert_each_at_least_once(self, numbers, count, what):
        seen = set(numbers)
        missing = [n for n in range(count) if n not in seen]
        extra = sorted(n for n in seen if not (isinstance(n, int) and 0 <= n < count))
        self.assertEqual((missing[:20], len(missing), extra[:20]), ([], 0, []),
                         "%s: (missing, how many, unexpected)" % what)

    def spout_events(self, spout):
        """(acked ids, failed ids) that the NumberSpout component `spout` was told."""
        events = self.lines("acks-" + spout)
        return ([e[1] for e in events if e[0] == "ack"], [e[1] for e in events if e[0] == "fail"])

    # ----------------------------------------------------------------------------- processes

    def processes_inside(self):
        """Live processes whose working directory is the sandbox (components run there)."""
        found = []
        real = os.path.realpath(self.dir)
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                cwd = os.readlink("/proc/%s/cwd" % name)
                with open("/proc/%s/stat" % name) as f:
                    stat = f.read()
            except OSError:
                continue
            if stat[stat.rfind(")") + 2:].startswith("Z"):
                continue
            if cwd == real or cwd.startswith(real + "/"):
                found.append(int(name))
        return found

    def component_pids(self, cls):
        """pids of running components.py processes of class cls."""
        pids = []
        for pid in self.processes_inside():
            try:
                with open("/proc/%d/cmdline" % pid, "rb") as f:
                    argv = f.read().split(b"\0")
            except OSError:
                continue
            if COMPONENTS.encode() in argv and cls.encode() in argv:
                pids.append(pid)
        return pids

    def wait_for(self, predicate, timeout_s, what):
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if predicate():
                return
            time.sleep(0.05)
        self.fail("timed out after %d s waiting for %s" % (timeout_s, what))
