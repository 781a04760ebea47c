"""sparse runs components written against Apache Storm's own multilang libraries unchanged.

storm.py, storm.js and storm.rb are fetched from Storm's multilang-* jars by scripts/peers.sh; the
components in components/ are our own storm-starter-style fixtures written against them (a
reliable sentence spout, a split-sentence bolt in each language, a counting bolt, a direct-stream
target and an `all`-grouping audit bolt). See harness.py for how a run is set up."""
import os
import random
import signal
import unittest
from collections import Counter

import harness
from harness import Sandbox, sentences

PY = "python3"  # as a Storm topology says it; the venv's python (with simplejson) where noted

SPLIT_FIELDS = ["word", "sid", "index"]


def spout(cid, command, sentence_file, **config):
    return {"id": cid, "command": command, "outputs": ["sid", "sentence"],
            "config": dict({"peers.sentences": sentence_file}, **config)}


def splitter(cid, command, source, parallelism=2, direct_target=None, **config):
    streams = {"default": SPLIT_FIELDS}
    if direct_target:
        streams["bylen"] = {"fields": SPLIT_FIELDS, "direct": True}
        config["peers.direct.target"] = direct_target
    return {"id": cid, "command": command, "parallelism": parallelism, "streams": streams,
            "inputs": [{"from": source, "grouping": "shuffle"}], "config": config}


def counter(sources, parallelism=2, python=PY):
    return {"id": "count", "command": [python, "word_count.py"], "parallelism": parallelism,
            "inputs": [{"from": s, "grouping": "fields", "fields": ["word"]} for s in sources],
            "config": {"topology.tick.tuple.freq.secs": 1}}


class StormMultilangTest(unittest.TestCase):
    maxDiff = 4000

    @classmethod
    def setUpClass(cls):
        missing = harness.missing_prerequisites()
        if missing:
            raise AssertionError("cannot run the Storm multilang peer tests: " + missing)

    def sandbox(self):
        sb = Sandbox(self)
        self.addCleanup(sb.cleanup)
        return sb

    def assert_exact_counts(self, sb, expected, exactly_once):
        """The counting bolts' final counts, summed over their tasks: every word counted once per
        occurrence in the input (distinct (sid, index) pairs); with `exactly_once`, no tuple
        delivered twice either."""
        by_task = sb.counts_by_task()
        self.assertTrue(by_task, "no counting bolt wrote its counts\n" + sb.diagnostics())
        counted, delivered = Counter(), Counter()
        for counts in by_task.values():
            counted.update({w: c["count"] for w, c in counts.items()})
            delivered.update({w: c["deliveries"] for w, c in counts.items()})
        self.assertEqual(dict(counted), expected)
        if exactly_once:
            self.assertEqual(dict(delivered), expected, "a word was delivered more than once")

    def assert_fields_grouped(self, sb):
        """Fields grouping on `word`: each word was counted on one task only, whichever bolt and
        language emitted it (storm.py escapes non-ASCII characters in its JSON, storm.js and
        storm.rb write them as UTF-8: the same string either way)."""
        owners = {}
        for name, counts in sb.counts_by_task().items():
            for word in counts:
                owners.setdefault(word, []).append(name)
        self.assertEqual({w: t for w, t in owners.items() if len(t) > 1}, {},
                         "words counted on more than one task (fields grouping)")


