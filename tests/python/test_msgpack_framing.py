"""In-process tests of format detection and of the MessagePack reader and writer.

The detection tests need no msgpack; the rest are skipped without it (see test_msgpack.py).
"""

import io
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "adapters", "python"))

from sparse_multilang import serializers  # noqa: E402
from sparse_multilang.protocol import (MessageWriter, ProtocolError,  # noqa: E402
                                       SerializerUnavailable, open_reader)
from test_framing import Trickle  # noqa: E402

try:
    import msgpack
except ImportError:
    msgpack = None

if msgpack is None and os.environ.get("SPARSE_REQUIRE_MSGPACK") == "1":
    raise ImportError("SPARSE_REQUIRE_MSGPACK=1 but msgpack is not importable by %s"
                      % sys.executable)

needs_msgpack = unittest.skipIf(msgpack is None,
                                "msgpack is not importable by %s" % sys.executable)


def stream(data, step=None):
    return Trickle(data, step) if step else io.BytesIO(data)


def read_all(reader):
    messages = []
    while True:
        message = reader.read_message()
        if message is None:
            return messages
        messages.append(message)


def detecting_reader(data, step=None):
    return open_reader(stream(data, step))


class DetectionTest(unittest.TestCase):
    def test_json_possibly_after_whitespace(self):
        data = b' \t\r\n{"pidDir": "/tmp"}\nend\n[1]\nend\n'
        for step in (None, 1, 3):
            with self.subTest(step=step):
                reader = detecting_reader(data, step)
                self.assertIs(reader.serializer, serializers.JSON)
                self.assertEqual(read_all(reader), [{"pidDir": "/tmp"}, [1]])

    def test_end_of_input_before_a_message(self):
        for data in (b"", b" \n\r\n "):
            with self.subTest(data=data):
                self.assertIsNone(detecting_reader(data, 1))

    def test_neither_format(self):
        for data, byte in ((b"[1]\nend\n", "0x5b"), (b"end\n", "0x65"), (b"\x93\x01", "0x93"),
                           (b"\x00", "0x00"), (b"  \xc1", "0xc1"), (b"\n\x83", "0x83"),
                           (b"\xef\xbb\xbf{}", "0xef")):
            with self.subTest(data=data):
                with self.assertRaises(ProtocolError) as caught:
                    detecting_reader(data)
                self.assertIn("starts with byte %s" % byte, str(caught.exception))

    def test_msgpack_map_bytes_need_msgpack(self):
        # Where msgpack is importable this detects MessagePack; where it is not, it names it.
        for first in list(range(0x80, 0x90)) + [0xde, 0xdf]:
            with self.subTest(first=hex(first)):
                try:
                    serializer = serializers.detect(bytes([first]))
                except SerializerUnavailable as exc:
                    self.assertIsNone(msgpack)
                    self.assertIn("`msgpack` is not importable by %s" % sys.executable,
                                  str(exc))
                else:
                    self.assertIsNotNone(msgpack)
                    self.assertEqual(serializer.name, "msgpack")


