"""Shared helpers for the tests that run sparse against Apache Storm's own multilang libraries.

Environment (set by tests/peers/CMakeLists.txt):
  SPARSE_BINARY     the `sparse` executable under test
  SPARSE_PEERS_DIR  the cache scripts/peers.sh fills (default ~/.cache/sparse-peers): storm/ holds
                    storm.py, storm.js and storm.rb from Storm's multilang jars, venv/ a
                    virtualenv with simplejson (which storm.py prefers to json when present)

Each run gets a sandbox folder holding the topology, our fixture components (components/) and
Storm's libraries beside them, as a Storm jar's resources/ folder would; components run with it
as their working directory and write what they saw to its out/ folder."""
import glob
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
COMPONENTS = os.path.join(HERE, "components")
STORM_LIBS = ("storm.py", "storm.js", "storm.rb")


def peers_dir():
    return os.environ.get("SPARSE_PEERS_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "sparse-peers")


def sparse_binary():
    return os.environ.get("SPARSE_BINARY", "")


def missing_prerequisites():
    """What this machine lacks to run the tests, as one message ('' when nothing)."""
    problems = []
    if not os.access(sparse_binary(), os.X_OK):
        problems.append("SPARSE_BINARY=%r is not an executable (build the `sparse` target)"
                        % sparse_binary())
    storm = os.path.join(peers_dir(), "storm")
    for lib in STORM_LIBS:
        if not os.path.isfile(os.path.join(storm, lib)):
            problems.append("%s/%s is missing: run scripts/peers.sh" % (storm, lib))
    if not os.access(venv_python(), os.X_OK):
        problems.append("%s is missing: run scripts/peers.sh" % venv_python())
    for tool in ("node", "ruby"):
        if shutil.which(tool) is None:
            problems.append("`%s` is not on PATH (scripts/setup.sh installs it)" % tool)
    return "; ".join(problems)


def venv_python():
    return os.path.join(peers_dir(), "venv", "bin", "python")


# --- data ----------------------------------------------------------------------------------------

# Words of many lengths (so direct emits by length reach every task), a few of them non-ASCII so
# that UTF-8 crosses every language's framing.
VOCABULARY = ("a an the cow jumped over moon apple day keeps doctor away four score and seven "
              "years ago storm spout bolt tuple stream café naïve über 東京 seventy "
              "dependencies multilang at most once exactly").split()


def sentences(prefix, count, seed):
    """`count` sentences [sid, text] with sids PREFIX-0000.., 3 to 9 words each."""
    rng = random.Random(seed)
    return [["%s-%04d" % (prefix, i),
             " ".join(rng.choice(VOCABULARY) for _ in range(rng.randint(3, 9)))]
            for i in range(count)]


def expected_counts(*sentence_lists):
    counts = {}
    for lst in sentence_lists:
        for _, text in lst:
            for word in text.split(" "):
                counts[word] = counts.get(word, 0) + 1
    return counts


def words_of(*sentence_lists):
    """Every (sid, index) -> word of the sentences."""
    return {(sid, i): w for lst in sentence_lists for sid, text in lst
            for i, w in enumerate(text.split(" "))}


# --- processes -----------------------------------------------------------------------------------

def cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def live_pids_in(folder):
    """Pids of live (non-zombie) processes whose working directory is `folder` or below."""
    folder = os.path.realpath(folder)
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cwd = os.readlink("/proc/%s/cwd" % name)
            with open("/proc/%s/stat" % name) as f:
                stat = f.read()
        except OSError:
            continue
        if stat[stat.rfind(")") + 2:][:1] == "Z":
            continue
        if cwd == folder or cwd.startswith(folder + "/"):
            out.append(int(name))
    return out


def die_with_parent():
    """preexec_fn: the child gets SIGKILL when the test process dies (a ctest timeout kills the
    test, not what it started)."""
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class CpuHog:
    """A busy loop on every core, beside the run under test (a context manager)."""

    def __enter__(self):
        self.procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                                       preexec_fn=die_with_parent)
                      for _ in range(os.cpu_count() or 2)]
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait()


# --- a run ---------------------------------------------------------------------------------------