class MixedLanguages(StormMultilangTest):
    def test_three_languages_with_every_grouping_count_exactly(self):
        """storm.py, storm.js and storm.rb components in one topology: a reliable spout in each
        language, each feeding (shuffle) a split bolt in another; all split bolts feed the counter
        (fields on word), send every word direct to the task of `bylen` chosen by its length, and
        the spouts feed `audit` with the all grouping."""
        sb = self.sandbox()
        data = {"py": sentences("py", 60, 1), "js": sentences("js", 60, 2),
                "rb": sentences("rb", 60, 3)}
        for lang, lst in data.items():
            sb.write_json("sentences_%s.json" % lang, lst)
        spouts = [spout("sentences_py", [PY, "sentence_spout.py"], "sentences_py.json"),
                  spout("sentences_js", ["node", "sentence_spout.js"], "sentences_js.json"),
                  spout("sentences_rb", ["ruby", "sentence_spout.rb"], "sentences_rb.json")]
        splits = [splitter("split_py", [PY, "split_sentence.py"], "sentences_js",
                           direct_target="bylen"),
                  splitter("split_js", ["node", "split_sentence.js"], "sentences_rb",
                           direct_target="bylen"),
                  splitter("split_rb", ["ruby", "split_sentence.rb"], "sentences_py",
                           direct_target="bylen")]
        split_ids = [s["id"] for s in splits]
        sb.write_json("topo.yaml", {
            "name": "storm-multilang-mix",
            "spouts": spouts,
            "bolts": splits + [
                counter(split_ids),
                {"id": "bylen", "command": ["node", "by_length.js"], "parallelism": 3,
                 "inputs": [{"from": s, "stream": "bylen", "grouping": "direct"}
                            for s in split_ids]},
                {"id": "audit", "command": ["ruby", "audit.rb"], "parallelism": 3,
                 "inputs": [{"from": s["id"], "grouping": "all"} for s in spouts]},
            ]})
        code = sb.run("--stop-when-idle", "2", "-t", "90", timeout=150)
        self.assertEqual(code, 0, sb.diagnostics())
        self.assertEqual(harness.live_pids_in(sb.dir), [], "a component outlived the runtime")

        all_sids = {sid for lst in data.values() for sid, _ in lst}
        acks = [sid for _, sid in sb.lines("acked-*.jsonl")]
        self.assertEqual(sorted(acks), sorted(all_sids), "every sentence acked exactly once")
        self.assertEqual(sb.lines("failed-*.jsonl"), [], "no tree failed")
        for cid in ("sentences_py", "sentences_js", "sentences_rb"):
            st = sb.stats(cid)
            self.assertEqual((st["acked"], st["failed"], st["restarts"]), (60, 0, 0), cid)

        # shuffle and fields: every word counted exactly once (on which task: checked last).
        self.assert_exact_counts(sb, harness.expected_counts(*data.values()), exactly_once=True)

        # direct: every word of every sentence once, at the task its splitter chose.
        contexts = sb.lines("context-bylen-*.json")
        self.assertEqual(len(contexts), 3, "each bylen task wrote its context")
        task_map = contexts[0][1]
        bylen_tasks = sorted(int(t) for t, c in task_map.items() if c == "bylen")
        self.assertEqual(len(bylen_tasks), 3)
        words = harness.words_of(*data.values())
        got = Counter()
        for _, (word, sid, index, task) in sb.lines("bylen-*.jsonl"):
            self.assertEqual(words.get((sid, index)), word)
            self.assertEqual(task, bylen_tasks[len(word) % 3], "direct emit of %r" % word)
            got[(sid, index)] += 1
        self.assertEqual(set(got), set(words), "every word reached bylen")
        self.assertEqual([k for k, n in got.items() if n != 1], [], "no word twice")
        self.assertEqual(len({t for _, (_, _, _, t) in sb.lines("bylen-*.jsonl")}), 3,
                         "the words' lengths spread over all bylen tasks")

        # all: every audit task saw every sentence of every spout once.
        seen = {}
        for _, (source, sid, task) in sb.lines("audit-*.jsonl"):
            self.assertEqual(source, "sentences_" + sid.split("-")[0])
            seen.setdefault(task, Counter())[sid] += 1
        self.assertEqual(len(seen), 3, "all three audit tasks got tuples")
        for task, sids in seen.items():
            self.assertEqual(set(sids), all_sids, "audit task %d" % task)
            self.assertEqual(max(sids.values()), 1, "audit task %d got a sentence twice" % task)

        # fields: each word on one counting task, whichever language's JSON carried it.
        self.assert_fields_grouped(sb)


class RepeatedStartsUnderLoad(StormMultilangTest):
    RUNS = 50

    def test_fifty_starts_beside_a_cpu_hog(self):
        """storm.py (spout, split, count; several tasks each) and storm.js (spout, split) start and
        finish 50 times in a row while busy loops occupy every core: storm.py writes its {"pid"}
        reply before it creates the pid file, and a loaded machine widens that gap, so a runtime
        that insists on the file fails some of these starts (exit 3)."""
        py_data, js_data = sentences("py", 8, 4), sentences("js", 8, 5)
        expected = harness.expected_counts(py_data, js_data)
        topology = {
            "name": "storm-restarts",
            "spouts": [spout("sentences_py", [PY, "sentence_spout.py"], "sentences_py.json"),
                       spout("sentences_js", ["node", "sentence_spout.js"], "sentences_js.json")],
            "bolts": [splitter("split_py", [PY, "split_sentence.py"], "sentences_js",
                               parallelism=3),
                      splitter("split_js", ["node", "split_sentence.js"], "sentences_py"),
                      counter(["split_py", "split_js"], parallelism=2)]}
        failures, codes = [], Counter()
        with harness.CpuHog():
            for i in range(self.RUNS):
                sb = Sandbox(self)
                try:
                    sb.write_json("sentences_py.json", py_data)
                    sb.write_json("sentences_js.json", js_data)
                    sb.write_json("topo.yaml", topology)
                    code = sb.run("--stop-when-idle", "0.5", "-t", "60", timeout=120)
                    counted = Counter()  # summed over tasks
                    for counts in sb.counts_by_task().values():
                        counted.update({w: c["count"] for w, c in counts.items()})
                    codes[code] += 1
                    leftovers = harness.live_pids_in(sb.dir)
                    if code != 0 or counted != expected or leftovers:
                        failures.append("run %d: exit %s, counts %s, leftover pids %s\n%s" % (
                            i + 1, code, "exact" if counted == expected else "WRONG",
                            leftovers, sb.diagnostics(lines=8)))
                finally:
                    sb.cleanup()
        self.assertEqual(len(failures), 0, "%d of %d runs failed (exit codes: %s); the first:\n%s"
                         % (len(failures), self.RUNS, dict(codes), failures[0] if failures else ""))


