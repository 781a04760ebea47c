"""streamparse's first API (module-level storm.emit/storm.log on the running component, as
Storm's storm.py has them) runs with sparse's stand-in."""

import re
import unittest

from support import ProjectDir, run_with_stats


class FirstApiTest(unittest.TestCase):
    def test_module_level_emit_and_log(self):
        with ProjectDir("first_api") as project:
            result, by_id = run_with_stats(["topology.yaml", "-t", "60", "--stop-when-idle", "2"],
                                           project.path)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(by_id["word-spout"]["emitted"], 90)
            self.assertEqual(by_id["word-spout"]["acked"], 90)  # emit(id=...): reliable
            self.assertEqual(by_id["count-bolt"]["executed"], 90)
            finals = {}
            for animal, count in re.findall(r"\] (owl|fox|yak): (\d+)", result.stderr):
                finals[animal] = max(finals.get(animal, 0), int(count))
            self.assertEqual(finals, {"owl": 30, "fox": 30, "yak": 30})


if __name__ == "__main__":
    unittest.main()
