"""The adapter over MessagePack (pystorm's serializer), against real component processes.

Every test of test_bolt, test_spout, test_batching and test_run runs again with a host that
speaks MessagePack (the component detects it from the handshake's first byte), followed by the
tests of what only MessagePack has. Those need ``msgpack`` in the interpreter running the tests
and are skipped without it (ctest's ``python_adapter_msgpack`` runs this file with the peers
venv's python and SPARSE_REQUIRE_MSGPACK=1, which turns a missing msgpack into an error).
``DetectionTest`` needs no msgpack: it runs under any python3.
"""

import math
import os
import struct
import sys
import tempfile
import unittest

import test_batching
import test_bolt
import test_run
import test_spout
from host import HostTestCase, msgpack

if msgpack is None and os.environ.get("SPARSE_REQUIRE_MSGPACK") == "1":
    raise ImportError("SPARSE_REQUIRE_MSGPACK=1 but msgpack is not importable by %s"
                      % sys.executable)

needs_msgpack = unittest.skipIf(msgpack is None,
                                "msgpack is not importable by %s" % sys.executable)


@needs_msgpack
class MsgpackBoltTest(test_bolt.BoltTest):
    serializer = "msgpack"

    def test_serializer_is_visible_to_the_component(self):
        host = self.started()
        host.send_tuple("1", ["serializer"])
        host.recv_command("log", msg="serializer msgpack")
        host.recv_command("ack", id="1")

    def test_bytes_go_out_as_bin_and_str_as_str(self):
        host = self.started()
        text = "naïve ☃ 😀"
        host.send_tuple("1", ["emit_bytes", text])
        # The host decodes bin as bytes and str as str: equality checks both types.
        host.recv_command("emit", tuple=[text.encode("utf-8"), text], anchors=["1"])
        host.recv_command("ack", id="1")

    def test_values_json_cannot_carry_round_trip(self):
        # bin from the host, maps with int keys, NaN and infinities: all msgpack values.
        host = self.started()
        host.send_tuple("1", ["echo", b"\x00\xff", {1: "one", "two": [2]}, float("nan"),
                              float("-inf"), -2 ** 63, 2 ** 64 - 1])
        emit = host.recv_command("emit", anchors=["1"])
        values = emit["tuple"]
        self.assertEqual(values[:2], [b"\x00\xff", {1: "one", "two": [2]}])
        self.assertTrue(math.isnan(values[2]))
        self.assertEqual(values[3:], [float("-inf"), -2 ** 63, 2 ** 64 - 1])
        host.recv_command("ack", id="1")

    def test_messages_split_across_reads(self):
        # The handshake's first byte arrives alone (detection must wait for the rest), then
        # everything arrives a few bytes at a time, so most messages span several reads.
        host = self.start("scripted_bolt.py")
        handshake = host.encode({"pidDir": host._pid_dir.name, "conf": {"topology.name": "t"},
                                 "context": {"taskid": 4, "componentid": "splitter"}})
        host.send_raw(handshake[:1])
        host.wait_until_read()
        host.write_step = 3
        host.send_raw(handshake[1:])
        self.assertEqual(host.recv(), {"pid": host.proc.pid})
        host.recv_command("log")  # initialized ...
        host.send_tuple("1", ["emit", "w" * 40])
        host.recv_command("emit", tuple=["w" * 40], anchors=["1"])
        host.send([5, 6])
        host.recv_command("log", msg="task ids [5, 6]")
        host.recv_command("ack", id="1")
        host.write_step = 1
        host.send_heartbeat()
        host.send_tuple("2", ["echo", "é" * 20])
        host.recv_command("sync")
        host.recv_command("emit", tuple=["é" * 20])
        host.recv_command("ack", id="2")

    def test_a_message_larger_than_a_read(self):
        host = self.started()
        big = "x" * (300 * 1024)  # several 64 KiB reads in, one write out
        host.send_tuple("big", ["echo", big, 1])
        host.send_tuple("small", ["echo", 2])
        host.recv_command("emit", tuple=[big, 1], timeout=20)
        host.recv_command("ack", id="big")
        host.recv_command("emit", tuple=[2])
        host.recv_command("ack", id="small")

    def test_a_value_the_format_cannot_carry_is_refused_at_emit(self):
        # An int beyond 64 bits has no msgpack encoding: emit raises, process fails, nothing
        # half-written reaches the host, and the bolt keeps running.
        host = self.started()
        host.send_tuple("1", ["emit_power", 2, 64])
        error = host.recv_command("error")
        self.assertIn("OverflowError", error["msg"])
        host.recv_command("fail", id="1")
        host.send_tuple("2", ["echo", "fine"])
        host.recv_command("emit", tuple=["fine"])
        host.recv_command("ack", id="2")

    def test_json_after_the_msgpack_handshake_is_a_protocol_error(self):
        host = self.started()
        host.send_raw(b'{"id": "1"}\nend\n')  # '{' is the msgpack positive int 123
        error = host.recv_command("error")
        self.assertIn("protocol error", error["msg"])
        self.assertIn("neither an object nor an array", error["msg"])
        self.assertEqual(host.wait(), 1)


