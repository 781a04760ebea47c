"""Framing of Storm's JSON multilang protocol.

A message is one JSON document followed by a line that is exactly ``end``. Incoming lines may
end in ``\\n``, ``\\r\\n`` or ``\\r`` and a message may span several lines. Outgoing messages are
written as ``<json>\\nend\\n`` and flushed at once.

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


class ProtocolError(Exception):
    """The host sent something that is not a well-formed multilang message."""


class HostGone(BaseException):
    """The host closed our stdin or stdout: the component must stop.

    A BaseException so that user code's ``except Exception`` cannot swallow a shutdown.
    """


class MessageReader:
    """Reads framed messages from a binary stream (ideally an ``io.BufferedReader``)."""

    def __init__(self, stream):
        self._stream = stream
        self._read = getattr(stream, "read1", stream.read)
        self._buf = bytearray()
        self._scanned = 0  # bytes of _buf already known to hold no line terminator
        self._eof = False
        self._skip_lf = False  # the last line ended in a bare '\r'; drop a following '\n'

    def _fill(self):
        if self._eof:
            return False
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
    text = json.dumps(message, separators=(",", ":"), allow_nan=False)
    return text.encode("ascii") + b"\nend\n"


class MessageWriter:
    """Writes framed messages to a binary stream; safe to share between threads."""

    def __init__(self, stream):
        self._stream = stream
        self._lock = threading.Lock()
        self.last_write = time.monotonic()  # read by the bolt's watchdog

    def send(self, message):
        data = encode_message(message)  # outside the lock: may raise on bad values
        with self._lock:
            try:
                self._stream.write(data)
                self._stream.flush()
                self.last_write = time.monotonic()
            except (BrokenPipeError, ValueError) as exc:  # ValueError: stream already closed
                raise HostGone("host closed the component's stdout: %s" % exc)


def _preview(data, limit=200):
    return bytes(data[:limit]) + (b"..." if len(data) > limit else b"")
