"""Framing of Storm's JSON multilang protocol.

A message is one JSON document followed by a line that is exactly ``end``. Incoming lines may
end in ``\\n``, ``\\r\\n`` or ``\\r`` and a message may span several lines. Outgoing messages are
written as ``<json>\\nend\\n``.

Output written with ``hold=True`` (the component's own thread, answering what it read) may wait
in the buffer, so that a burst of input is answered with a few large writes instead of a pipe
write, and a host wake-up, per message. It is flushed before the reader waits for more input,
once held for ``HOLD_SECONDS``, and by any message sent without ``hold``.

``MessageReader`` is used by one thread at a time. ``MessageWriter`` is shared by every thread of a
component (the bolt's reader thread answers heartbeats); its lock keeps messages whole.
"""

import json
import re
import threading
import time

__all__ = ["ProtocolError", "HostGone", "MessageReader", "MessageWriter", "encode_message"]

_END = b"end"
_EOL = re.compile(rb"[\r\n]")
_CHUNK = 64 * 1024
# How sparse and Storm write every message: a one-line document, then "end" on its own line.
_TERMINATOR = b"\nend\n"


def _make_encode():
    """A function from a message to its compact JSON text (ASCII, NaN refused).

    json.dumps with non-default options builds an encoder per call, and JSONEncoder.encode
    builds its C encoder per call; this builds the C encoder once (json's own accelerator, the
    one JSONEncoder uses), which halves the cost of a small message. Without the accelerator,
    one JSONEncoder does the same work in Python.
    """
    encoder = json.JSONEncoder(separators=(",", ":"), allow_nan=False)
    try:
        from json.encoder import c_make_encoder, encode_basestring_ascii
    except ImportError:
        c_make_encoder = None
    if c_make_encoder is None:
        return encoder.encode
    # No cycle check (markers=None): a self-referencing message ends in RecursionError.
    c_encode = c_make_encoder(None, encoder.default, encode_basestring_ascii, None, ":", ",",
                              False, False, False)
    return lambda message: "".join(c_encode(message, 0))


_encode = _make_encode()


class ProtocolError(Exception):
    """The host sent something that is not a well-formed multilang message."""


class HostGone(BaseException):
    """The host closed our stdin or stdout: the component must stop.

    A BaseException so that user code's ``except Exception`` cannot swallow a shutdown.
    """


HOLD_SECONDS = 0.05


class MessageReader:
    """Reads framed messages from a binary stream (ideally an ``io.BufferedReader``).

    ``before_wait`` is called before each read from the stream, which may block: the component
    flushes its held output there, so the host never waits for an answer sitting in a buffer.
    """

    def __init__(self, stream, before_wait=None):
        self._stream = stream
        self._before_wait = before_wait
        self._read = getattr(stream, "read1", stream.read)
        self._buf = bytearray()
        self._scanned = 0  # bytes of _buf already known to hold no line terminator
        self._eof = False
        self._skip_lf = False  # the last line ended in a bare '\r'; drop a following '\n'

    def _fill(self):
        if self._eof:
            return False
        if self._before_wait is not None:
            self._before_wait()
        chunk = self._read(_CHUNK)
        if not chunk:
            self._eof = True
            return False
        self._buf += chunk
        return True

    def read_line(self):
        """Returns the next line without its terminator, or None at end of input."""
        if self._skip_lf:
            if not self._buf:
                self._fill()
            if self._buf[:1] == b"\n":
                del self._buf[:1]
            self._skip_lf = False
        while True:
            match = _EOL.search(self._buf, self._scanned)
            if match is not None:
                break
            self._scanned = len(self._buf)
            if not self._fill():
                if not self._buf:
                    return None
                line = bytes(self._buf)  # last line without a terminator
                self._buf.clear()
                self._scanned = 0
                return line
        start = match.start()
        line = bytes(self._buf[:start])
        consumed = start + 1
        if self._buf[start:start + 1] == b"\r":
            if start + 1 < len(self._buf):
                if self._buf[start + 1:start + 2] == b"\n":
                    consumed += 1
            else:
                self._skip_lf = True
        del self._buf[:consumed]
        self._scanned = 0
        return line

    def read_frame(self):
        """Returns the raw text of the next message (lines joined by '\\n'), or None at EOF.

        Frames holding only whitespace are skipped. End of input inside a frame counts as end
        of input: the host went away mid-message.
        """
        while True:
            frame = self._buffered_frame()
            if frame is None:
                break
            if frame.strip():
                return frame
        lines = []
        while True:
            line = self.read_line()
            if line is None:
                return None
            if line == _END:
                frame = b"\n".join(lines)
                if frame.strip():
                    return frame
                lines = []
                continue
            lines.append(line)

    def _buffered_frame(self):
        """The next frame when the buffer holds it in the usual shape ("...\\nend\\n", no '\\r'
        before it): one search instead of a line at a time. None means: read line by line."""
        buf = self._buf
        if self._skip_lf or buf.startswith(b"end"):
            return None
        end = buf.find(_TERMINATOR)
        if end < 0 or buf.find(b"\r", 0, end) >= 0:
            return None
        frame = bytes(buf[:end])
        del buf[:end + len(_TERMINATOR)]
        self._scanned = 0
        return frame

    def read_message(self):
        """Returns the next decoded message (a dict or a list), or None at end of input."""
        frame = self.read_frame()
        if frame is None:
            return None
        try:
            message = json.loads(frame.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise ProtocolError("malformed message from host (%s): %r" % (exc, _preview(frame)))
        if not isinstance(message, (dict, list)):
            raise ProtocolError("message from host is neither an object nor an array: %r"
                                % _preview(frame))
        return message


def encode_message(message):
    """Encodes one message with its terminator.

    Output is plain ASCII JSON (non-ASCII characters escaped) and refuses NaN/Infinity, which
    are not JSON: a value the host could misread fails here, in the caller's code, instead.
    """
    return _encode(message).encode("ascii") + _TERMINATOR


class MessageWriter:
    """Writes framed messages to a binary stream; safe to share between threads."""

    def __init__(self, stream):
        self._stream = stream
        self._lock = threading.Lock()
        self.last_write = time.monotonic()  # last flush; read by the bolt's watchdog
        self.held_since = None  # when the oldest held output was written; None: nothing held

    def send(self, message, hold=False):
        """Writes ``message``; flushes unless ``hold`` (see the module's docstring)."""
        data = encode_message(message)  # outside the lock: may raise on bad values
        with self._lock:
            try:
                self._stream.write(data)
                if hold:
                    now = time.monotonic()
                    if self.held_since is None:
                        self.held_since = now
                        return
                    if now - self.held_since < HOLD_SECONDS:
                        return
                self._flush_locked()
            except (BrokenPipeError, ValueError) as exc:  # ValueError: stream already closed
                raise HostGone("host closed the component's stdout: %s" % exc)

    def flush(self):
        """Writes out held output, if any."""
        if self.held_since is None:
            return
        with self._lock:
            try:
                if self.held_since is not None:
                    self._flush_locked()
            except (BrokenPipeError, ValueError) as exc:
                raise HostGone("host closed the component's stdout: %s" % exc)

    def _flush_locked(self):
        self._stream.flush()
        self.last_write = time.monotonic()
        self.held_since = None


def _preview(data, limit=200):
    return bytes(data[:limit]) + (b"..." if len(data) > limit else b"")
