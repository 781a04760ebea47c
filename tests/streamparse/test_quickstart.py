"""The project that the real streamparse's `sparse quickstart` writes (streamparse 5.0.1 from
the peers virtualenv; generated at test time, never committed), unchanged, under our `sparse
run`, and as a jar: every word the spout emits is executed and acked by the bolt, nothing fails.
Once with sparse's stand-ins for the components, once with the real streamparse on PATH.
Label peers: ctest runs it as streamparse_compat_real."""

import json
import os
import subprocess
import unittest

from support import ProjectDir, sparse


class QuickstartTest(unittest.TestCase):
    real = False

    def setUp(self):
        if os.environ.get("SPARSE_REQUIRE_PEERS") != "1":
            self.skipTest("runs as streamparse_compat_real (ctest label peers)")
        peers = os.environ.get("SPARSE_PEERS_DIR", os.path.expanduser("~/.cache/sparse-peers"))
        self.venv_bin = os.path.join(peers, "venv", "bin")
        if not os.path.exists(os.path.join(self.venv_bin, "sparse")):
            self.fail("no streamparse in %s: run scripts/peers.sh" % self.venv_bin)

    def quickstart(self, folder):
        env = dict(os.environ, LEIN_ROOT="1", PYTHONWARNINGS="ignore")  # streamparse asks
        env.pop("PYTHONPATH", None)
        made = subprocess.run([os.path.join(self.venv_bin, "sparse"), "quickstart",
                               "wordcount"], cwd=folder, env=env, capture_output=True,
                              text=True, timeout=120, stdin=subprocess.DEVNULL)
        self.assertEqual(made.returncode, 0, made.stdout + made.stderr)
        return os.path.join(folder, "wordcount")

    def environment(self):
        env = dict(os.environ)
        if self.real:
            env["PATH"] = self.venv_bin + os.pathsep + env.get("PATH", "")
        return env

    def check_nothing_lost(self, project, args):
        stats_file = os.path.join(project, "stats.json")
        result = sparse(["run", "-t", "4", "--no-ui", "--stats-json", stats_file] + args,
                        cwd=project, env=self.environment())
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(stats_file) as f:
            stats = {c["id"]: c for c in json.load(f)["components"]}
        spout, bolt = stats["word_spout"], stats["count_bolt"]
        self.assertGreater(spout["emitted"], 0)
        self.assertEqual(bolt["executed"], spout["emitted"])
        self.assertEqual(bolt["acked"], spout["emitted"])
        for c in (spout, bolt):
            self.assertEqual((c["failed"], c["errors"], c["restarts"]), (0, 0, 0), c)
        self.assertEqual("pystorm StormHandler logging enabled" in result.stderr, self.real)

    def test_run(self):
        with ProjectDir() as folder:
            self.check_nothing_lost(self.quickstart(folder.path), [])

    def test_jar(self):
        with ProjectDir() as folder:
            project = self.quickstart(folder.path)
            built = sparse(["jar"], cwd=project, env=self.environment())
            self.assertEqual(built.returncode, 0, built.stderr)
            self.check_nothing_lost(project, ["--jar", os.path.join(project, "_build",
                                                                    "wordcount.jar")])


class RealQuickstartTest(QuickstartTest):
    real = True


if __name__ == "__main__":
    unittest.main()
