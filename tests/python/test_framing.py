"""In-process tests of the JSON framing layer and the print-to-log stream."""

import io
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "adapters", "python"))

from sparse_multilang.logs import log_level_number  # noqa: E402
from sparse_multilang.protocol import (MessageWriter, ProtocolError,  # noqa: E402
                                       encode_message)
from sparse_multilang.serializers import JsonReader  # noqa: E402
from sparse_multilang.stdio import PrintToLog  # noqa: E402


class Trickle(io.RawIOBase):
    """A stream that returns at most ``step`` bytes per read, to split input anywhere."""

    def __init__(self, data, step=1):
        self._data = data
        self._step = step

    def readable(self):
        return True

    def read1(self, size=-1):
        chunk, self._data = self._data[:self._step], self._data[self._step:]
        return chunk

    read = read1


def reader(data, step=None):
    return JsonReader(Trickle(data, step) if step else io.BytesIO(data))


def read_all(data, step=None):
    r = reader(data, step)
    messages = []
    while True:
        message = r.read_message()
        if message is None:
            return messages
        messages.append(message)


class ReaderTest(unittest.TestCase):
    def test_all_line_endings(self):
        data = b'{"a": 1}\nend\n{"b": 2}\r\nend\r\n{"c": 3}\rend\r[4]\nend\n'
        expected = [{"a": 1}, {"b": 2}, {"c": 3}, [4]]
        for step in (None, 1, 2, 3):
            with self.subTest(step=step):
                self.assertEqual(read_all(data, step), expected)

    def test_whole_buffer_and_line_by_line_agree(self):
        # A reader holding many messages at once takes the usual "...\nend\n" frames in one
        # search; split reads go line by line. Both must see the same messages, whatever the
        # shapes mixed in: CRLF, multi-line documents, blank frames, "end" right at the start.
        data = (b'end\n{"a": 1}\nend\n\n \nend\n{"b":\n [2,\n 3]}\nend\n{"c": "x"}\r\nend\r\n'
                b'{"d": 4}\nend\n[5]\nend\n' * 3)
        expected = [{"a": 1}, {"b": [2, 3]}, {"c": "x"}, {"d": 4}, [5]] * 3
        for step in (None, 1, 5, 7, 64):
            with self.subTest(step=step):
                self.assertEqual(read_all(data, step), expected)

    def test_crlf_split_across_reads_is_one_terminator(self):
        # The '\r' ends a read, the '\n' comes with the next one: no empty line in between.
        r = reader(b"abc\r\ndef\r\n", step=4)
        self.assertEqual([r.read_line(), r.read_line(), r.read_line()], [b"abc", b"def", None])

    def test_bare_cr_then_empty_line(self):
        r = reader(b"a\r\rb\n")
        self.assertEqual([r.read_line(), r.read_line(), r.read_line()], [b"a", b"", b"b"])

    def test_message_spanning_lines(self):
        data = b'{\r\n  "id": "7",\r\n  "tuple": [\r\n    "x",\n "y"\r]\n}\nend\n'
        for step in (None, 1, 5):
            with self.subTest(step=step):
                self.assertEqual(read_all(data, step), [{"id": "7", "tuple": ["x", "y"]}])

    def test_end_with_trailing_space_is_not_a_terminator(self):
        r = reader(b'[1,\nend \n2]\nend\n')
        self.assertEqual(r.read_frame(), b'[1,\nend \n2]')
        self.assertIsNone(r.read_frame())
        r = reader(b' end\n[1]\nend\n')
        self.assertEqual(r.read_frame(), b' end\n[1]')

    def test_blank_frames_are_skipped(self):
        self.assertEqual(read_all(b'end\n\n  \nend\n[1]\nend\n'), [[1]])

    def test_eof_inside_a_message_is_end_of_input(self):
        self.assertEqual(read_all(b'[1]\nend\n{"partial": '), [[1]])
        self.assertEqual(read_all(b''), [])

    def test_utf8(self):
        data = '{"w": "naïve ☃ 😀"}\nend\n'.encode("utf-8")
        self.assertEqual(read_all(data, 1), [{"w": "naïve ☃ 😀"}])

    def test_malformed_messages(self):
        for data in (b'not json\nend\n', b'"a string"\nend\n', b'\xff\xfe\nend\n'):
            with self.subTest(data=data):
                with self.assertRaises(ProtocolError):
                    reader(data).read_message()

    def test_frames_decode_as_json_loads_decodes_them(self):
        # The reader calls json's scanner directly and leaves anything unusual to json.loads:
        # both must give the same value, or both refuse the frame.
        frames = [
            '{"id":"-42","tuple":["a",1,2.5,null,true,false,{"k":[1,{}]}]}', '[1,2,3]', '[]',
            '{}', ' {"lead": "blank"}', '{"trail": "blank"} ', '\t[1]\t', '{"n": NaN}',
            '{"big": 123456789012345678901234567890}', '{"e": 1e400}', '{"dup": 1, "dup": 2}',
            '{"esc": "\\u00e9\\ud83d\\ude00\\n\\"\\\\"}', '{"a": 1} {"b": 2}', '{"a": 1}x',
            '{"a": }', '{"a": 1', '\ufeff{"bom": 1}', '"only a string"', '12', 'null',
        ]
        for frame in frames:
            with self.subTest(frame=frame):
                try:
                    want = json.loads(frame)
                except ValueError:
                    want = ValueError
                data = frame.encode("utf-8") + b"\nend\n"
                if want is ValueError or not isinstance(want, (dict, list)):
                    with self.assertRaises(ProtocolError):
                        reader(data).read_message()
                else:
                    self.assertEqual(repr(reader(data).read_message()), repr(want))


