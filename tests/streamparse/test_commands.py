"""streamparse's commands and flags that act on local things: `update_virtualenv` (checks the
requirements file, explains where dependencies go), `remove_logs` (the local run's component
logs), `tail -n NAME / -l N / --pattern`, and `stats -n NAME -c C --all` against a live run."""

import json
import os
import signal
import subprocess
import time
import unittest

from support import ProjectDir, sparse, sparse_binary

LOG_LINE = "2026-01-01 00:00:%02d.000 %s line %d\n"


def write_logs(project):
    """Three component logs, as a run leaves them, and one file that is not a log."""
    for second, component in enumerate(["count", "count-bolt", "word-spout"]):
        project.write("logs/%s.log" % component,
                      "".join(LOG_LINE % (second * 10 + i, component, i) for i in range(3)))
    project.write("logs/notes.txt", "not a component log\n")


class UpdateVirtualenvTest(unittest.TestCase):

    def test_explains_and_checks_the_file(self):
        with ProjectDir("wordcount") as project:
            result = sparse(["update_virtualenv", "-e", "prod"], cwd=project.path)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertIn("sparse builds no virtualenvs on workers", result.stderr)
            self.assertIn("in the jar", result.stderr)
            # The quickstart's file names only streamparse, which sparse brings.
            self.assertIn("`streamparse` is left out", result.stderr)
            self.assertIn("needs no packages beyond what sparse brings", result.stderr)

    def test_missing_file(self):
        with ProjectDir("wordcount") as project:
            os.remove(os.path.join(project.path, "virtualenvs", "wordcount.txt"))
            result = sparse(["update_virtualenv", "-n", "wordcount"], cwd=project.path)
            self.assertEqual(result.returncode, 1, result.stderr)
            self.assertIn("no requirements file", result.stderr)
            self.assertIn(os.path.join("virtualenvs", "wordcount.txt"), result.stderr)

    def test_unreadable_line_names_file_and_line(self):
        with ProjectDir("wordcount") as project:
            project.write("virtualenvs/wordcount.txt", "streamparse\n\nsimplejson>=3 ; x\n"
                          "what is this\n-r\n")
            result = sparse(["update_virtualenv"], cwd=project.path)
            self.assertEqual(result.returncode, 2, result.stderr)
            self.assertIn("wordcount.txt:4: `what is this` is not a requirement", result.stderr)
            self.assertIn("wordcount.txt:5: `-r` needs a file name", result.stderr)
            self.assertNotIn("wordcount.txt:3", result.stderr)


class RemoveLogsTest(unittest.TestCase):

    def test_removes_component_logs_and_names_them(self):
        with ProjectDir("wordcount") as project:
            write_logs(project)
            result = sparse(["remove_logs", "-n", "wordcount"], cwd=project.path)
            self.assertEqual(result.returncode, 0, result.stderr)
            logs = os.path.join(project.path, "logs")
            self.assertEqual(result.stdout.split(),
                             sorted(os.path.join(logs, c + ".log")
                                    for c in ["count", "count-bolt", "word-spout"]))
            self.assertIn("removed 3 logs", result.stderr)
            self.assertEqual(os.listdir(logs), ["notes.txt"])
            again = sparse(["remove_logs"], cwd=project.path)
            self.assertEqual(again.returncode, 0, again.stderr)
            self.assertIn("no component logs in", again.stderr)

    def test_unknown_topology(self):
        with ProjectDir("wordcount") as project:
            write_logs(project)
            result = sparse(["remove_logs", "-n", "nope"], cwd=project.path)
            self.assertEqual(result.returncode, 1, result.stderr)
            self.assertTrue(os.path.exists(os.path.join(project.path, "logs", "count.log")))


class TailTest(unittest.TestCase):

    def test_streamparse_flags(self):
        with ProjectDir("wordcount") as project:
            write_logs(project)
            # -n NAME is the topology (streamparse), -l N the entries, --pattern a glob.
            result = sparse(["tail", "-n", "wordcount", "-l", "2", "--pattern", "count*"],
                            cwd=project.path)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(result.stdout.splitlines(), [
                "count-bolt | 2026-01-01 00:00:11.000 count-bolt line 1",
                "count-bolt | 2026-01-01 00:00:12.000 count-bolt line 2"])
            # -n N is still a number of entries.
            result = sparse(["tail", "-n", "1", "--pattern", "word-*"], cwd=project.path)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(result.stdout.splitlines(),
                             ["word-spout | 2026-01-01 00:00:22.000 word-spout line 2"])
            result = sparse(["tail", "--pattern", "nothing*"], cwd=project.path)
            self.assertEqual(result.returncode, 1)
            self.assertIn("matches --pattern `nothing*`", result.stderr)
            result = sparse(["tail", "-n", "nope"], cwd=project.path)
            self.assertEqual(result.returncode, 1)
            self.assertIn("no topology file or project topology named `nope`", result.stderr)


class StatsTest(unittest.TestCase):
    """`sparse stats` with streamparse's flags, against a run of the wordcount project."""

    def test_name_component_all(self):
        with ProjectDir("wordcount") as project:
            env = dict(os.environ, SPARSE_TEST_OUT=os.path.join(project.path, "out"))
            run = subprocess.Popen([sparse_binary(), "run", "-t", "120"], cwd=project.path,
                                   env=env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                state = os.path.join(project.path, ".sparse", "run.json")
                deadline = time.monotonic() + 60
                while not os.path.exists(state) and time.monotonic() < deadline:
                    time.sleep(0.2)
                self.assertTrue(os.path.exists(state), "the run wrote no .sparse/run.json")
                one = sparse(["stats", "-n", "wordcount", "-c", "count_bolt", "--json"],
                             cwd=project.path)
                self.assertEqual(one.returncode, 0, one.stderr)
                ids = [c["id"] for c in json.loads(one.stdout)["components"]]
                self.assertEqual(ids, ["count_bolt"])
                every = sparse(["stats", "-n", "wordcount", "-c", "count_bolt", "--all",
                                "--json"], cwd=project.path)
                self.assertEqual(every.returncode, 0, every.stderr)
                ids = sorted(c["id"] for c in json.loads(every.stdout)["components"])
                self.assertEqual(ids, ["count_bolt", "word_spout"])
                wrong = sparse(["stats", "-n", "other"], cwd=project.path)
                self.assertEqual(wrong.returncode, 1)
                self.assertIn("the topology running here is `wordcount`, not `other`",
                              wrong.stderr)
                # remove_logs refuses while the run writes them.
                busy = sparse(["remove_logs"], cwd=project.path)
                self.assertEqual(busy.returncode, 1, busy.stderr)
                self.assertIn("still writes the logs", busy.stderr)
            finally:
                run.send_signal(signal.SIGINT)
                try:
                    run.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    run.kill()
                    run.wait()


if __name__ == "__main__":
    unittest.main()
