"""Reading and writing multilang messages, in whichever format the host speaks.

``open_reader`` learns the format from the first byte of the first message (the handshake;
see ``serializers.detect``) and returns a reader of that format; the component hands its
``serializer`` to the writer (``MessageWriter.use``), so it answers in the same format. Nothing
else in the adapter knows which format is in use.

Output written with ``hold=True`` (the component's own thread, answering what it read) may wait
in the buffer, so that a burst of input is answered with a few large writes instead of a pipe
write, and a host wake-up, per message. It is flushed before the reader waits for more input,
once held for ``HOLD_SECONDS``, and by any message sent without ``hold``.

A reader is used by one thread at a time. ``MessageWriter`` is shared by every thread of a
component (the bolt's reader thread answers heartbeats); its lock keeps messages whole, and
serializes the use of the encoder (msgpack's Packer is not thread-safe).
"""

import threading
import time

from . import serializers
from .errors import HostGone, ProtocolError, SerializerUnavailable
from .serializers import JSON, encode_json

__all__ = ["ProtocolError", "HostGone", "SerializerUnavailable", "open_reader",
           "MessageWriter", "encode_message"]

HOLD_SECONDS = 0.05

# Storm's JSON framing: <json>\nend\n (kept under its old name).
encode_message = encode_json


def open_reader(stream, before_wait=None):
    """Reads the first bytes the host sent, tells its format, and returns that format's
    reader (``reader.serializer`` names it; ``reader.read_message()`` returns the next message,
    the handshake first, or None at end of input). None: end of input before any message.

    ``before_wait`` is called before each read from the stream, which may block: the component
    flushes its held output there, so the host never waits for an answer sitting in a buffer.
    Raises ProtocolError when the first message is in neither format, and
    SerializerUnavailable when it is MessagePack and ``msgpack`` cannot be imported.
    """
    source = serializers.ChunkReader(stream, before_wait)
    data = b""
    while True:
        chunk = source.read_chunk()
        if not chunk:
            return None  # end of input before (or inside) the first message
        data += chunk
        serializer = serializers.detect(data)
        if serializer is not None:
            return serializer.reader(stream, before_wait, data)


class MessageWriter:
    """Writes messages to a binary stream; safe to share between threads.

    It writes JSON until ``use(serializer)`` picks another format.
    """

    def __init__(self, stream, serializer=JSON):
        self._stream = stream
        self._lock = threading.Lock()
        self.serializer = serializer
        self._encode = serializer.encoder()
        self._encode_ack = serializer.ack_encoder(self._encode)
        self._encode_emit = serializer.emit_encoder(self._encode)
        self.last_write = time.monotonic()  # last flush; read by the bolt's watchdog
        self.held_since = None  # when the oldest held output was written; None: nothing held

    def use(self, serializer):
        """Writes every later message with ``serializer``."""
        with self._lock:
            self._encode = serializer.encoder()
            self._encode_ack = serializer.ack_encoder(self._encode)
            self._encode_emit = serializer.emit_encoder(self._encode)
            self.serializer = serializer

    def send(self, message, hold=False):
        """Writes ``message``; flushes unless ``hold`` (see the module's docstring).

        A message the format cannot carry (NaN in JSON, bytes in JSON, an int beyond 64 bits
        in MessagePack, an object of an unknown type) raises here and writes nothing.
        """
        with self._lock:  # the encoder may keep state (msgpack's Packer)
            encode = self._encode  # an attribute load, cheaper than self._encode(...)
            self._write_locked(encode(message), hold)

    def send_ack(self, tup_id, hold=False):
        """``send({"command": "ack", "id": tup_id}, hold)``, through the format's shortcut."""
        with self._lock:
            encode_ack = self._encode_ack
            self._write_locked(encode_ack(tup_id), hold)

    def send_emit(self, stream, values, anchors, hold=False):
        """``send`` of a bolt's usual emit: {"command": "emit", "stream": stream, "tuple": values,
        "need_task_ids": False}, plus "anchors" unless ``anchors`` is None; through the format's
        shortcut."""
        with self._lock:
            encode_emit = self._encode_emit
            self._write_locked(encode_emit(stream, values, anchors), hold)

    def _write_locked(self, data, hold):
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
