"""Python dependencies travel with the topology (issue 13): a streamparse project's
virtualenvs/NAME.txt, or sparse.yaml's python_requirements, names a package a bolt imports.

- `sparse run` builds a cached virtualenv from it (python3 -m venv + pip; once: a second run
  reuses it), and the bolt imports the package from there;
- `sparse jar` carries the package (pip install --target) and `sparse run --jar` runs the jar
  with a Python that has no packages at all (a fresh virtualenv without pip), as a bare worker;
- a pip failure and a malformed line are clear errors naming the file (exit 3 and 2).

The package is a tiny pure-Python wheel written by the test itself, and pip runs with
PIP_NO_INDEX=1: no network. The `streamparse` line every streamparse project has is left out
(sparse brings its own), with a note."""

import base64
import glob
import hashlib
import json
import os
import subprocess
import sys
import unittest
import zipfile

from support import ProjectDir, sparse


def setUpModule():
    # Builds virtualenvs (about a minute): its own ctest, streamparse_requirements, which runs
    # in parallel with streamparse_compat.
    if os.environ.get("SPARSE_REQUIREMENTS_TESTS") != "1":
        raise unittest.SkipTest("runs as streamparse_requirements")

PACKAGE = "sparsetinydep"
WHEEL = "%s-1.0-py3-none-any.whl" % PACKAGE
WORDS = ["dog", "cat", "zebra"]

SPOUT = '''
from streamparse import Spout


class WordSpout(Spout):
    outputs = ["word"]

    def initialize(self, conf, ctx):
        self.words = iter(%r)

    def next_tuple(self):
        word = next(self.words, None)
        if word is not None:
            self.emit([word], tup_id=word)
''' % WORDS

BOLT = '''
import json
import os

import %s
from streamparse import Bolt


class ShoutBolt(Bolt):
    def initialize(self, conf, ctx):
        os.makedirs(os.environ["SPARSE_TEST_OUT"], exist_ok=True)
        self.out = open(os.path.join(os.environ["SPARSE_TEST_OUT"], "shouts.jsonl"), "a")

    def process(self, tup):
        self.out.write(json.dumps(%s.shout(tup.values.word)) + "\\n")
        self.out.flush()
''' % (PACKAGE, PACKAGE)

TOPOLOGY = '''
from streamparse import Topology

from bolts.shout import ShoutBolt
from spouts.words import WordSpout


class Deps(Topology):
    word_spout = WordSpout.spec()
    shout_bolt = ShoutBolt.spec(inputs=[word_spout])
'''

YAML_TOPOLOGY = """
name: t
spouts:
  - {id: words, command: [streamparse_run, spouts.words.WordSpout], outputs: [word]}
bolts:
  - {id: shout, command: [streamparse_run, bolts.shout.ShoutBolt], inputs: [{from: words}]}
"""

CONFIG = {"serializer": "json", "topology_specs": "topologies/",
          "virtualenv_specs": "virtualenvs/", "envs": {"prod": {"nimbus": "", "workers": []}}}


def write_wheel(folder):
    """A minimal, valid pure-Python wheel: the module, METADATA, WHEEL and RECORD."""
    files = {
        "%s/__init__.py" % PACKAGE: "def shout(word):\n    return word.upper() + '!'\n",
        "%s-1.0.dist-info/METADATA" % PACKAGE:
            "Metadata-Version: 2.1\nName: %s\nVersion: 1.0\n" % PACKAGE,
        "%s-1.0.dist-info/WHEEL" % PACKAGE:
            "Wheel-Version: 1.0\nGenerator: sparse-test\nRoot-Is-Purelib: true\n"
            "Tag: py3-none-any\n",
    }
    record = ""
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record += "%s,sha256=%s,%d\n" % (name, digest.decode(), len(text.encode()))
    record += "%s-1.0.dist-info/RECORD,,\n" % PACKAGE
    files["%s-1.0.dist-info/RECORD" % PACKAGE] = record
    os.makedirs(folder, exist_ok=True)
    with zipfile.ZipFile(os.path.join(folder, WHEEL), "w") as z:
        for name, text in files.items():
            z.writestr(name, text)


