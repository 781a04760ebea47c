"""Keeps the protocol streams away from everything else in the process.

``take_over_stdio()`` runs once per process, before the handshake:
- the real stdout is duplicated for the protocol and fd 1 is pointed at fd 2, so C extensions and
  child processes that write to stdout end up on stderr instead of corrupting the protocol;
- ``sys.stdout`` becomes a text stream that turns each printed line into a ``log`` command;
- the real stdin is duplicated for the protocol and fd 0 is pointed at /dev/null, so nothing
  else in the process (or a child process) can consume protocol input.
The duplicated descriptors are not inheritable, so child processes never see the protocol pipes.
"""

import io
import os
import sys
import threading

from .protocol import HostGone

__all__ = ["take_over_stdio", "PrintToLog"]

_MAX_HELD_LINES = 1000

_lock = threading.Lock()
_streams = None  # (binary input, binary output) once taken over


def take_over_stdio():
    """Returns ``(input, output)``: binary streams on the original stdin and stdout.

    Idempotent: later calls return the same streams.
    """
    global _streams
    with _lock:
        if _streams is not None:
            return _streams
        sys.stdout.flush()
        protocol_out = os.dup(1)
        protocol_in = os.dup(0)
        os.dup2(2, 1)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        sys.stdin = open(os.devnull, "r")
        sys.stdout = PrintToLog()
        _streams = (os.fdopen(protocol_in, "rb"), os.fdopen(protocol_out, "wb"))
        return _streams


def print_sink():
    """The ``PrintToLog`` installed as sys.stdout, or None when stdio was not taken over."""
    return sys.stdout if isinstance(sys.stdout, PrintToLog) else None


class PrintToLog(io.TextIOBase):
    """A line-buffered text stream that hands each complete line to a sink.

    Lines written before a sink is attached (before the handshake completed) are held, up to
    a bound, and delivered on ``attach``. Empty lines are dropped. Thread-safe.
    """

    def __init__(self):
        super().__init__()
        self._lock = threading.Lock()
        self._partial = ""
        self._sink = None
        self._held = []
        self._dropped = 0

    @property
    def encoding(self):
        return "utf-8"

    @property
    def errors(self):
        return "strict"

    def writable(self):
        return True

    def isatty(self):
        return False

    def fileno(self):
        # fd 1 now points at stderr: raw writes to it are harmless.
        return 1

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError("write() argument must be str, not %s" % type(text).__name__)
        with self._lock:
            pending = self._partial + text
            *lines, self._partial = pending.split("\n")
            self._deliver(lines)
        return len(text)

    def flush(self):
        with self._lock:
            if self._partial:
                lines, self._partial = [self._partial], ""
                self._deliver(lines)

    def attach(self, sink):
        """Sends every later line, and the lines held so far, to ``sink(line)``."""
        with self._lock:
            self._sink = sink
            held, self._held = self._held, []
            if self._dropped:
                held.append("[%d earlier printed lines dropped]" % self._dropped)
                self._dropped = 0
            self._deliver(held)

    def detach(self):
        with self._lock:
            self._sink = None

    def _deliver(self, lines):
        for line in lines:
            line = line.rstrip("\r")
            if not line:
                continue
            if self._sink is None:
                if len(self._held) < _MAX_HELD_LINES:
                    self._held.append(line)
                else:
                    self._dropped += 1
                continue
            try:
                self._sink(line)
            except (Exception, HostGone):  # print() must not fail because the host is gone
                self._sink = None
