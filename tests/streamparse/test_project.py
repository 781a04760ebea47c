"""A folder with streamparse's config.json is a project; its keys mean what they meant."""

import unittest

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


if __name__ == "__main__":
    unittest.main()
