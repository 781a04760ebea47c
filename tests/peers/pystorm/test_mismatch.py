"""A pystorm component whose serializer is not the one the topology gives it: a clear start-up
error (exit 3) naming the setting to change, in both directions, never a hang or a crash."""
import unittest

from harness import SparseTestCase, component, inputs


class SerializerMismatch(SparseTestCase):
    def run_mismatch(self, spoken, declared):
        bolt = component("pass", "PassBolt", spoken, outputs=["n", "payload"],
                         inputs=inputs("numbers"))
        bolt.pop("serializer", None)
        if declared != "json":
            bolt["serializer"] = declared
        self.write_topology(
            "mismatch",
            spouts=[component("numbers", "NumberSpout", "json", outputs=["n", "payload"])],
            bolts=[bolt])
        run = self.finish(self.start(limit_s=30, options={"test.count": 10}))
        self.assertEqual(run.code, 3, run.describe())
        self.assertEqual(self.processes_inside(), [], "a component outlived the runtime")
        return run.err

    def test_msgpack_component_in_a_json_topology(self):
        err = self.run_mismatch("msgpack", "json")
        self.assertIn("set `serializer: msgpack` on it", err)

    def test_json_component_declared_msgpack(self):
        err = self.run_mismatch("json", "msgpack")
        self.assertIn("if the component speaks JSON, remove that setting", err)


if __name__ == "__main__":
    unittest.main()
