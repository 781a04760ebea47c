"""A scripted multilang host for tests: spawns a real component process and speaks the
protocol to it over pipes, parsing the component's stdout strictly.

It speaks JSON (Storm's framing) or MessagePack (pystorm's: back-to-back msgpack values);
MessagePack needs the ``msgpack`` package in the interpreter running the tests.
"""

import array
import fcntl
import functools
import json
import os
import queue
import subprocess
import sys
import tempfile
import termios
import threading
import time
import unittest

try:
    import msgpack
except ImportError:
    msgpack = None

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


SERIALIZERS = ("json", "msgpack")


def json_only(test):
    """Marks a test of JSON framing: skipped when the test case's ``serializer`` is another."""
    @functools.wraps(test)
    def wrapper(self, *args, **kwargs):
        if self.serializer != "json":
            raise unittest.SkipTest("tests JSON framing")
        return test(self, *args, **kwargs)
    return wrapper


class ScriptedHost:
    """One component process. Every read has a timeout, so a bug fails instead of hanging.

    ``serializer``: "json" or "msgpack", the format this host speaks (the component detects it).
    ``pythonpath``: extra directories put before the adapter on the component's PYTHONPATH.
    """

    def __init__(self, argv, cwd=None, serializer="json", pythonpath=()):
        if serializer not in SERIALIZERS:
            raise ValueError("unknown serializer %r" % (serializer,))
        if serializer == "msgpack" and msgpack is None:
            raise unittest.SkipTest("msgpack is not importable by %s" % sys.executable)
        self.serializer = serializer
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (*pythonpath, ADAPTER_DIR, env.get("PYTHONPATH")) if p)
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=cwd or COMPONENTS_DIR, env=env)
        self.protocol_errors = []
        self.stdout_bytes = 0  # bytes the component wrote to its stdout so far
        self._messages = queue.Queue()
        self._stderr = bytearray()
        self._stderr_lock = threading.Lock()
        self._pid_dir = tempfile.TemporaryDirectory(prefix="sparse-pids-")
        read_stdout = self._read_stdout_msgpack if serializer == "msgpack" else self._read_stdout
        self._threads = [threading.Thread(target=read_stdout, daemon=True),
                         threading.Thread(target=self._read_stderr, daemon=True)]
        for thread in self._threads:
            thread.start()

    @classmethod
    def component(cls, script, *args, **kwargs):
        """Runs ``python3 components/<script> args...`` (with this interpreter)."""
        return cls([sys.executable, os.path.join(COMPONENTS_DIR, script)] + list(args), **kwargs)

    # ----------------------------------------------------------------- reading
    def _read_stdout_msgpack(self):
        # Strict: every value must be a map (a component never sends anything else), strings
        # must be valid UTF-8 str, and the output must end on a message boundary.
        unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
        fed = 0
        for chunk in iter(lambda: self.proc.stdout.read1(65536), b""):
            unpacker.feed(chunk)
            fed += len(chunk)
            self.stdout_bytes = fed
            try:
                for message in unpacker:
                    if not isinstance(message, dict):
                        self.protocol_errors.append("not a msgpack map: %r" % (message,))
                    self._messages.put(message)
            except Exception as exc:
                self.protocol_errors.append("not MessagePack (%s: %s) at byte %d"
                                            % (type(exc).__name__, exc, unpacker.tell()))
                break
        if unpacker.tell() != fed:
            self.protocol_errors.append("unterminated output at EOF: %d bytes"
                                        % (fed - unpacker.tell()))
        self._messages.put(_Closed)

    def _read_stdout(self):
        lines = []
        for raw in iter(self.proc.stdout.readline, b""):
            self.stdout_bytes += len(raw)
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
    def encode(self, message):
        """``message`` as this host writes it: JSON and an ``end`` line, or one msgpack value."""
        if self.serializer == "msgpack":
            return msgpack.packb(message, use_bin_type=True)
        return json.dumps(message).encode("utf-8") + b"\nend\n"

    def malformed(self):
        """Bytes that are not a message in this host's format."""
        return b"\xc1" if self.serializer == "msgpack" else b"this is not json\nend\n"

    def send(self, message):
        self.send_raw(self.encode(message))

    #: When set, ``send_raw`` writes this many bytes at a time, pausing ``write_pause`` seconds
    #: after each piece, so that the component's reads split messages.
    write_step = None
    write_pause = 0.002

    def send_raw(self, data):
        step = self.write_step or len(data) or 1
        for start in range(0, len(data), step):
            if start:
                time.sleep(self.write_pause)
            self.proc.stdin.write(data[start:start + step])
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

    def wait_until_read(self, timeout=TIMEOUT):
        """Waits until the component has read everything sent so far (the pipe is empty), so
        that what is sent next reaches it in another read."""
        deadline = time.monotonic() + timeout
        unread = array.array("i", [0])
        while True:
            fcntl.ioctl(self.proc.stdin.fileno(), termios.FIONREAD, unread)
            if unread[0] == 0:
                return
            if time.monotonic() > deadline:
                raise AssertionError("the component did not read its input; stderr:\n%s"
                                     % self.stderr[-3000:])
            time.sleep(0.005)

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
    """Mixin for unittest.TestCase: ``self.start(script)`` and strict checks at the end.

    ``serializer`` (class attribute): the format the hosts of this test case speak.
    """

    serializer = "json"

    def start(self, script, *args, **kwargs):
        """Runs ``components/<script> args...``."""
        return self.start_argv(None, script=script, args=args, **kwargs)

    def start_argv(self, argv, cwd=None, script=None, args=(), serializer=None, pythonpath=()):
        """Runs ``argv`` in ``cwd`` (default: the components directory)."""
        options = {"serializer": serializer or self.serializer, "pythonpath": pythonpath}
        if argv:
            host = ScriptedHost(argv, cwd, **options)
        else:
            host = ScriptedHost.component(script, *args, **options)
        self.addCleanup(self._check_protocol, host)  # cleanups run last-in first-out
        self.addCleanup(host.close)
        return host

    def _check_protocol(self, host):
        self.assertEqual(host.protocol_errors, [], "the component corrupted its stdout")
