"""Bolt behaviour, against a real component process driven through its pipes."""

import json
import time
import unittest

from host import HostTestCase, json_only


class BoltTest(HostTestCase, unittest.TestCase):
    def started(self, *args):
        """A scripted_bolt.py process past its handshake and initialize()."""
        host = self.start("scripted_bolt.py", *args)
        host.handshake(conf={"topology.name": "t"}, component_id="splitter", task_id=4)
        host.recv_command("log", msg='initialized task=4 component=splitter '
                                     'conf={"topology.name": "t"} pid=%d' % host.proc.pid)
        return host

    def test_handshake_pid_file_and_initialize(self):
        self.started()  # the checks are in handshake() and started()

    def test_emit_is_anchored_and_gets_task_ids_then_ack(self):
        host = self.started()
        host.send_tuple("-6107", ["emit", "hello"])
        emit = host.recv_command("emit", tuple=["hello"], stream="default", anchors=["-6107"])
        self.assertNotIn("task", emit)
        self.assertNotEqual(emit.get("need_task_ids"), False)
        host.send([5, 6])
        host.recv_command("log", msg="task ids [5, 6]", level=2)
        host.recv_command("ack", id="-6107")

    def test_task_id_replies_interleaved_with_tuples_and_heartbeats(self):
        host = self.started()
        host.send_tuple("1", ["emit_twice", "x", "y"])
        host.recv_command("emit", tuple=["x"], anchors=["1"])
        # While the bolt waits for the reply, a tuple and a heartbeat arrive first.
        host.send_tuple("2", ["emit_noids", "z"])
        host.send_heartbeat("hb")
        host.recv_command("sync")
        host.send([8])
        host.recv_command("emit", tuple=["y"], stream="other")
        host.send([9, 10])
        host.recv_command("log", msg="task ids [8] [9, 10]")
        host.recv_command("ack", id="1")
        host.recv_command("emit", tuple=["z"], anchors=["2"], need_task_ids=False)
        host.recv_command("log", msg="returned None")
        host.recv_command("ack", id="2")

    def test_need_task_ids_false_gets_no_reply(self):
        host = self.started()
        host.send_tuple("1", ["emit_noids", "w"])
        host.recv_command("emit", tuple=["w"], need_task_ids=False)
        host.recv_command("log", msg="returned None")
        host.recv_command("ack", id="1")

    def test_direct_emit(self):
        host = self.started()
        host.send_tuple("1", ["direct", 7, "w"])
        emit = host.recv_command("emit", tuple=["w"], task=7, anchors=["1"])
        self.assertIs(emit.get("need_task_ids"), False)
        host.recv_command("log", msg="returned None")
        host.recv_command("ack", id="1")

    def test_explicit_and_empty_anchors(self):
        host = self.started()
        host.send_tuple("1", ["emit_anchored", "w", "other-id"])
        host.recv_command("emit", anchors=["other-id"])
        host.recv_command("ack", id="1")
        host.send_tuple("2", ["emit_unanchored", "w"])
        host.recv_command("emit", anchors=[])
        host.recv_command("ack", id="2")

    def test_busy_bolt_writes_signs_of_life_while_process_sleeps(self):
        # The host counts any message as a sign of life. While process() runs, the watchdog
        # writes a sync whenever the bolt has been silent for a second; heartbeats that came in
        # meanwhile are answered once the main thread reads again.
        host = self.started()
        host.send_tuple("slow", ["sleep", 3.5])
        host.recv_command("log", msg="sleeping")
        started = time.monotonic()
        host.send_heartbeat("hb-1")
        syncs = 0
        last = started
        while True:
            message = host.recv(timeout=2.0)  # never silent for 2 s while busy
            now = time.monotonic()
            self.assertLess(now - last, 2.0)
            last = now
            if message == {"command": "sync"}:
                syncs += 1
                continue
            self.assertEqual(message, {"command": "log", "msg": "woke", "level": 2})
            break
        self.assertGreaterEqual(syncs, 2)
        host.recv_command("ack", id="slow")
        host.recv_command("sync")  # the answer to hb-1

    def test_output_is_not_held_while_process_runs_long(self):
        # The protocol thread's output waits for the end of a burst of input, but never for a
        # long process(): the emit arrives while process() still sleeps.
        host = self.started()
        host.send_tuple("slow", ["emit_then_sleep", "early", 3])
        host.recv_command_after_syncs("emit", tuple=["early"], timeout=1.5)
        host.recv_command_after_syncs("ack", id="slow")

    def test_pid_is_sent_before_a_slow_initialize_returns(self):
        host = self.start("scripted_bolt.py")
        started = time.monotonic()
        host.handshake(conf={"test.initialize.sleep": 6})
        self.assertLess(time.monotonic() - started, 5, "the pid waited for initialize()")
        host.recv_command_after_syncs("log", timeout=15)  # initialized ...

    def test_a_burst_of_tuples_is_answered_in_full_and_in_order(self):
        host = self.started()
        burst = b"".join(
            host.encode({"id": str(i), "comp": "source", "stream": "default", "task": 3,
                         "tuple": ["echo", i]}) for i in range(2000))
        host.send_raw(burst)
        for i in range(2000):
            host.recv_command("emit", tuple=[i], anchors=[str(i)], need_task_ids=False)
            host.recv_command("ack", id=str(i))

    def test_heartbeats_are_never_acked(self):
        host = self.started()
        host.send_heartbeat("hb")
        host.send_tuple("t", ["echo", 1])
        host.recv_command("sync")
        host.recv_command("emit", tuple=[1])
        host.recv_command("ack", id="t")

    def test_print_and_raw_stdout_writes_do_not_corrupt_the_protocol(self):
        host = self.started()
        host.send_tuple("1", ["print", "hello from print"])
        host.recv_command("log", msg="hello from print", level=2)
        host.recv_command("log", msg="partial line", level=2)
        host.recv_command("ack", id="1")
        host.send_tuple("2", ["echo", "after"])
        host.recv_command("emit", tuple=["after"])
        host.recv_command("ack", id="2")
        host.close_stdin()
        self.assertEqual(host.wait(), 0)
        host.assert_closed()
        self.assertIn("raw write to fd 1", host.stderr)
        self.assertIn("child process stdout", host.stderr)
        # protocol_errors (checked at cleanup) proves stdout held only framed JSON.

    def test_exception_in_process_reports_fails_and_keeps_running(self):
        host = self.started()
        host.send_tuple("bad", ["raise", "boom 42"])
        error = host.recv_command("error")
        self.assertIn("Traceback", error["msg"])
        self.assertIn("RuntimeError: boom 42", error["msg"])
        host.recv_command("fail", id="bad")
        host.send_tuple("good", ["echo", "still alive"])
        host.recv_command("emit", tuple=["still alive"])
        host.recv_command("ack", id="good")

    def test_tick_calls_process_tick_and_is_acked(self):
        host = self.started()
        host.send_tick("tick-9", freq=5)
        host.recv_command("log", msg="tick 5")
        emit = host.recv_command("emit", tuple=["tick", 5])
        self.assertNotIn("anchors", emit)
        host.recv_command("ack", id="tick-9")

    def test_user_ack_or_fail_is_not_repeated(self):
        host = self.started()
        host.send_tuple("a", ["manual_ack"])
        host.send_tuple("b", ["manual_fail"])
        host.send_tuple("c", ["echo", "marker"])
        host.recv_command("ack", id="a")
        host.recv_command("fail", id="b")
        host.recv_command("emit", tuple=["marker"])  # no second ack/fail before this
        host.recv_command("ack", id="c")

    def test_without_auto_ack_fail_anchor(self):
        host = self.started("--no-auto")
        host.send_tuple("1", ["raise", "x"])
        host.recv_command("error")
        host.send_tuple("2", ["echo", "v"])
        emit = host.recv_command("emit", tuple=["v"])
        self.assertNotIn("anchors", emit)
        host.send_tuple("3", ["manual_ack"])
        host.recv_command("ack", id="3")  # nothing was acked or failed for 1 and 2

    def test_log_levels_logger_and_report_error(self):
        host = self.started()
        host.send_tuple("1", ["log", "warn", "by name"])
        host.recv_command("log", msg="by name", level=3)
        host.recv_command("ack", id="1")
        host.send_tuple("2", ["log", 0, "by number"])
        host.recv_command("log", msg="by number", level=0)
        host.recv_command("ack", id="2")
        host.send_tuple("3", ["logger", "via logging"])
        host.recv_command("log", msg="via logging", level=3)
        host.recv_command("log", msg="error: via logging", level=4)
        host.recv_command("ack", id="3")
        host.send_tuple("4", ["report", "something broke"])
        host.recv_command("error", msg="something broke")
        host.recv_command("ack", id="4")

    @json_only
    def test_multiline_json_and_crlf_cr_framing(self):
        host = self.started()
        pretty = json.dumps({"id": "ml", "comp": "src", "stream": "default", "task": 2,
                             "tuple": ["echo", "naïve ☃", {"k": [1, 2]}]}, indent=2)
        host.send_raw(pretty.replace("\n", "\r\n").encode("utf-8") + b"\r\nend\r\n")
        host.recv_command("emit", tuple=["naïve ☃", {"k": [1, 2]}], anchors=["ml"])
        host.recv_command("ack", id="ml")
        host.send_raw(b'{"id": "cr", "comp": "src", "stream": "default",\r'
                      b'"task": 2, "tuple": ["echo", "end "]}\rend\r')
        host.send_raw(b'{"id": "lf", "comp": "src", "stream": "default", "task": 2,\n'
                      b'"tuple": ["echo", 3]}\nend\n')
        host.recv_command("emit", tuple=["end "])
        host.recv_command("ack", id="cr")
        host.recv_command("emit", tuple=[3])
        host.recv_command("ack", id="lf")

    def test_eof_exits_cleanly_after_the_tuples_already_sent(self):
        host = self.started()
        host.send_tuple("last", ["echo", "bye"])
        host.close_stdin()
        host.recv_command("emit", tuple=["bye"])
        host.recv_command("ack", id="last")
        self.assertEqual(host.wait(), 0)
        host.assert_closed()
        self.assertNotIn("Traceback", host.stderr)

    def test_eof_while_waiting_for_task_ids_exits_cleanly(self):
        host = self.started()
        host.send_tuple("1", ["emit", "w"])
        host.recv_command("emit", tuple=["w"])
        host.close_stdin()
        self.assertEqual(host.wait(), 0)
        host.assert_closed()
        self.assertNotIn("Traceback", host.stderr)

    def test_eof_before_handshake(self):
        host = self.start("scripted_bolt.py")
        host.close_stdin()
        self.assertEqual(host.wait(), 0)
        host.assert_closed()

    def test_malformed_input_is_a_fatal_protocol_error(self):
        host = self.started()
        host.send_raw(host.malformed())
        error = host.recv_command("error")
        self.assertIn("protocol error", error["msg"])
        self.assertEqual(host.wait(), 1)


if __name__ == "__main__":
    unittest.main()
