"""A folder with streamparse's config.json is a project; its keys mean what they meant."""

import json
import os
import unittest
import zipfile

from support import ProjectDir, sparse

TOPOLOGY = """from streamparse import Topology, Spout, Bolt

class W(Spout):
    outputs = ["w"]

class S(Bolt):
    pass

class T(Topology):
    w = W.spec(par={"prod": 3, "beta": 1})
    s = S.spec(inputs=[w])
"""


class ProjectTest(unittest.TestCase):
    def test_other_config_json_is_not_a_project(self):
        with ProjectDir() as project:
            project.write("config.json", '{"name": "some web app"}')
            project.write("topologies/t.py", TOPOLOGY)
            result = sparse(["visualize"], cwd=project.path)
            self.assertEqual(result.returncode, 1)
            self.assertIn("not inside a sparse project", result.stderr)

    def test_only_environment_is_the_default(self):
        with ProjectDir() as project:
            project.write("config.json", '{"topology_specs": "topologies/", "envs": '
                                         '{"prod": {"nimbus": "localhost:6627"}}}')
            project.write("topologies/t.py", TOPOLOGY)
            result = sparse(["visualize", "-n", "t"], cwd=project.path)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertIn("x3", result.stdout)
            self.assertNotIn("ignoring", result.stderr)  # nothing to ignore here

    def test_several_environments_need_one_for_par(self):
        with ProjectDir() as project:
            project.write("config.json", '{"envs": {"prod": {}, "beta": {}}}')
            project.write("topologies/t.py", TOPOLOGY)
            result = sparse(["visualize"], cwd=project.path)
            self.assertEqual(result.returncode, 2)
            self.assertIn("t.py:10: `par` of w is given per environment", result.stderr)
            result = sparse(["visualize", "-e", "beta"], cwd=project.path)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertIn("x1", result.stdout)

    def test_topology_specs_folder_and_ignored_keys(self):
        with ProjectDir() as project:
            project.write("config.json", '{"topology_specs": "specs/", "envs": {"prod": '
                                         '{"user": "storm", "virtualenv_root": "/data/venvs", '
                                         '"nimbus": "n:6627"}}}')
            project.write("specs/t.py", TOPOLOGY)
            result = sparse(["visualize", "-e", "prod"], cwd=project.path)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertIn("`user`", result.stderr)
            self.assertIn("never over SSH", result.stderr)
            self.assertIn("`virtualenv_root`", result.stderr)

    def test_invalid_json_names_the_file(self):
        with ProjectDir() as project:
            project.write("config.json", '{"envs": {"prod": {"nimbus": 5}}, "serializer": []}')
            project.write("topologies/t.py", TOPOLOGY)
            result = sparse(["visualize", "-e", "prod"], cwd=project.path)
            self.assertNotEqual(result.returncode, 0)
            self.assertIn("config.json:1: `serializer` must be json or msgpack", result.stderr)


    def test_submit_takes_streamparse_flags_and_precedence(self):
        """`submit -n NAME` picks the topology among several, -N renames it, -a/-w set their
        keys; config.json's env gives Nimbus, workers (the host count) and options, under the
        topology's config; its serializer reaches each streamparse_run command."""
        with ProjectDir() as project:
            project.write("config.json", json.dumps({
                "serializer": "msgpack", "topology_specs": "topologies/",
                "envs": {"prod": {"nimbus": "nimbus.example.com:6699",
                                  "workers": ["a", "b", "c"],
                                  "options": {"topology.max.spout.pending": 77,
                                              "topology.message.timeout.secs": 5}}}}))
            topology = TOPOLOGY.replace("class T(Topology):\n",
                                        "class T(Topology):\n"
                                        "    config = {'topology.message.timeout.secs': 9}\n")
            project.write("topologies/t.py", topology)
            project.write("topologies/other.py", topology)
            project.write("src/README", "components live here\n")
            result = sparse(["submit", "-n", "t", "-N", "renamed", "-a", "2", "--dry-run"],
                            cwd=project.path)
            self.assertEqual(result.returncode, 0, result.stderr)
            sent = json.loads(result.stdout)
            self.assertEqual(sent["name"], "renamed")
            self.assertEqual(sent["nimbus"], ["nimbus.example.com:6699"])
            self.assertEqual(sent["jsonConf"], {"topology.acker.executors": 2,
                                                "topology.max.spout.pending": 77,
                                                "topology.message.timeout.secs": 9,
                                                "topology.workers": 3})
            self.assertEqual(sent["topology"]["spouts"]["w"]["parallelism_hint"], 3)
            with zipfile.ZipFile(os.path.join(project.path, "_build", "t.jar")) as jar:
                launcher = jar.read("resources/_sparse/launch/w.sh").decode()
            self.assertIn("streamparse_run '-s' 'msgpack' 't.W'", launcher)
            result = sparse(["submit", "-w", "4", "--dry-run", "t", "--pool_size", "5", "-u",
                             "--user", "storm", "-r", "virtualenvs/t.txt"], cwd=project.path)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(json.loads(result.stdout)["jsonConf"]["topology.workers"], 4)
            # streamparse's flags with no meaning here are accepted, each with the reason.
            for flag in ("--pool_size", "-u,--uber_jar", "--user", "-r,--requirements"):
                self.assertIn("note: %s (streamparse's) is ignored" % flag, result.stderr)

    def test_nimbus_commands_use_the_only_environment(self):
        with ProjectDir() as project:
            project.write("config.json", '{"envs": {"prod": {"nimbus": "127.0.0.1:1"}}}')
            result = sparse(["list", "--timeout", "5"], cwd=project.path)
            self.assertEqual(result.returncode, 5, result.stderr)
            self.assertIn("127.0.0.1:1", result.stderr)

    def test_help_command(self):
        with ProjectDir() as project:
            result = sparse(["help", "submit"], cwd=project.path)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertIn("--override_name", result.stdout)
            result = sparse(["help", "nope"], cwd=project.path)
            self.assertEqual(result.returncode, 1)
            self.assertIn("no command `nope`", result.stderr)

    def test_kill_needs_a_name_among_several_topologies(self):
        with ProjectDir() as project:
            project.write("config.json", '{"envs": {"prod": {"nimbus": "localhost:1"}}}')
            project.write("topologies/a.py", TOPOLOGY)
            project.write("topologies/b.py", TOPOLOGY)
            result = sparse(["kill", "-e", "prod"], cwd=project.path)
            self.assertEqual(result.returncode, 1)
            self.assertIn(
                "name the topology to kill: the project has several topologies", result.stderr
            )


if __name__ == "__main__":
    unittest.main()
