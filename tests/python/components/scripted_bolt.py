"""A bolt whose behaviour is chosen by each tuple: values[0] names the action."""

import json
import os
import subprocess
import sys
import time

from sparse_multilang import Bolt


class ScriptedBolt(Bolt):
    def initialize(self, conf, context):
        time.sleep(conf.get("test.initialize.sleep", 0))
        self.log("initialized task=%s component=%s conf=%s pid=%s" % (
            self.task_id, self.component_name, json.dumps(conf, sort_keys=True), self.pid))

    def process(self, tup):
        action, args = tup.values[0], tup.values[1:]
        getattr(self, "do_" + action)(tup, *args)

    def process_tick(self, freq):
        self.log("tick %s" % freq)
        self.emit(["tick", freq], need_task_ids=False)

    def do_emit(self, tup, word):
        task_ids = self.emit([word])
        self.log("task ids %s" % json.dumps(task_ids))

    def do_emit_twice(self, tup, first, second):
        ids_first = self.emit([first])
        ids_second = self.emit([second], stream="other")
        self.log("task ids %s %s" % (json.dumps(ids_first), json.dumps(ids_second)))

    def do_emit_noids(self, tup, word):
        result = self.emit([word], need_task_ids=False)
        self.log("returned %r" % (result,))

    def do_direct(self, tup, task, word):
        result = self.emit([word], direct_task=task)
        self.log("returned %r" % (result,))

    def do_emit_anchored(self, tup, word, anchor):
        self.emit([word], anchors=[anchor], need_task_ids=False)

    def do_emit_unanchored(self, tup, word):
        self.emit([word], anchors=[], need_task_ids=False)

    def do_print(self, tup, text):
        print(text)
        print("partial", end="")
        print(" line", flush=True)
        os.write(1, b"raw write to fd 1\n")
        subprocess.run([sys.executable, "-c", "print('child process stdout')"], check=True)

    def do_raise(self, tup, message):
        raise RuntimeError(message)

    def do_emit_then_sleep(self, tup, word, seconds):
        self.emit([word], need_task_ids=False)
        time.sleep(seconds)

    def do_sleep(self, tup, seconds):
        self.log("sleeping")
        time.sleep(seconds)
        self.log("woke")

    def do_log(self, tup, level, message):
        self.log(message, level)

    def do_logger(self, tup, message):
        self.logger.debug("hidden at the default level")
        self.logger.warning(message)
        self.logger.error("error: %s", message)

    def do_report(self, tup, message):
        self.report_error(message)

    def do_manual_ack(self, tup):
        self.ack(tup)

    def do_manual_fail(self, tup):
        self.fail(tup.id)

    def do_echo(self, tup, *values):
        self.emit(list(values), need_task_ids=False)

    def do_emit_bytes(self, tup, text):
        self.emit([text.encode("utf-8"), text], need_task_ids=False)

    def do_emit_power(self, tup, base, exponent):
        self.emit([base ** exponent], need_task_ids=False)

    def do_serializer(self, tup):
        self.log("serializer %s" % self.serializer)


class NoAutoBolt(ScriptedBolt):
    auto_ack = False
    auto_fail = False
    auto_anchor = False


if __name__ == "__main__":
    (NoAutoBolt if sys.argv[1:] == ["--no-auto"] else ScriptedBolt)().run()