class RequirementsTest(unittest.TestCase):

    def project(self, requirements):
        p = ProjectDir()
        p.write("config.json", json.dumps(CONFIG))
        p.write("topologies/deps.py", TOPOLOGY)
        p.write("src/spouts/__init__.py", "")
        p.write("src/spouts/words.py", SPOUT)
        p.write("src/bolts/__init__.py", "")
        p.write("src/bolts/shout.py", BOLT)
        p.write("virtualenvs/deps.txt", requirements)
        write_wheel(os.path.join(p.path, "wheels"))
        return p

    def environment(self, project):
        env = dict(os.environ, PIP_NO_INDEX="1", SPARSE_TEST_OUT=os.path.join(project.path, "out"))
        env.pop("SPARSE_PYTHON", None)
        env.pop("VIRTUAL_ENV", None)
        return env

    def run_topology(self, project, env, extra=()):
        return sparse(["run", "-t", "60", "--stop-when-idle", "2", "--no-ui"] + list(extra),
                      cwd=project.path, env=env, timeout=300)

    def shouts(self, project):
        path = os.path.join(project.path, "out", "shouts.jsonl")
        if not os.path.exists(path):
            return []
        with open(path) as f:
            return sorted(json.loads(line) for line in f)

    def test_run_builds_the_virtualenv_once(self):
        with self.project("streamparse  # as streamparse's quickstart writes\n"
                          "./wheels/%s\n" % WHEEL) as project:
            env = self.environment(project)
            first = self.run_topology(project, env)
            self.assertEqual(first.returncode, 0, first.stderr)
            self.assertIn("building the virtualenv of `deps` from", first.stderr)
            self.assertIn("virtualenvs/deps.txt:1: `streamparse` is left out", first.stderr)
            self.assertIn("Successfully installed %s-1.0" % PACKAGE, first.stderr)  # pip's own
            self.assertEqual(self.shouts(project), sorted(w.upper() + "!" for w in WORDS))
            venvs = glob.glob(os.path.join(project.path, "_build", "venv", "deps-*"))
            self.assertEqual(len([v for v in venvs if os.path.isdir(v)]), 1, venvs)

            # visualize evaluates the topology, which imports the bolt, in the same virtualenv.
            shown = sparse(["visualize", "-f", "dot"], cwd=project.path, env=env)
            self.assertEqual(shown.returncode, 0, shown.stderr)
            self.assertIn('"word_spout" -> "shout_bolt"', shown.stdout)
            self.assertNotIn("building the virtualenv", shown.stderr)

            second = self.run_topology(project, env)
            self.assertEqual(second.returncode, 0, second.stderr)
            self.assertNotIn("building the virtualenv", second.stderr)
            self.assertEqual(len(self.shouts(project)), 2 * len(WORDS))

            # A changed file is a new virtualenv; the old one goes.
            project.write("virtualenvs/deps.txt", "--find-links ./wheels\n./wheels/%s\n" % WHEEL)
            third = self.run_topology(project, env)
            self.assertEqual(third.returncode, 0, third.stderr)
            self.assertIn("building the virtualenv", third.stderr)
            venvs = glob.glob(os.path.join(project.path, "_build", "venv", "deps-*"))
            self.assertEqual(len([v for v in venvs if os.path.isdir(v)]), 1, venvs)

    def test_without_requirements_the_import_fails(self):
        """The control: the same project without the line cannot import the package."""
        with self.project("streamparse\n") as project:
            result = self.run_topology(project, self.environment(project))
            self.assertNotEqual(result.returncode, 0)
            self.assertIn("No module named '%s'" % PACKAGE, result.stderr)

    def test_pip_failure_names_the_file(self):
        with self.project("./wheels/missing-1.0-py3-none-any.whl\n") as project:
            result = self.run_topology(project, self.environment(project))
            self.assertEqual(result.returncode, 3, result.stderr)
            self.assertIn("pip could not install the requirements in", result.stderr)
            self.assertIn(os.path.join("virtualenvs", "deps.txt"), result.stderr)
            left = glob.glob(os.path.join(project.path, "_build", "venv", "deps-*"))
            self.assertEqual([v for v in left if os.path.isdir(v)], [])  # the log stays

    def test_jar_carries_the_packages_to_a_bare_python(self):
        with self.project("streamparse\n./wheels/%s\n" % WHEEL) as project:
            env = self.environment(project)
            built = sparse(["jar"], cwd=project.path, env=env, timeout=300)
            self.assertEqual(built.returncode, 0, built.stderr)
            # One virtualenv: its pip installs for the jar too.
            self.assertEqual(built.stderr.count("building the virtualenv"), 1, built.stderr)
            jar = os.path.join(project.path, "_build", "deps.jar")
            with zipfile.ZipFile(jar) as z:
                self.assertIn("resources/_sparse/site/%s/__init__.py" % PACKAGE, z.namelist())
            # A worker whose Python has nothing installed: a fresh virtualenv without pip.
            bare = os.path.join(project.path, "bare")
            subprocess.run([sys.executable, "-m", "venv", "--without-pip", bare], check=True)
            bare_python = os.path.join(bare, "bin", "python")
            probe = subprocess.run([bare_python, "-c", "import %s" % PACKAGE],
                                   capture_output=True, cwd=bare)
            self.assertNotEqual(probe.returncode, 0)
            env["PATH"] = os.path.join(bare, "bin") + os.pathsep + env["PATH"]
            env["SPARSE_PYTHON"] = bare_python
            env.pop("PYTHONPATH", None)
            result = self.run_topology(project, env, ["--jar", jar])
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(self.shouts(project), sorted(w.upper() + "!" for w in WORDS))
            # Again, from the cache: the same packages at the same place.
            again = sparse(["jar"], cwd=project.path, env=self.environment(project))
            self.assertEqual(again.returncode, 0, again.stderr)
            self.assertNotIn("python: installing", again.stderr)
            with zipfile.ZipFile(jar) as z:
                self.assertIn("resources/_sparse/site/%s/__init__.py" % PACKAGE, z.namelist())

    def test_workers_python_version(self):
        with self.project("./wheels/%s\n" % WHEEL) as project:
            env = self.environment(project)
            bad = sparse(["jar", "--python-version", "three"], cwd=project.path, env=env)
            self.assertEqual(bad.returncode, 1, bad.stderr)
            self.assertIn("3.MINOR", bad.stderr)
            self.assertNotIn("building the virtualenv", bad.stderr)  # checked first
            env["SPARSE_WORKER_PYTHON_VERSION"] = "3.9"
            built = sparse(["jar"], cwd=project.path, env=env, timeout=300)
            self.assertEqual(built.returncode, 0, built.stderr)
            self.assertIn("for the jar (workers' Python 3.9)", built.stderr)
            with zipfile.ZipFile(os.path.join(project.path, "_build", "deps.jar")) as z:
                self.assertIn("resources/_sparse/site/%s/__init__.py" % PACKAGE, z.namelist())
            self.assertTrue(glob.glob(os.path.join(project.path, "_build", "venv",
                                                   "deps-*-site-py3.9")))


