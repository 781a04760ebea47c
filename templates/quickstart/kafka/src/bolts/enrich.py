"""Enriches click events read from Kafka.

Each input is [key, value] where value is the record's text, e.g. a JSON object such as
{"user": "ann", "url": "https://example.com/a/b?x=1"}. Emits [key, enriched JSON text] for the
Kafka bolt to write. A value that is not a JSON object raises: the tuple is failed, the Kafka
spout retries it, and after its last retry sends it to the dead-letter topic.
"""
import json
from urllib.parse import urlparse

from sparse_multilang import Bolt


class EnrichBolt(Bolt):
    def initialize(self, conf, context):
        self.seen = 0

    def process(self, tup):
        key, value = tup.values
        click = json.loads(value)
        if not isinstance(click, dict):
            raise ValueError("a click must be a JSON object, got %r" % (value,))
        url = urlparse(click.get("url", ""))
        click["domain"] = url.netloc
        click["path_depth"] = len([p for p in url.path.split("/") if p])
        self.seen += 1
        click["seq"] = self.seen
        # Anchored to tup and acked after process() returns (auto_anchor, auto_ack).
        self.emit([key, json.dumps(click, sort_keys=True)], need_task_ids=False)


if __name__ == "__main__":
    EnrichBolt().run()