class Sandbox:
    def __init__(self, test):
        self.test = test
        self.dir = tempfile.mkdtemp(prefix="sparse-peers-storm-")
        self.out = os.path.join(self.dir, "out")
        os.makedirs(self.out)
        for f in os.listdir(COMPONENTS):
            shutil.copy(os.path.join(COMPONENTS, f), self.dir)
        for lib in STORM_LIBS:
            shutil.copy(os.path.join(peers_dir(), "storm", lib), self.dir)
        self.proc = None
        self.stdout = self.stderr = ""

    def cleanup(self):
        for pid in live_pids_in(self.dir):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        shutil.rmtree(self.dir, ignore_errors=True)

    def write_json(self, name, value):
        # JSON is YAML: topologies are written this way too.
        with open(os.path.join(self.dir, name), "w", encoding="utf-8") as f:
            json.dump(value, f, ensure_ascii=False, indent=2)

    # The runtime.
    def start(self, *args):
        argv = [sparse_binary(), "run", "topo.yaml", "--stats-json", "stats.json"] + list(args)
        self.out_file = open(os.path.join(self.dir, "run.out"), "w")
        self.err_file = open(os.path.join(self.dir, "run.err"), "w")
        self.proc = subprocess.Popen(argv, cwd=self.dir, stdin=subprocess.DEVNULL,
                                     stdout=self.out_file, stderr=self.err_file,
                                     preexec_fn=die_with_parent)
        return self.proc

    def wait(self, timeout):
        """The run's exit code; a test failure (after killing it) when it outlives `timeout`."""
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            code = None
        self.out_file.close()
        self.err_file.close()
        with open(os.path.join(self.dir, "run.out"), errors="replace") as f:
            self.stdout = f.read()
        with open(os.path.join(self.dir, "run.err"), errors="replace") as f:
            self.stderr = f.read()
        if code is None:
            self.test.fail("sparse did not stop within %d s\n%s" % (timeout, self.diagnostics()))
        return code

    def run(self, *args, timeout=120):
        self.start(*args)
        return self.wait(timeout)

    def diagnostics(self, lines=40):
        text = "--- sparse stderr (tail) ---\n%s\n--- sparse stdout (tail) ---\n%s" % (
            "\n".join(self.stderr.splitlines()[-lines:]),
            "\n".join(self.stdout.splitlines()[-lines:]))
        for log in sorted(glob.glob(os.path.join(self.dir, "logs", "*.log"))):
            with open(log, errors="replace") as f:
                tail = f.read().splitlines()[-15:]
            text += "\n--- %s (tail) ---\n%s" % (os.path.basename(log), "\n".join(tail))
        return text

    def stats(self, component):
        with open(os.path.join(self.dir, "stats.json")) as f:
            for c in json.load(f)["components"]:
                if c["id"] == component:
                    return c
        self.test.fail("no component %s in stats.json" % component)

    # What the components wrote.
    def lines(self, pattern):
        """Every newline-ended JSON line of out/PATTERN files, as (file name, value)."""
        out = []
        for path in sorted(glob.glob(os.path.join(self.out, pattern))):
            with open(path, encoding="utf-8") as f:
                for line in f:
                    if line.endswith("\n") and line.strip():
                        out.append((os.path.basename(path), json.loads(line)))
        return out

    def acked_sids(self):
        return {sid for _, sid in self.lines("acked-*.jsonl")}

    def counts_by_task(self):
        """{counts file name: {word: {"count", "deliveries"}}} as the counting bolts wrote them."""
        out = {}
        for path in sorted(glob.glob(os.path.join(self.out, "counts-*.json"))):
            with open(path, encoding="utf-8") as f:
                out[os.path.basename(path)] = json.load(f)
        return out

    def pids_of(self, script):
        return sorted(p for p in live_pids_in(self.dir) if script in cmdline(p))

    def wait_for(self, what, predicate, timeout):
        """Polls `predicate` until true; fails the test when the run ends or time runs out first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = predicate()
            if value:
                return value
            if self.proc.poll() is not None:
                self.wait(0)
                self.test.fail("the run ended (exit %s) while waiting for %s\n%s" %
                               (self.proc.returncode, what, self.diagnostics()))
            time.sleep(0.02)
        self.test.fail("timed out waiting for %s\n%s" % (what, self.diagnostics()))
