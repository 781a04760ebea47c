"""``python3 -m sparse_multilang.run module:Class``."""

import sys
import unittest

from host import HostTestCase


class RunModuleTest(HostTestCase, unittest.TestCase):
    def run_module(self, spec):
        return self.start_argv([sys.executable, "-m", "sparse_multilang.run", spec])

    def test_runs_the_class_and_turns_import_time_prints_into_logs(self):
        host = self.run_module("run_target:Echo")
        host.handshake()
        host.recv_command("log", msg="printed while importing")
        host.send_tuple("1", ["x", 2])
        host.recv_command("emit", tuple=["x", 2], anchors=["1"])
        host.recv_command("ack", id="1")
        host.close_stdin()
        self.assertEqual(host.wait(), 0)
        host.assert_closed()

    def test_bad_specs_fail_with_a_message(self):
        for spec, status, text in (("run_target", 1, "expected MODULE:CLASS"),
                                   ("run_target:Missing", 1, "AttributeError"),
                                   ("run_target:NotAComponent", 1, "not a sparse_multilang"),
                                   ("no_such_module:X", 1, "ModuleNotFoundError")):
            with self.subTest(spec=spec):
                host = self.run_module(spec)
                self.assertEqual(host.wait(), status)
                host.assert_closed()
                self.assertIn(text, host.stderr)


if __name__ == "__main__":
    unittest.main()
