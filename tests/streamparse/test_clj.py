"""The Clojure topology files of streamparse 2 and earlier (topologies/*.clj).

- data/clj_cases.txt: one topology file per case, good ones read back from `sparse visualize
  -f dot`, bad ones (adversarial) each a clear error naming t.clj and its line, exit 2;
- a few generated inputs no text file holds (bytes that are not UTF-8, NUL, nesting 5000 deep);
- both quickstart shapes run for real: the streamparse 2 `(defn wordcount [options] ...)` with
  python-spout-spec/python-bolt-spec over the wordcount fixture's components, and the first
  `(def wordcount [...])` with shell specs over the Parse.ly talk's scripts (fixtures/first_api).
"""

import os
import re
import unittest

from support import HERE, ProjectDir, run_with_stats, sparse

CONFIG = '{"serializer": "json", "topology_specs": "topologies/", "envs": {"prod": {}}}'


def load_cases():
    cases, name, expect, body = {}, None, None, None
    with open(os.path.join(HERE, "data", "clj_cases.txt")) as f:
        for line in f:
            if line.startswith("=== "):
                name, expect, body = line[4:].strip(), [], None
                cases[name] = (expect, [])
            elif name is None:
                continue
            elif body is None and line.startswith(("dot: ", "error: ")):
                kind, _, value = line.rstrip("\n").partition(": ")
                expect.append((kind, value))
            elif body is None and line.strip() == "---":
                body = cases[name][1]
            elif body is not None:
                body.append(line)
    return {n: (e, "".join(b)) for n, (e, b) in cases.items()}


CASES = load_cases()


class CljCasesTest(unittest.TestCase):

    def check(self, text, expect):
        with ProjectDir() as project:
            project.write("config.json", CONFIG)
            path = os.path.join(project.path, "topologies", "t.clj")
            os.makedirs(os.path.dirname(path))
            with open(path, "wb") as f:
                f.write(text if isinstance(text, bytes) else text.encode())
            result = sparse(["visualize", "t", "-f", "dot"], cwd=project.path, timeout=60)
            errors = [v for k, v in expect if k == "error"]
            if errors:
                line, _, pattern = errors[0].partition(": ")
                self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
                self.assertRegex(result.stderr, pattern)
                self.assertIn("%s:%s:" % (path, line), result.stderr)
                self.assertNotIn("Traceback", result.stderr)
            else:
                self.assertEqual(result.returncode, 0, result.stderr)
                for kind, fragment in expect:
                    self.assertIn(fragment, result.stdout)

    def test_cases_are_loaded(self):
        self.assertGreater(len(CASES), 40)
        for name, (expect, _) in CASES.items():
            self.assertTrue(expect, "case `%s` expects nothing" % name)

    def test_not_utf8(self):
        self.check(b'(def t [{"s" (shell-spout-spec ["x"] ["w"])}\n {"\xff" 1}])',
                   [("error", "2: the file is not UTF-8")])

    def test_nul_bytes(self):
        self.check('(def t [{"s" (shell-spout-spec ["x\0"] ["w"])} {}])\n\0',
                   [("error", "2: is not something this reader knows")])

    def test_deep_nesting(self):
        self.check("(def t " + "[" * 5000, [("error", "1: forms nested deeper than 64")])

    def test_long_garbage(self):
        self.check("(def t [" + "x " * 200000 + "])",
                   [("error", "1: the topology must be a vector of two maps")])


for _name in CASES:
    def _test(self, name=_name):
        expect, text = CASES[name]
        self.check(text, expect)
    setattr(CljCasesTest, "test_" + re.sub(r"\W+", "_", _name).strip("_"), _test)


class CljRunTest(unittest.TestCase):

    def test_streamparse2_quickstart_counts_every_word(self):
        with ProjectDir("wordcount") as project:
            os.remove(os.path.join(project.path, "topologies", "wordcount.py"))
            expect, text = CASES["the quickstart of streamparse 2 (defn, python specs, fields "
                                 "grouping, :p)"]
            project.write("topologies/wordcount.clj",
                          text.replace("bolts.wordcount.WordCounter",
                                       "bolts.wordcount.WordCountBolt"))
            env = dict(os.environ, SPARSE_TEST_OUT=os.path.join(project.path, "out"))
            result, by_id = run_with_stats(["-t", "90", "--stop-when-idle", "3"], project.path,
                                           env)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(by_id["word-spout"]["acked"], 300)
            self.assertEqual(by_id["count-bolt"]["executed"], 300)
            self.assertEqual(by_id["count-bolt"]["tasks"], 2)

    def test_first_quickstart_shape_runs_the_talks_scripts(self):
        with ProjectDir("first_api") as project:
            project.write("topology.clj",
                          '(def wordcount [{"word-spout" (shell-spout-spec ["python3" '
                          '"words.py"] ["word"])} {"count-bolt" (shell-bolt-spec '
                          '{"word-spout" ["word"]} ["python3" "wordcount.py"] '
                          '["word" "count"] :p 2)}])\n')
            result, by_id = run_with_stats(["topology.clj", "-t", "60", "--stop-when-idle", "2"],
                                           project.path)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(by_id["word-spout"]["acked"], 90)
            self.assertEqual(by_id["count-bolt"]["executed"], 90)


if __name__ == "__main__":
    unittest.main()
