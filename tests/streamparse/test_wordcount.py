"""An unchanged streamparse project (fixtures/wordcount: config.json, project.clj, fabfile.py,
topologies/wordcount.py in streamparse's DSL, src/ importing `from streamparse import`) runs
under `sparse run`, every word counted exactly once, by the task its fields grouping chose."""

import collections
import glob
import json
import os
import unittest

from support import ProjectDir, sparse

EXPECTED = {"dog": 600, "cat": 60, "zebra": 60, "elephant": 60, "apple": 60}  # dog counts 10


class WordcountTest(unittest.TestCase):
    """With sparse's stand-ins: the interpreter has neither streamparse nor pystorm."""

    def environment(self):
        env = dict(os.environ)
        env.pop("SPARSE_PYTHON", None)
        return env

    def logs_text(self, project):
        text = ""
        for path in glob.glob(os.path.join(project.path, "logs", "**", "*"), recursive=True):
            if os.path.isfile(path):
                with open(path, errors="replace") as f:
                    text += f.read()
        return text

    def check_real_pystorm(self, logs):
        self.assertNotIn("pystorm StormHandler logging enabled", logs)

    def test_counts_every_word_exactly(self):
        with ProjectDir("wordcount") as project:
            result = sparse(["run", "-e", "prod", "-t", "90", "--stop-when-idle", "3", "--no-ui"],
                            cwd=project.path, env=self.environment())
            self.assertEqual(result.returncode, 0, result.stderr)
            # config.json's keys with no meaning here are named once, never an error.
            self.assertIn("use_ssh_for_nimbus", result.stderr)
            self.assertEqual(result.stderr.count("ignoring what has no meaning here"), 1)
            self.check_counts(project, result)

    def test_jar_counts_every_word_exactly(self):
        """`sparse jar`, then the jar run as a Storm worker runs it (launchers, the jar's copy
        of the adapter and stand-ins)."""
        with ProjectDir("wordcount") as project:
            built = sparse(["jar"], cwd=project.path, env=self.environment())
            self.assertEqual(built.returncode, 0, built.stderr)
            jar = os.path.join(project.path, "_build", "wordcount.jar")
            env = self.environment()
            env["SPARSE_TEST_OUT"] = os.path.join(project.path, "out")
            result = sparse(["run", "--jar", jar, "-t", "90", "--stop-when-idle", "3",
                             "--no-ui"], cwd=project.path, env=env)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.check_counts(project, result)

    def check_counts(self, project, result):
        """Every word counted exactly once, each by one task (its fields grouping's)."""
        final = {}
        owner = collections.defaultdict(set)
        lines = 0
        for path in glob.glob(os.path.join(project.path, "out", "count-*.jsonl")):
            with open(path) as f:
                for line in f:
                    record = json.loads(line)
                    lines += 1
                    final[record["word"]] = max(final.get(record["word"], 0),
                                                record["count"])
                    owner[record["word"]].add(path)
        self.assertEqual(lines, 300)
        self.assertEqual(final, EXPECTED)
        for word, files in owner.items():
            self.assertEqual(len(files), 1, "%s counted by several tasks" % word)
        # pystorm announces its log handler in its first message; the console shows it.
        self.check_real_pystorm(result.stderr + self.logs_text(project))


class RealStreamparseTest(WordcountTest):
    """The same project with the real streamparse and pystorm (the peers virtualenv first on
    PATH: its streamparse_run runs the components)."""

    def setUp(self):
        if os.environ.get("SPARSE_REQUIRE_PEERS") != "1":
            self.skipTest("runs as streamparse_compat_real (ctest label peers)")
        peers = os.environ.get("SPARSE_PEERS_DIR",
                               os.path.expanduser("~/.cache/sparse-peers"))
        self.venv_bin = os.path.join(peers, "venv", "bin")
        if not os.path.exists(os.path.join(self.venv_bin, "streamparse_run")):
            self.fail("no streamparse in %s: run scripts/peers.sh" % self.venv_bin)

    def environment(self):
        env = super().environment()
        env["PATH"] = self.venv_bin + os.pathsep + env.get("PATH", "")
        return env

    def check_real_pystorm(self, logs):
        self.assertIn("pystorm StormHandler logging enabled", logs)



if __name__ == "__main__":
    unittest.main()
