"""BatchingBolt, against a real component process."""

import unittest

from host import HostTestCase


class BatchingBoltTest(HostTestCase, unittest.TestCase):
    def started(self):
        host = self.start("batch_bolt.py")
        host.handshake()
        return host

    def test_flush_by_size_acks_the_batch_and_anchors_to_it(self):
        host = self.started()
        host.send_tuple("a1", ["a", 1])
        host.send_tuple("b1", ["b", 1])
        host.send_tuple("a2", ["a", 2])
        host.send_tuple("a3", ["a", 3])  # group "a" is full: flushed; "b" waits
        emit = host.recv_command("emit", tuple=["a", [1, 2, 3]], need_task_ids=False)
        self.assertEqual(emit["anchors"], ["a1", "a2", "a3"])
        for tup_id in ("a1", "a2", "a3"):
            host.recv_command("ack", id=tup_id)
        # "b1" is still held: a heartbeat's sync is the next thing the bolt writes.
        host.send_heartbeat()
        host.recv_command("sync")

    def test_tick_flushes_every_group_then_calls_process_tick(self):
        host = self.started()
        host.send_tuple("a1", ["a", 1])
        host.send_tuple("b1", ["b", 1])
        host.send_tuple("b2", ["b", 2])
        host.send_tick("tick", freq=2)
        host.recv_command("emit", tuple=["a", [1]], anchors=["a1"])
        host.recv_command("ack", id="a1")
        host.recv_command("emit", tuple=["b", [1, 2]], anchors=["b1", "b2"])
        host.recv_command("ack", id="b1")
        host.recv_command("ack", id="b2")
        host.recv_command("log", msg="tick 2")
        host.recv_command("ack", id="tick")
        # Nothing is left: another tick only runs process_tick.
        host.send_tick("tick-2", freq=2)
        host.recv_command("log", msg="tick 2")
        host.recv_command("ack", id="tick-2")

    def test_failing_batch_is_failed_whole_and_the_bolt_keeps_running(self):
        host = self.started()
        for n in range(3):
            host.send_tuple("bad%d" % n, ["bad", n])
        error = host.recv_command("error")
        self.assertIn("ValueError: bad batch", error["msg"])
        for n in range(3):
            host.recv_command("fail", id="bad%d" % n)
        host.send_tuple("c1", ["c", 1])
        host.send_tick()
        host.recv_command("emit", tuple=["c", [1]])
        host.recv_command("ack", id="c1")

    def test_group_key_failure_fails_only_that_tuple(self):
        host = self.started()
        host.send_tuple("u", ["unhashable", 0])
        self.assertIn("group_key() failed", host.recv_command("error")["msg"])
        host.recv_command("fail", id="u")
        host.send_heartbeat()
        host.recv_command("sync")


if __name__ == "__main__":
    unittest.main()
