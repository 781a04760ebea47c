"""pystorm's API as sparse's stand-ins provide it (sparse_multilang/pystorm_api.py), run the way
streamparse runs components: ``streamparse_run module.Class``."""

import sys
import unittest

from host import HostTestCase

FIELDS = {"taskid": 4, "componentid": "comp", "task->component": {"4": "comp"},
          "source->stream->fields": {"source": {"default": ["word"]}}}


class PystormApiTest(HostTestCase, unittest.TestCase):
    def run_class(self, name):
        host = self.start_argv([sys.executable, "-m", "sparse_multilang.streamparse_run",
                                "-s", "json", "pystorm_components." + name])
        host.handshake(context=FIELDS)
        return host

    def test_values_by_field_name_and_no_task_ids_by_default(self):
        host = self.run_class("FieldsBolt")
        host.send_tuple("a", ["hello"])
        host.recv_command("emit", tuple=["HELLO"], anchors=["a"], need_task_ids=False)
        host.recv_command("log", msg="emit returned None")
        host.recv_command("ack", id="a")

    def test_process_tick_gets_the_tuple(self):
        host = self.run_class("FieldsBolt")
        host.send_tick("t")
        host.recv_command("log", msg="tick from __system/__tick")
        host.recv_command("ack", id="t")

    def test_exception_fails_the_tuple_and_exits(self):
        host = self.run_class("FieldsBolt")
        host.send_tuple("b", ["boom"])
        error = host.recv_command("error")
        self.assertIn("ValueError: boom", error["msg"])
        host.recv_command("fail", id="b")
        self.assertEqual(host.wait(), 1)

    def test_reliable_spout_replays_max_fails_times_then_acks(self):
        host = self.run_class("Replaying")
        host.send({"command": "next"})
        host.recv_command("emit", tuple=["x"], id="t1", need_task_ids=False)
        host.recv_command("sync")
        for _ in range(2):
            host.send({"command": "fail", "id": "t1"})
            host.recv_command("emit", tuple=["x"], id="t1")
            host.recv_command("sync")
        host.send({"command": "fail", "id": "t1"})
        log = host.recv_command("log")
        self.assertIn("exceeded retry limit", log["msg"])
        host.recv_command("log", msg="acked t1")
        host.recv_command("sync")

    def test_batching_bolt_flushes_every_n_ticks(self):
        host = self.run_class("EveryOtherTick")
        host.send_tuple("1", ["k"])
        host.send_tuple("2", ["k"])
        host.send_tick("tick-1")
        host.recv_command("ack", id="tick-1")  # one tick: the batch is held
        host.send_tick("tick-2")
        emit = host.recv_command("emit", tuple=["k", 2])
        self.assertEqual(sorted(emit["anchors"]), ["1", "2"])
        self.assertEqual(sorted(host.recv_command("ack")["id"] for _ in range(2)), ["1", "2"])
        host.recv_command("ack", id="tick-2")

    def test_tickless_batching_bolt_flushes_on_its_timer(self):
        host = self.run_class("Timed")
        host.send_raw(host.encode({"id": "1", "comp": "source", "stream": "default", "task": 3,
                                   "tuple": ["a"]})
                      + host.encode({"id": "2", "comp": "source", "stream": "default",
                                     "task": 3, "tuple": ["b"]}))
        # No tick tuple is sent: the timer processes the batch (one, or two if it fired
        # between the tuples), anchored to its tuples, and acks them.
        batched, anchors, acks = 0, [], []
        while len(acks) < 2:
            message = host.recv()
            if message.get("command") == "emit":
                batched += message["tuple"][0]
                anchors += message["anchors"]
            elif message.get("command") == "ack":
                acks.append(message["id"])
        self.assertEqual((batched, sorted(anchors), sorted(acks)), (2, ["1", "2"], ["1", "2"]))

    def test_streamparse_spout_without_streamparse(self):
        host = self.run_class("StreamparseSpout")
        host.send({"command": "next"})
        host.recv_command("emit", tuple=[1], id=1)
        host.send([7])
        host.recv_command("sync")


if __name__ == "__main__":
    unittest.main()
