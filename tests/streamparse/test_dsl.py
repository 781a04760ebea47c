"""streamparse's topology DSL as sparse reads it, one case per topology file.

Each case is a topology (topologies/t.py) over the components of COMPONENTS (src/comps.py), in
a project whose config.json has two environments. A good case lists what the model must hold,
read back from `sparse visualize -f dot` (components, parallelism, edges with their grouping);
a bad one, the message and the line `sparse` must name, with exit code 2.
"""

import os
import re
import unittest

from support import ProjectDir, sparse

CONFIG = """{
  "serializer": "json",
  "topology_specs": "topologies/",
  "virtualenv_specs": "virtualenvs/",
  "envs": {
    "prod": {"nimbus": "nimbus.example.com:6627", "workers": ["w1", "w2"], "options": {}},
    "beta": {"nimbus": "localhost", "use_ssh_for_nimbus": false}
  }
}
"""

COMPONENTS = """
from streamparse import Bolt, Spout, Stream


class Words(Spout):
    outputs = ["word"]


class Split(Bolt):
    outputs = [Stream(["word", "n"]), Stream(["msg"], name="alerts"),
               Stream(["word"], name="picked", direct=True)]


class Sink(Bolt):
    outputs = []


class DirectOut(Spout):
    outputs = [Stream(["x"], direct=True)]


class Wide(Bolt):
    par = 3
    outputs = ["a"]
"""

HEADER = "from streamparse import Grouping, Stream, Topology, ShellBolt, JavaBolt\n" \
         "from comps import Words, Split, Sink, DirectOut, Wide\n\n\n"

# name: (topology body, command-line args, expected dot fragments or (error regex, line))
CASES = {
    "fields grouping and named streams": (
        "class T(Topology):\n"
        "    words = Words.spec()\n"
        "    split = Split.spec(inputs={words: Grouping.fields('word')})\n"
        "    alerts = Sink.spec(inputs=[split['alerts']])\n"
        "    counts = Sink.spec(inputs={split['default']: Grouping.fields('word', 'n')}, par=2)\n",
        [],
        ['"words" -> "split"', "fields(word)", '"split" -> "alerts"', "alerts", "fields(word, n)"]),
    "par per environment": (
        "class T(Topology):\n"
        "    words = Words.spec(par={'prod': 4, 'beta': 1})\n"
        "    sink = Sink.spec(inputs=[words], par={'prod': 2, 'beta': 1})\n",
        ["-e", "prod"],
        ["x4", "x2"]),
    "par from the class attribute": (
        "class T(Topology):\n"
        "    words = Words.spec()\n"
        "    wide = Wide.spec(inputs=[words])\n",
        [],
        ["x3"]),
    "direct stream gets direct grouping": (
        "class T(Topology):\n"
        "    src = DirectOut.spec()\n"
        "    sink = Sink.spec(inputs=[src])\n",
        [],
        ["direct"]),
    "global, all, none, local_or_shuffle": (
        "class T(Topology):\n"
        "    words = Words.spec()\n"
        "    a = Sink.spec(inputs={words: Grouping.GLOBAL})\n"
        "    b = Sink.spec(inputs={words: Grouping.ALL})\n"
        "    c = Sink.spec(inputs={words: Grouping.NONE})\n"
        "    d = Sink.spec(inputs={words: Grouping.LOCAL_OR_SHUFFLE})\n",
        [],
        ["global", "all", "none", "local_or_shuffle"]),
    "shell bolt and name=": (
        "class T(Topology):\n"
        "    words = Words.spec(name='word-spout')\n"
        "    node = ShellBolt.spec(command='node', script='splitsentence.js', outputs=['w'],\n"
        "                          inputs=[words])\n",
        [],
        ['"word-spout" -> "node"']),
    "java bolt refused": (
        "class T(Topology):\n"
        "    words = Words.spec()\n"
        "    java = JavaBolt.spec(full_class_name='com.example.Counter', args_list=[],\n"
        "                         inputs=[words], outputs=['c'])\n",
        [],
        (r"JavaBolt \(com\.example\.Counter\).*no JVM", 7)),
    "unknown field in fields grouping": (
        "class T(Topology):\n"
        "    words = Words.spec()\n"
        "    sink = Sink.spec(inputs={words: Grouping.fields('nope')})\n",
        [],
        (r"Field 'nope' specified in grouping is not a valid output field", 7)),
    "bolt without inputs": (
        "class T(Topology):\n"
        "    words = Words.spec()\n"
        "    sink = Sink.spec()\n",
        [],
        (r'Sink "sink" requires at least one input', 7)),
    "unknown stream": (
        "class T(Topology):\n"
        "    words = Words.spec()\n"
        "    sink = Sink.spec(inputs=[words['nope']])\n",
        [],
        (r"Invalid stream for Words: 'nope'", 7)),
    "bad par": (
        "class T(Topology):\n"
        "    words = Words.spec(par=0)\n",
        [],
        (r"Parallelism hint must be an integer greater than 0", 6)),
    "par without the environment": (
        "class T(Topology):\n"
        "    words = Words.spec(par={'prod': 4})\n",
        ["-e", "beta"],
        (r"`par` of words has no entry for environment `beta`", 6)),
    "syntax error": (
        "class T(Topology):\n"
        "    words = Words.spec(\n",
        [],
        (r"SyntaxError", 6)),
    "component imports a missing package": (
        "import not_installed_anywhere\n"
        "class T(Topology):\n"
        "    words = Words.spec()\n",
        [],
        (r"ModuleNotFoundError: No module named 'not_installed_anywhere'.*SPARSE_PYTHON", 5)),
    "topology that never finishes": (
        "while True:\n"
        "    pass\n",
        [],
        (r"evaluating the topology took over 3 s", 0)),
    "no topology class": (
        "X = 1\n",
        [],
        (r"no Topology subclass", 0)),
}


class DslTest(unittest.TestCase):
    def run_case(self, name):
        body, args, expected = CASES[name]
        with ProjectDir() as project:
            project.write("config.json", CONFIG)
            project.write("src/comps.py", COMPONENTS)
            path = project.write("topologies/t.py", HEADER + body)
            env = dict(os.environ, SPARSE_TOPOLOGY_EVAL_SECS="3")
            result = sparse(["visualize", "-f", "dot"] + args, cwd=project.path, env=env)
            if isinstance(expected, tuple):
                pattern, line = expected
                self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
                self.assertRegex(result.stderr, pattern)
                self.assertIn(path + (":%d" % line if line else ""), result.stderr)
            else:
                self.assertEqual(result.returncode, 0, result.stderr)
                for fragment in expected:
                    self.assertIn(fragment, result.stdout, result.stdout)


for _name in CASES:
    def _test(self, name=_name):
        self.run_case(name)
    setattr(DslTest, "test_" + re.sub(r"\W+", "_", _name).strip("_"), _test)


if __name__ == "__main__":
    unittest.main()
