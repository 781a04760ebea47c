"""A scripted multilang host for tests: spawns a real component process and speaks the
protocol to it over pipes, parsing the component's stdout strictly."""

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
ADAPTER_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "adapters", "python"))
COMPONENTS_DIR = os.path.join(HERE, "components")

TIMEOUT = 5.0  # default seconds to wait for any expected message


class _Closed:
    """Put in the message queue when the component closes its stdout."""


def _checked(message, command, fields):
    if not isinstance(message, dict) or message.get("command") != command:
        raise AssertionError("expected a %r command, got %r" % (command, message))
    for key, value in fields.items():
        if message.get(key) != value:
            raise AssertionError("expected %s=%r in %r" % (key, value, message))
    return message


class ScriptedHost:
    """One component process. Every read has a timeout, so a bug fails instead of hanging."""

    def __init__(self, argv, cwd=None):
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (ADAPTER_DIR, env.get("PYTHONPATH")) if p)
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=cwd or COMPONENTS_DIR, env=env)
        self.protocol_errors = []
        self._messages = queue.Queue()
        self._stderr = bytearray()
        self._stderr_lock = threading.Lock()
        self._pid_dir = tempfile.TemporaryDirectory(prefix="sparse-pids-")
        self._threads = [threading.Thread(target=self._read_stdout, daemon=True),
                         threading.Thread(target=self._read_stderr, daemon=True)]
        for thread in self._threads:
            thread.start()

    @classmethod
    def component(cls, script, *args):
        """Runs ``python3 components/<script> args...`` (with this interpreter)."""
        return cls([sys.executable, os.path.join(COMPONENTS_DIR, script)] + list(args))

    # ----------------------------------------------------------------- reading
    def _read_stdout(self):
        lines = []
        for raw in iter(self.proc.stdout.readline, b""):
            if not raw.endswith(b"\n") or raw.endswith(b"\r\n"):
                self.protocol_errors.append("line not terminated by a bare LF: %r" % raw)
            line = raw.rstrip(b"\r\n")
            if line != b"end":
                lines.append(line)
                continue
            frame = b"\n".join(lines)
            lines = []
            try:
                self._messages.put(json.loads(frame.decode("ascii")))
            except ValueError as exc:
                self.protocol_errors.append("not JSON (%s): %r" % (exc, frame))
        if lines:
            self.protocol_errors.append("unterminated output at EOF: %r" % b"\n".join(lines))
        self._messages.put(_Closed)

    def _read_stderr(self):
        for chunk in iter(lambda: self.proc.stderr.read1(4096), b""):
            with self._stderr_lock:
                self._stderr += chunk

    @property
    def stderr(self):
        with self._stderr_lock:
            return self._stderr.decode("utf-8", "replace")

    def recv(self, timeout=TIMEOUT):
        """The next message from the component; fails the test on timeout or closed stdout."""
        try:
            message = self._messages.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError("no message from the component within %.1f s; stderr:\n%s"
                                 % (timeout, self.stderr[-3000:])) from None
        if message is _Closed:
            self._messages.put(_Closed)
            raise AssertionError("the component closed its stdout; stderr:\n%s"
                                 % self.stderr[-3000:])
        return message

    def recv_command(self, command, timeout=TIMEOUT, **fields):
        """Receives the next message and checks its command and the given fields."""
        return _checked(self.recv(timeout), command, fields)

    def recv_command_after_syncs(self, command, timeout=TIMEOUT, **fields):
        """Like recv_command, skipping the syncs a busy bolt writes as signs of life."""
        message = self.recv(timeout)
        while message == {"command": "sync"}:
            message = self.recv(timeout)
        return _checked(message, command, fields)

    def assert_closed(self, timeout=TIMEOUT):
        """Checks that the component wrote nothing more and closed its stdout."""
        try:
            message = self._messages.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError("the component did not close its stdout") from None
        if message is not _Closed:
            raise AssertionError("unexpected message %r" % (message,))

    # ----------------------------------------------------------------- writing
    def send(self, message):
        self.send_raw(json.dumps(message).encode("utf-8") + b"\nend\n")

    def send_raw(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send_tuple(self, tup_id, values, comp="source", stream="default", task=3):
        self.send({"id": tup_id, "comp": comp, "stream": stream, "task": task, "tuple": values})

    def send_tick(self, tup_id="tick-1", freq=5):
        self.send({"id": tup_id, "comp": "__system", "stream": "__tick", "task": -1,
                   "tuple": [freq]})

    def send_heartbeat(self, tup_id="hb-1"):
        self.send({"id": tup_id, "comp": None, "stream": "__heartbeat", "task": -1,
                   "tuple": []})

    def handshake(self, conf=None, context=None, component_id="comp", task_id=4):
        """Sends the setup message; checks the pid reply and the pid file. Returns the pid."""
        pid_dir = self._pid_dir.name
        if context is None:
            context = {"taskid": task_id, "componentid": component_id,
                       "task->component": {str(task_id): component_id, "7": "sink"},
                       "streams": ["default"],
                       "stream->outputfields": {"default": ["word"]}}
        self.send({"pidDir": pid_dir, "conf": conf if conf is not None else {},
                   "context": context})
        reply = self.recv()
        if reply != {"pid": self.proc.pid}:
            raise AssertionError("expected {'pid': %d}, got %r" % (self.proc.pid, reply))
        pid_file = os.path.join(pid_dir, str(self.proc.pid))
        if not os.path.isfile(pid_file) or os.path.getsize(pid_file) != 0:
            raise AssertionError("no empty pid file %s" % pid_file)
        return reply["pid"]

    # ----------------------------------------------------------------- ending
    def close_stdin(self):
        self.proc.stdin.close()

    def wait(self, timeout=TIMEOUT):
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError("the component did not exit; stderr:\n%s"
                                 % self.stderr[-3000:]) from None

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for thread in self._threads:
            thread.join(TIMEOUT)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except (OSError, ValueError):
                pass
        self._pid_dir.cleanup()


class HostTestCase:
    """Mixin for unittest.TestCase: ``self.start(script)`` and strict checks at the end."""

    def start(self, script, *args):
        """Runs ``components/<script> args...``."""
        return self.start_argv(None, script=script, args=args)

    def start_argv(self, argv, cwd=None, script=None, args=()):
        """Runs ``argv`` in ``cwd`` (default: the components directory)."""
        host = ScriptedHost(argv, cwd) if argv else ScriptedHost.component(script, *args)
        self.addCleanup(self._check_protocol, host)  # cleanups run last-in first-out
        self.addCleanup(host.close)
        return host

    def _check_protocol(self, host):
        self.assertEqual(host.protocol_errors, [], "the component corrupted its stdout")
