"""The wire formats of the multilang protocol: JSON (Storm's) and MessagePack (pystorm's).

The message shapes are the same in both; only the bytes differ.

- JSON: each message is one JSON document followed by a line that is exactly ``end``. Incoming
  lines may end in ``\\n``, ``\\r\\n`` or ``\\r`` and a message may span several lines. Outgoing
  messages are written as ``<json>\\nend\\n``, plain ASCII, NaN/Infinity refused.
- MessagePack: each message is one msgpack value (a map; a task-id reply is an array), back to
  back, self-delimiting, no ``end``. Strings are str (UTF-8); Python ``bytes`` go out as bin.
  Needs the ``msgpack`` package (1.0 or newer), imported only when the host speaks it.

The adapter is not told which one the host speaks: ``detect`` reads it from the first byte of
the first message, the handshake (a JSON object starts with ``{``, a msgpack map with
0x80-0x8f, 0xde or 0xdf).

A ``Serializer`` is the one interface the rest of the adapter sees:
``reader(stream, before_wait, initial)`` returns an object whose ``read_message()`` returns the
next message (a dict or a list) or None at end of input, and whose ``serializer`` is the
Serializer; ``encoder()`` returns a function from a message to its bytes on the wire, framing
included, ``ack_encoder(encode)`` one from a tuple id to the bytes of its ack, and
``emit_encoder(encode)`` one from a stream, values and anchors to the bytes of a bolt's emit (the
two messages a bolt sends most, given shortcuts). An encoder may keep state (msgpack's Packer
does): it is called by one thread at a time (``protocol.MessageWriter``'s lock).
"""

import json
import json.scanner
import re
import sys
from json.encoder import encode_basestring_ascii

from .errors import ProtocolError, SerializerUnavailable

__all__ = ["Serializer", "JSON", "JsonReader", "MsgpackReader", "msgpack_serializer", "detect",
           "encode_json"]

CHUNK = 64 * 1024  # bytes asked of the stream per read (one read of the pipe)


class Serializer:
    """A wire format (see the module's docstring). ``name``: "json" or "msgpack"."""

    name = None

    def reader(self, stream, before_wait=None, initial=b""):
        raise NotImplementedError

    def encoder(self):
        raise NotImplementedError

    def ack_encoder(self, encode):
        """A function from a tuple id to its ack on the wire; ``encode``: this format's encoder
        in use (the ack goes through it unless the format has a shortcut)."""
        return lambda tup_id: encode({"command": "ack", "id": tup_id})

    def emit_encoder(self, encode):
        """A function from (stream, values, anchors) to the emit a bolt writes most: not
        direct, no task ids asked, ``anchors`` a list of tuple ids or None (no anchors key).
        Its bytes are those of ``encode`` for the message {"command": "emit", "stream",
        "tuple", "need_task_ids": False[, "anchors"]}, in that order (the bolt's own)."""

        def encode_emit(stream, values, anchors):
            message = {"command": "emit", "stream": stream, "tuple": values,
                       "need_task_ids": False}
            if anchors is not None:
                message["anchors"] = anchors
            return encode(message)

        return encode_emit

    def __repr__(self):
        return "<serializer %s>" % self.name


class ChunkReader:
    """Reads a binary stream (ideally an ``io.BufferedReader``) a chunk at a time.

    ``before_wait`` is called before each read from the stream, which may block: the component
    flushes its held output there, so the host never waits for an answer sitting in a buffer.
    """

    def __init__(self, stream, before_wait):
        self._before_wait = before_wait
        self._read = getattr(stream, "read1", stream.read)
        self._eof = False

    def read_chunk(self):
        """The next chunk of input; b"" at end of input."""
        if self._eof:
            return b""
        if self._before_wait is not None:
            self._before_wait()
        chunk = self._read(CHUNK)
        if not chunk:
            self._eof = True
        return chunk


def _preview(data, limit=200):
    return bytes(data[:limit]) + (b"..." if len(data) > limit else b"")


def _neither_error(what):
    return ProtocolError("message from host is neither an object nor an array: %s" % what)


# ------------------------------------------------------------------------------------- JSON

_END = b"end"
_EOL = re.compile(rb"[\r\n]")
# How sparse and Storm write every message: a one-line document, then "end" on its own line.
_TERMINATOR = b"\nend\n"


