"""Spout and ReliableSpout, against real component processes."""

import os
import tempfile
import unittest

from host import HostTestCase


def command(name, tup_id=""):
    return {"command": name, "id": tup_id}


class SpoutTest(HostTestCase, unittest.TestCase):
    def started(self):
        host = self.start("word_spout.py")
        host.handshake()
        return host

    def test_every_command_gets_exactly_one_sync(self):
        host = self.started()
        host.send(command("activate"))
        host.recv_command("log", msg="activated")
        host.recv_command("sync")
        host.send(command("next"))
        host.recv_command("emit", tuple=["alpha"], id=1, stream="default")
        host.send([3])  # the task-id reply, read synchronously inside next_tuple
        host.recv_command("log", msg="task ids [3]")
        host.recv_command("sync")
        host.send(command("ack", 1))
        host.recv_command("log", msg="acked 1")
        host.recv_command("sync")
        host.send(command("fail", {"offset": 2}))
        host.recv_command("log", msg='failed {"offset": 2}')
        host.recv_command("sync")
        host.send(command("deactivate"))
        host.recv_command("log", msg="deactivated")
        host.recv_command("sync")
        # A command whose hook does nothing still gets its sync, and only one.
        host.send(command("ack", "x"))
        host.recv_command("log", msg='acked "x"')
        host.recv_command("sync")
        host.send_heartbeat()
        host.recv_command("sync")

    def test_emits_without_task_ids_direct_and_after_an_exception(self):
        host = self.started()
        host.send(command("next"))
        host.recv_command("emit", tuple=["alpha"])
        host.send([1])
        host.recv_command("log")
        host.recv_command("sync")
        host.send(command("next"))
        host.recv_command("emit", tuple=["beta"], id={"offset": 2}, stream="words",
                          need_task_ids=False)
        direct = host.recv_command("emit", tuple=["gamma"], task=7, need_task_ids=False)
        self.assertNotIn("id", direct)
        host.recv_command("log", msg="returned None None")
        host.recv_command("sync")
        host.send(command("next"))
        error = host.recv_command("error")
        self.assertIn("next_tuple() failed", error["msg"])
        self.assertIn("RuntimeError: next_tuple exploded", error["msg"])
        host.recv_command("sync")
        host.send(command("next"))
        host.recv_command("emit", tuple=["delta"])
        host.recv_command("sync")
        host.send(command("next"))  # emits nothing
        host.recv_command("sync")
        host.close_stdin()
        self.assertEqual(host.wait(), 0)
        host.assert_closed()

    def test_command_arriving_before_the_task_id_reply_is_kept(self):
        host = self.started()
        host.send(command("next"))
        host.recv_command("emit", tuple=["alpha"])
        host.send(command("activate"))  # out of order: must wait until next is done
        host.send([4])
        host.recv_command("log", msg="task ids [4]")
        host.recv_command("sync")
        host.recv_command("log", msg="activated")
        host.recv_command("sync")


    def test_answers_are_not_held_while_a_later_command_blocks(self):
        # The host wrote two `next`s ahead (sparse pipelines them). The first is answered at
        # once; the second blocks in next_tuple() until the test has the first answer. Output
        # held for a burst of input must not wait for the slow command behind it: the runtime
        # would take a spout with nothing to show for topology.subprocess.timeout.secs as stuck.
        with tempfile.TemporaryDirectory() as tmp:
            release = os.path.join(tmp, "release")
            host = self.start("blocking_spout.py")
            host.handshake(conf={"test.release": release})
            host.send_raw(host.encode(command("next")) + host.encode(command("next")))
            host.recv_command("emit", tuple=["call 1"], id=1)
            host.recv_command("sync")
            open(release, "w").close()
            host.recv_command("emit", tuple=["call 2"], id=2)
            host.recv_command("sync")


class ReliableSpoutTest(HostTestCase, unittest.TestCase):
    def started(self):
        host = self.start("retry_spout.py")
        host.handshake()
        return host

    def next_emits(self, host, tup_id, values):
        host.send(command("next"))
        host.recv_command("emit", id=tup_id, tuple=values)
        host.recv_command("sync")

    def test_failed_tuple_is_replayed_before_new_data(self):
        host = self.started()
        self.next_emits(host, "m1", ["message 1"])
        host.send(command("fail", "m1"))
        host.recv_command("log", msg="fail hook m1 pending=1")
        host.recv_command("sync")
        self.next_emits(host, "m1", ["message 1"])  # the replay, not m2
        self.next_emits(host, "m2", ["message 2"])
        host.send(command("ack", "m1"))
        host.recv_command("sync")
        host.send(command("ack", "m2"))
        host.recv_command("sync")
        host.send(command("next"))  # nothing pending, nothing new
        host.recv_command("sync")

    def test_gives_up_after_max_retries(self):
        host = self.started()
        self.next_emits(host, "m1", ["message 1"])
        for replay in (1, 2):  # max_retries = 2
            host.send(command("fail", "m1"))
            host.recv_command("log", msg="fail hook m1 pending=1")
            host.recv_command("sync")
            self.next_emits(host, "m1", ["message 1"])
        host.send(command("fail", "m1"))
        host.recv_command("log", level=4, msg='giving up on tuple "m1" after 2 replays')
        host.recv_command("log", msg='gave up m1 ["message 1"]')
        host.recv_command("log", msg="fail hook m1 pending=0")
        host.recv_command("sync")
        self.next_emits(host, "m2", ["message 2"])  # m1 is not replayed again

    def test_ack_after_fail_cancels_the_replay(self):
        host = self.started()
        self.next_emits(host, "m1", ["message 1"])
        host.send(command("fail", "m1"))
        host.recv_command("log")
        host.recv_command("sync")
        host.send(command("ack", "m1"))
        host.recv_command("sync")
        self.next_emits(host, "m2", ["message 2"])


if __name__ == "__main__":
    unittest.main()