@needs_msgpack
class MsgpackReaderTest(unittest.TestCase):
    messages = [
        {"pidDir": "/tmp", "conf": {"a": 1}, "context": {"task->component": {"1": "x"}}},
        {"id": "-6107", "comp": "src", "stream": "default", "task": 3,
         "tuple": ["naïve ☃ 😀", 1.5, None, True, [1, {"k": b"\x00\xff"}], {2: "int key"}]},
        [5, 6],
        {"command": "next", "id": ""},
        [],
        {"id": "big", "tuple": ["x" * 200000]},  # larger than one read
    ]

    def data(self):
        packer = msgpack.Packer(use_bin_type=True)
        return b"".join(packer.pack(m) for m in self.messages)

    def test_split_anywhere(self):
        data = self.data()
        for step in (None, 1, 2, 7, 64, 65536):
            with self.subTest(step=step):
                reader = detecting_reader(data, step)
                self.assertEqual(reader.serializer.name, "msgpack")
                self.assertEqual(read_all(reader), self.messages)

    def test_map16_and_map32_headers(self):
        # Any map header is a map: a host may write a small map with a longer header.
        map16, map32 = b"\xde\x00\x01\xa1a\x01", b"\xdf\x00\x00\x00\x01\xa1b\x02"
        array16 = b"\xdc\x00\x01\x07"
        for data, expected in ((map16 + map32 + array16, [{"a": 1}, {"b": 2}, [7]]),
                               (map32 + array16 + map16, [{"b": 2}, [7], {"a": 1}])):
            with self.subTest(first=hex(data[0])):
                self.assertEqual(read_all(detecting_reader(data, 1)), expected)

    def test_end_of_input_inside_a_message_is_end_of_input(self):
        data = self.data()
        whole = len(msgpack.packb(self.messages[0]))
        self.assertEqual(read_all(detecting_reader(data[:whole + 5], 3)), self.messages[:1])

    def test_malformed_input(self):
        head = msgpack.packb({"pidDir": "/tmp"})
        for bad, text in ((b"\xc1", "FormatError"),
                          (b"\x81\xa1a\xa2\xff\xfe", "UnicodeDecodeError"),
                          (b"\x81\x91\x01\x02", "TypeError"),
                          (b"\x2a", "neither an object nor an array: 42"),
                          (b"\xa3abc", "neither an object nor an array: 'abc'"),
                          (b"\x91" * 2000 + b"\x01", "StackError")):
            with self.subTest(bad=bad[:8]):
                reader = detecting_reader(head + bad + head)
                self.assertEqual(reader.read_message(), {"pidDir": "/tmp"})
                with self.assertRaises(ProtocolError) as caught:
                    reader.read_message()
                self.assertIn(text, str(caught.exception))

    def test_reads_wait_for_held_output(self):
        # before_wait runs before every read of the stream, also the first (detecting) one.
        calls = []
        data = msgpack.packb({"pidDir": ""}) + msgpack.packb([1])
        reader = open_reader(stream(data, 4), before_wait=lambda: calls.append(1))
        self.assertEqual(read_all(reader), [{"pidDir": ""}, [1]])
        self.assertGreaterEqual(len(calls), (len(data) + 3) // 4)


@needs_msgpack
class MsgpackWriterTest(unittest.TestCase):
    def writer(self):
        out = io.BytesIO()
        writer = MessageWriter(out)
        writer.use(serializers.msgpack_serializer())
        return writer, out

    def test_str_is_str_and_bytes_are_bin(self):
        writer, out = self.writer()
        message = {"command": "emit", "tuple": ["é", b"\x00", 1, None, (2, 3), float("inf")]}
        writer.send(message)
        data = out.getvalue()
        self.assertIn(b"\xa2\xc3\xa9", data)  # fixstr "é" (UTF-8)
        self.assertIn(b"\xc4\x01\x00", data)  # bin8 b"\x00"
        decoded = msgpack.unpackb(data, raw=False)
        message["tuple"][4] = [2, 3]
        self.assertEqual(decoded, message)

    def test_held_output_is_written_on_flush(self):
        writer, out = self.writer()
        writer.send({"command": "ack", "id": "1"}, hold=True)
        writer.send({"command": "ack", "id": "2"}, hold=True)
        self.assertIsNotNone(writer.held_since)
        writer.flush()
        self.assertIsNone(writer.held_since)
        unpacker = msgpack.Unpacker(raw=False)
        unpacker.feed(out.getvalue())
        self.assertEqual(list(unpacker), [{"command": "ack", "id": "1"},
                                          {"command": "ack", "id": "2"}])

    def test_a_value_it_cannot_encode_writes_nothing(self):
        writer, out = self.writer()
        for bad, error in ((2 ** 64, OverflowError), (object(), TypeError)):
            with self.assertRaises(error):
                writer.send({"command": "emit", "tuple": ["a" * 100, bad]})
        self.assertEqual(out.getvalue(), b"")
        writer.send({"command": "sync"})  # the reused Packer starts clean
        self.assertEqual(out.getvalue(), msgpack.packb({"command": "sync"}))

    def test_acks_go_through_the_packer_in_use(self):
        # use() switches the ack encoder too: an ack after it is MessagePack, not JSON.
        writer, out = self.writer()
        writer.send_ack("7", hold=True)
        writer.send_ack(8)
        self.assertEqual(out.getvalue(), msgpack.packb({"command": "ack", "id": "7"}) +
                         msgpack.packb({"command": "ack", "id": 8}))

    def test_emits_go_through_the_packer_in_use(self):
        # use() switches the emit encoder too: an emit after it is MessagePack, not JSON.
        writer, out = self.writer()
        writer.send_emit("default", ["a", b"raw", 1], ["7"], hold=True)
        writer.send_emit("s", [], None)
        self.assertEqual(
            out.getvalue(),
            msgpack.packb({"command": "emit", "stream": "default", "tuple": ["a", b"raw", 1],
                           "need_task_ids": False, "anchors": ["7"]}) +
            msgpack.packb({"command": "emit", "stream": "s", "tuple": [],
                           "need_task_ids": False}))


class JsonWriterTest(unittest.TestCase):
    def test_bytes_are_refused(self):
        out = io.BytesIO()
        with self.assertRaises(TypeError):
            MessageWriter(out).send({"command": "emit", "tuple": [b"x"]})
        self.assertEqual(out.getvalue(), b"")


if __name__ == "__main__":
    unittest.main()