class SparseYamlRequirementsTest(unittest.TestCase):
    """sparse.yaml's `python_requirements` list, for a YAML topology."""

    def test_malformed_lines_name_file_and_line(self):
        with ProjectDir() as project:
            project.write("sparse.yaml", "project: p\npython_requirements:\n  - requests>=2\n"
                          "  - not a requirement\n  - --bogus-option\n")
            project.write("topologies/t.yaml", "name: t\nspouts: []\nbolts: []\n")
            result = sparse(["run", "-t", "1", "--no-ui"], cwd=project.path)
            self.assertEqual(result.returncode, 2, result.stderr)
            self.assertIn("sparse.yaml:4: `not a requirement` is not a requirement", result.stderr)
            self.assertIn("sparse.yaml:5: `--bogus-option`", result.stderr)

    def test_not_a_list(self):
        with ProjectDir() as project:
            project.write("sparse.yaml", "project: p\npython_requirements: requests\n")
            project.write("topologies/t.yaml", "name: t\nspouts: []\nbolts: []\n")
            result = sparse(["jar"], cwd=project.path)
            self.assertEqual(result.returncode, 2, result.stderr)
            self.assertIn("sparse.yaml:2: `python_requirements` must be a list", result.stderr)

    def test_yaml_topology_runs_with_its_requirements(self):
        with ProjectDir() as project:
            write_wheel(os.path.join(project.path, "wheels"))
            project.write("sparse.yaml", "project: p\npython_requirements:\n"
                          "  - ./wheels/%s\n" % WHEEL)
            project.write("src/spouts/__init__.py", "")
            project.write("src/spouts/words.py", SPOUT)
            project.write("src/bolts/__init__.py", "")
            project.write("src/bolts/shout.py", BOLT)
            project.write("topologies/t.yaml", YAML_TOPOLOGY)
            env = dict(os.environ, PIP_NO_INDEX="1",
                       SPARSE_TEST_OUT=os.path.join(project.path, "out"))
            result = sparse(["run", "-t", "60", "--stop-when-idle", "2", "--no-ui"],
                            cwd=project.path, env=env, timeout=300)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertIn("building the virtualenv of `t` from", result.stderr)
            with open(os.path.join(project.path, "out", "shouts.jsonl")) as f:
                self.assertEqual(sorted(json.loads(line) for line in f),
                                 sorted(w.upper() + "!" for w in WORDS))

if __name__ == "__main__":
    unittest.main()