@needs_msgpack
class MsgpackSpoutTest(test_spout.SpoutTest):
    serializer = "msgpack"


@needs_msgpack
class MsgpackReliableSpoutTest(test_spout.ReliableSpoutTest):
    serializer = "msgpack"

    def test_bytes_tuple_ids_are_replayed(self):
        host = self.start("retry_spout.py", "--bytes-ids")
        host.handshake()
        self.next_emits(host, b"m1", ["message 1"])
        host.send(test_spout.command("fail", b"m1"))
        host.recv_command("log", msg="fail hook b'm1' pending=1")
        host.recv_command("sync")
        self.next_emits(host, b"m1", ["message 1"])  # the replay
        host.send(test_spout.command("ack", b"m1"))
        host.recv_command("sync")
        self.next_emits(host, b"m2", ["message 2"])


@needs_msgpack
class MsgpackBatchingBoltTest(test_batching.BatchingBoltTest):
    serializer = "msgpack"


@needs_msgpack
class MsgpackRunModuleTest(test_run.RunModuleTest):
    serializer = "msgpack"


def _pack_minimal(value):
    """A msgpack encoder for str, small non-negative ints and dicts of them: enough to write a
    handshake without the msgpack package."""
    if isinstance(value, dict):
        assert len(value) < 16
        return bytes([0x80 | len(value)]) + b"".join(
            _pack_minimal(k) + _pack_minimal(v) for k, v in value.items())
    if isinstance(value, str):
        data = value.encode("utf-8")
        assert len(data) < 256
        return b"\xd9" + bytes([len(data)]) + data
    if isinstance(value, int):
        assert 0 <= value < 2 ** 32
        return b"\xce" + struct.pack(">I", value)
    raise TypeError(value)


class DetectionTest(HostTestCase, unittest.TestCase):
    """How a component tells the host's format, and how it fails when it cannot speak it.
    Needs no msgpack (MessagePack input is written by hand)."""

    def msgpack_handshake(self, host):
        return _pack_minimal({"pidDir": host._pid_dir.name, "conf": {},
                              "context": {"taskid": 4, "componentid": "comp"}})

    def test_json_after_whitespace_split_across_reads(self):
        host = self.start("scripted_bolt.py")
        host.send_raw(b" \r\n\t")  # only whitespace so far: the component must read on
        host.wait_until_read()
        host.write_step = 2
        host.handshake(conf={"topology.name": "t"}, component_id="splitter", task_id=4)
        host.recv_command("log")  # initialized ...
        host.send_tuple("1", ["serializer"])
        host.recv_command("log", msg="serializer json")
        host.recv_command("ack", id="1")

    def test_neither_format_is_a_clear_error(self):
        host = self.start("scripted_bolt.py")
        host.send_raw(b"hello\nend\n")
        self.assertEqual(host.wait(), 1)
        host.assert_closed()
        self.assertEqual(host.stdout_bytes, 0)
        self.assertIn("neither a JSON object", host.stderr)
        self.assertIn("nor a MessagePack map", host.stderr)
        self.assertIn("byte 0x68: b'hello\\nend\\n'", host.stderr)
        self.assertNotIn("Traceback", host.stderr)

    def run_without_msgpack(self, fake_module):
        """Starts scripted_bolt.py where ``import msgpack`` runs ``fake_module`` (a str of
        Python) instead of finding the real package."""
        hidden = tempfile.TemporaryDirectory(prefix="sparse-no-msgpack-")
        self.addCleanup(hidden.cleanup)
        os.mkdir(os.path.join(hidden.name, "msgpack"))
        with open(os.path.join(hidden.name, "msgpack", "__init__.py"), "w") as f:
            f.write(fake_module)
        host = self.start("scripted_bolt.py", pythonpath=[hidden.name])
        host.send_raw(self.msgpack_handshake(host))
        self.assertEqual(host.wait(), 1)
        host.assert_closed()
        self.assertEqual(host.stdout_bytes, 0, "wrote to a host whose format it cannot speak")
        self.assertNotIn("Traceback", host.stderr)
        self.assertIn("the host speaks MessagePack (topology `serializer: msgpack`) but the "
                      "Python package `msgpack`", host.stderr)
        self.assertIn(sys.executable, host.stderr)
        self.assertIn("-m pip install", host.stderr)
        return host

    def test_msgpack_host_without_the_msgpack_package(self):
        # Where msgpack is really missing (the plain python3) the fake module changes nothing;
        # where it is installed, the fake shadows it.
        host = self.run_without_msgpack(
            "raise ModuleNotFoundError(\"No module named 'msgpack'\")\n")
        self.assertIn("is not importable by %s (ModuleNotFoundError: No module named "
                      "'msgpack'): %s -m pip install msgpack" % (sys.executable, sys.executable),
                      host.stderr)

    def test_msgpack_package_too_old(self):
        host = self.run_without_msgpack("version = (0, 6, 2)\n")
        self.assertIn("is version 0.6.2, older than 1.0: %s -m pip install msgpack -U"
                      % sys.executable, host.stderr)


if __name__ == "__main__":
    unittest.main()