class WriterTest(unittest.TestCase):
    def test_encoding_is_ascii_json_then_end(self):
        data = encode_message({"command": "emit", "tuple": ["é", 1, None, True]})
        self.assertTrue(data.endswith(b"\nend\n"))
        self.assertEqual(data.count(b"\n"), 2)
        data.decode("ascii")
        self.assertEqual(read_all(data), [{"command": "emit", "tuple": ["é", 1, None, True]}])

    def test_nan_is_refused(self):
        with self.assertRaises(ValueError):
            encode_message({"tuple": [float("nan")]})

    def test_writer_flushes_each_message(self):
        out = io.BytesIO()
        MessageWriter(out).send({"command": "sync"})
        self.assertEqual(out.getvalue(), b'{"command":"sync"}\nend\n')


    def test_an_ack_is_written_as_send_would_write_it(self):
        # send_ack's shortcut for string ids must give the very bytes of the general encoder;
        # other ids go through the encoder itself.
        ids = ["", "7", "-4324234234234234234", 'q"uote', "back\\slash", "tab\t nl\n",
               "\x00\x1f\x7f", "é", "漢字", "\U0001f600", "\ud800", 12, -1, None, 2 ** 70, 1.5,
               ["a", 1]]
        for tup_id in ids:
            via_send, via_ack = io.BytesIO(), io.BytesIO()
            MessageWriter(via_send).send({"command": "ack", "id": tup_id})
            MessageWriter(via_ack).send_ack(tup_id)
            self.assertEqual(via_ack.getvalue(), via_send.getvalue(), repr(tup_id))
            self.assertEqual(read_all(via_ack.getvalue()), [{"command": "ack", "id": tup_id}])

    def test_an_emit_is_written_as_send_would_write_it(self):
        # send_emit's template must give the very bytes of the general encoder for the bolt's
        # usual emit, whatever the stream, values and anchors.
        streams = ["default", "", 'q"uote', "é", "\U0001f600", 7]
        values = [[], ["a", 1, 2.5, None, True, False], ["漢字", {"k": [1, {"n": None}]}],
                  [2 ** 70, -1, "\x00\x1f\x7f", "\ud800"], [[["deep"]]]]
        anchors = [None, [], ["-4324234234234234"], ["1", "2"], [3, "x"]]
        for stream in streams:
            for vals in values:
                for anchor_ids in anchors:
                    message = {"command": "emit", "stream": stream, "tuple": vals,
                               "need_task_ids": False}
                    if anchor_ids is not None:
                        message["anchors"] = anchor_ids
                    via_send, via_emit = io.BytesIO(), io.BytesIO()
                    MessageWriter(via_send).send(message)
                    MessageWriter(via_emit).send_emit(stream, vals, anchor_ids)
                    self.assertEqual(via_emit.getvalue(), via_send.getvalue(), repr(message))
                    self.assertEqual(read_all(via_emit.getvalue()), [message])

    def test_an_unencodable_emit_is_refused_and_nothing_is_written(self):
        for vals, error in (([float("nan")], ValueError), ([b"bytes"], TypeError),
                            ([object()], TypeError)):
            out = io.BytesIO()
            with self.assertRaises(error):
                MessageWriter(out).send_emit("default", vals, ["1"])
            self.assertEqual(out.getvalue(), b"")

    def test_an_unencodable_ack_id_is_refused_and_nothing_is_written(self):
        out = io.BytesIO()
        with self.assertRaises(ValueError):
            MessageWriter(out).send_ack(float("nan"))
        self.assertEqual(out.getvalue(), b"")


class PrintToLogTest(unittest.TestCase):
    def test_lines_are_delivered_whole_and_held_until_attached(self):
        stream = PrintToLog()
        lines = []
        print("before", file=stream)
        print("a", "b", file=stream, end="")
        stream.attach(lines.append)
        self.assertEqual(lines, ["before"])
        print(" c\r\n\nd", file=stream)
        stream.write("tail")
        self.assertEqual(lines, ["before", "a b c", "d"])
        stream.flush()
        self.assertEqual(lines, ["before", "a b c", "d", "tail"])


class LogLevelTest(unittest.TestCase):
    def test_names_and_ints(self):
        self.assertEqual([log_level_number(x) for x in ("trace", "DEBUG", "info", "Warn",
                                                         "warning", "error", 0, 4)],
                         [0, 1, 2, 3, 3, 4, 0, 4])
        for bad in ("loud", 5, -1, True, 2.0):
            with self.subTest(level=bad):
                with self.assertRaises((ValueError, TypeError)):
                    log_level_number(bad)


if __name__ == "__main__":
    unittest.main()