class KilledChildren(StormMultilangTest):
    def test_kill_9_of_a_bolt_and_spouts_loses_nothing(self):
        """kill -9 of a storm.py split bolt task, then of the storm.py spout and the storm.js
        spout, while sentences flow: each killed task is restarted, the trees in flight in it are
        failed and replayed by the reliable spouts (which resume from their acked journals), and
        every word of every sentence is counted exactly once (distinct (sid, index) pairs; a
        replay may deliver a word twice, which at-least-once allows)."""
        sb = self.sandbox()
        py_data, js_data = sentences("py", 700, 6), sentences("js", 700, 7)
        sb.write_json("sentences_py.json", py_data)
        sb.write_json("sentences_js.json", js_data)
        venv = harness.venv_python()  # storm.py then uses simplejson, as on many Storm hosts
        sb.write_json("topo.yaml", {
            "name": "storm-kill",
            "config": {"topology.max.spout.pending": 100,
                       "topology.message.timeout.secs": 10},
            "spouts": [spout("sentences_py", [venv, "sentence_spout.py"], "sentences_py.json"),
                       spout("sentences_js", ["node", "sentence_spout.js"], "sentences_js.json")],
            "bolts": [{"id": "split_py", "command": [venv, "split_sentence.py"],
                       "parallelism": 2, "outputs": SPLIT_FIELDS,
                       "inputs": [{"from": "sentences_py", "grouping": "shuffle"},
                                  {"from": "sentences_js", "grouping": "shuffle"}],
                       # A bottleneck, so that tuples are in flight in it when it is killed.
                       "config": {"peers.split.sleep": 0.005}},
                      counter(["split_py"], python=venv)]})
        total = len(py_data) + len(js_data)
        sb.start("--stop-when-idle", "3", "-t", "150")
        rng = random.Random(8)

        def kill_one(script, after_acked):
            sb.wait_for("%d acked sentences" % after_acked,
                        lambda: len(sb.acked_sids()) >= after_acked, 60)
            pids = sb.wait_for("a live %s" % script, lambda: sb.pids_of(script), 30)
            victim = rng.choice(pids)
            os.kill(victim, signal.SIGKILL)
            # The runtime starts a new process for the task.
            sb.wait_for("%s restarted" % script,
                        lambda: len(set(sb.pids_of(script)) - set(pids)) > 0, 30)

        kill_one("split_sentence.py", total // 5)
        kill_one("sentence_spout.py", total * 2 // 5)
        kill_one("sentence_spout.js", total * 3 // 5)
        code = sb.wait(150)
        self.assertEqual(code, 0, sb.diagnostics())
        self.assertEqual(harness.live_pids_in(sb.dir), [], "a component outlived the runtime")

        self.assertEqual(sb.acked_sids(), {sid for sid, _ in py_data + js_data},
                         "every sentence acked at least once")
        self.assertEqual(sb.stats("split_py")["restarts"], 1)
        self.assertEqual(sb.stats("sentences_py")["restarts"], 1)
        self.assertEqual(sb.stats("sentences_js")["restarts"], 1)
        failed = {sid for _, sid in sb.lines("failed-*.jsonl")}
        self.assertTrue(failed, "the killed bolt's trees were failed back to the spouts")
        self.assert_exact_counts(sb, harness.expected_counts(py_data, js_data),
                                 exactly_once=False)
        self.assert_fields_grouped(sb)
        # The counter's journal is the ground truth its counts came from: every word of every
        # sentence is in it.
        journal = {(sid, index): word for _, (word, sid, index) in sb.lines("counted-*.jsonl")}
        self.assertEqual(journal, harness.words_of(py_data, js_data))


if __name__ == "__main__":
    unittest.main()