def _make_json_encode():
    """A function from a message to its compact JSON text (ASCII, NaN refused).

    json.dumps with non-default options builds an encoder per call, and JSONEncoder.encode
    builds its C encoder per call; this builds the C encoder once (json's own accelerator, the
    one JSONEncoder uses), which halves the cost of a small message. Without the accelerator,
    one JSONEncoder does the same work in Python.
    """
    encoder = json.JSONEncoder(separators=(",", ":"), allow_nan=False)
    try:
        from json.encoder import c_make_encoder
    except ImportError:
        c_make_encoder = None
    if c_make_encoder is None:
        return encoder.encode
    # No cycle check (markers=None): a self-referencing message ends in RecursionError.
    c_encode = c_make_encoder(None, encoder.default, encode_basestring_ascii, None, ":", ",",
                              False, False, False)
    return lambda message: "".join(c_encode(message, 0))


_json_encode = _make_json_encode()


def _make_json_decode():
    """A function from a frame's text to its value: json.loads, minus its layers.

    json.loads goes through JSONDecoder.decode and raw_decode, each a Python call, and two
    whitespace matches, around the one call that does the work: the decoder's scanner (C when
    json has its accelerator). A frame the host writes is one compact document, so the scanner
    is called directly; anything else (blanks around it, trailing data, an error) goes to
    json.loads, which decides and words the error as before.
    """
    scan = json.scanner.make_scanner(json.JSONDecoder())
    loads = json.loads

    def decode(text):
        try:
            value, end = scan(text, 0)
        except (StopIteration, ValueError):
            return loads(text)
        if end != len(text):
            return loads(text)
        return value

    return decode


_json_decode = _make_json_decode()


def encode_json(message):
    """Encodes one message as JSON with its terminator.

    Output is plain ASCII JSON (non-ASCII characters escaped) and refuses NaN/Infinity, which
    are not JSON: a value the host could misread fails here, in the caller's code, instead.
    Python ``bytes`` are not JSON either (TypeError).
    """
    return _json_encode(message).encode("ascii") + _TERMINATOR


class JsonReader(ChunkReader):
    """Reads ``<json>\\nend\\n`` framed messages. ``initial``: bytes already read."""

    serializer = None  # JSON, set below

    def __init__(self, stream, before_wait=None, initial=b""):
        super().__init__(stream, before_wait)
        self._buf = bytearray(initial)
        self._scanned = 0  # bytes of _buf already known to hold no line terminator
        self._skip_lf = False  # the last line ended in a bare '\r'; drop a following '\n'

    def _fill(self):
        chunk = self.read_chunk()
        if not chunk:
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
            message = _json_decode(frame.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise ProtocolError("malformed message from host (%s): %r" % (exc, _preview(frame)))
        if not isinstance(message, (dict, list)):
            raise _neither_error(repr(_preview(frame)))
        return message


class _Json(Serializer):
    name = "json"

    def reader(self, stream, before_wait=None, initial=b""):
        return JsonReader(stream, before_wait, initial)

    def encoder(self):
        return encode_json

    def ack_encoder(self, encode):
        # The ack of a string id (what Storm and sparse send), written without building and
        # walking a dict: byte for byte what encode_json writes, at a fifth of the cost.
        # Anything else goes through the encoder. (json.encoder always has
        # encode_basestring_ascii: C, else its pure-Python twin.)
        def encode_ack(tup_id):
            if type(tup_id) is str:
                return b'{"command":"ack","id":%s}\nend\n' % encode_basestring_ascii(
                    tup_id).encode("ascii")
            return encode({"command": "ack", "id": tup_id})

        return encode_ack

    def emit_encoder(self, encode):
        # The emit's frame from a template around the JSON of its parts, which the same encoder
        # writes as it would inside the message: byte for byte encode_json's output, without a
        # dict to build and walk. A stream that is not a str goes through the encoder (and fails
        # there, as it would have).
        generic = Serializer.emit_encoder(self, encode)
        text = _json_encode

        def encode_emit(stream, values, anchors):
            if type(stream) is not str:
                return generic(stream, values, anchors)
            if anchors is None:
                return (b'{"command":"emit","stream":%s,"tuple":%s,"need_task_ids":false}\nend\n'
                        % (encode_basestring_ascii(stream).encode("ascii"),
                           text(values).encode("ascii")))
            return (b'{"command":"emit","stream":%s,"tuple":%s,"need_task_ids":false,'
                    b'"anchors":%s}\nend\n'
                    % (encode_basestring_ascii(stream).encode("ascii"),
                       text(values).encode("ascii"), text(anchors).encode("ascii")))

        return encode_emit


JSON = _Json()
JsonReader.serializer = JSON


# ------------------------------------------------------------------------------ MessagePack

_MSGPACK_MIN_VERSION = (1, 0)


class MsgpackReader(ChunkReader):
    """Reads back-to-back msgpack values: an ``Unpacker`` fed with whole chunks of input."""

    def __init__(self, msgpack, stream, before_wait=None, initial=b"", serializer=None):
        super().__init__(stream, before_wait)
        self.serializer = serializer
        # raw=False: str is decoded as UTF-8 (bin stays bytes). Map keys may be any hashable
        # value (a tuple value's map can have int keys); arrays become lists, as in JSON.
        self._unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
        self._next = self._unpacker.__next__
        self._buffer_full = msgpack.BufferFull
        # Every way bad input fails: FormatError, StackError, ExtraData (ValueError),
        # UnicodeDecodeError (ValueError), an unhashable map key (TypeError).
        self._malformed = (ValueError, TypeError, msgpack.UnpackException)
        if initial:
            self._feed(initial)

    def _feed(self, data):
        try:
            self._unpacker.feed(data)
        except self._buffer_full:
            raise ProtocolError("message from host larger than the msgpack Unpacker's "
                                "buffer limit") from None

    def read_message(self):
        """Returns the next decoded message (a dict or a list), or None at end of input.

        End of input inside a message counts as end of input: the host went away mid-message.
        """
        while True:
            try:
                message = self._next()
            except StopIteration:  # no whole message buffered: read more
                chunk = self.read_chunk()
                if not chunk:
                    return None
                self._feed(chunk)
                continue
            except self._malformed as exc:
                raise ProtocolError("malformed MessagePack from host (%s: %s)"
                                    % (type(exc).__name__, exc)) from None
            if not isinstance(message, (dict, list)):
                raise _neither_error("%.200r" % (message,))
            return message


class _Msgpack(Serializer):
    name = "msgpack"

    def __init__(self, msgpack):
        self._msgpack = msgpack

    def reader(self, stream, before_wait=None, initial=b""):
        return MsgpackReader(self._msgpack, stream, before_wait, initial, self)

    def encoder(self):
        # One Packer, reused: pack() returns the bytes of one value and resets (also when it
        # raises). use_bin_type: bytes go out as bin, str as str. Not thread-safe: see the
        # module's docstring.
        return self._msgpack.Packer(use_bin_type=True).pack


_msgpack_serializer = None


def msgpack_serializer():
    """The MessagePack serializer; SerializerUnavailable when ``msgpack`` cannot be used."""
    global _msgpack_serializer
    if _msgpack_serializer is None:
        _msgpack_serializer = _Msgpack(_import_msgpack())
    return _msgpack_serializer


def _import_msgpack():
    install = "%s -m pip install msgpack" % (sys.executable or "python3")
    prefix = "the host speaks MessagePack (topology `serializer: msgpack`) but "
    try:
        import msgpack
    except Exception as exc:  # ImportError, or a broken installation failing otherwise
        raise SerializerUnavailable(
            "%sthe Python package `msgpack` is not importable by %s (%s: %s): %s"
            % (prefix, sys.executable, type(exc).__name__, exc, install)) from None
    version = getattr(msgpack, "version", (0,))
    if tuple(version) < _MSGPACK_MIN_VERSION:
        raise SerializerUnavailable(
            "%sthe Python package `msgpack` importable by %s is version %s, older than %s: %s -U"
            % (prefix, sys.executable, ".".join(map(str, version)),
               ".".join(map(str, _MSGPACK_MIN_VERSION)), install))
    return msgpack


# -------------------------------------------------------------------------------- detection

_JSON_WHITESPACE = b" \t\r\n"


def is_msgpack_map_start(byte):
    """Whether ``byte`` (an int) starts a msgpack map: fixmap 0x80-0x8f, map16, map32."""
    return 0x80 <= byte <= 0x8f or byte == 0xde or byte == 0xdf


def detect(data):
    """The serializer of a host whose output begins with ``data`` (non-empty bytes).

    None: ``data`` is only whitespace so far (read more). ProtocolError: neither format.
    SerializerUnavailable: MessagePack, and ``msgpack`` cannot be imported.
    """
    if is_msgpack_map_start(data[0]):
        return msgpack_serializer()
    rest = data.lstrip(_JSON_WHITESPACE)
    if not rest:
        return None
    if rest[:1] == b"{":
        return JSON
    raise ProtocolError(
        "the host's first message (the handshake) is neither a JSON object (starting with "
        "'{') nor a MessagePack map (first byte 0x80-0x8f, 0xde or 0xdf): it starts with byte "
        "0x%02x: %r" % (rest[0], _preview(rest, 64)))
