#!/usr/bin/env python3
"""Exactly-once against at-least-once on the same topology and a real Kafka broker.

    bench/kafka/exactly_once.py BUILD [--records N] [--epochs 100,250,1000] [--rounds R]
                                [--direct] [--spout-option KEY=VALUE]...

Kafka (one partition, as `sparse kafka produce` makes it) -> kafka_spout -> a Python bolt (sparse_multilang, 2 tasks) -> kafka_bolt ->
Kafka (--direct: no Python bolt), run by `sparse run` from BUILD, once with `processing_guarantee: at_least_once` and once
per epoch length with `exactly_once`, alternating, each on a fresh input topic of N records that
are already written. A read_committed consumer (`sparse kafka consume --json`) reads the output
while the run goes; the rate is taken between its first 10% and its last record, so start-up and
the last epoch's tail are left out. Starts Apache Kafka with scripts/kafka-server.sh unless
--bootstrap names a broker. Prints one table; docs/benchmarks.md has the results.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

BOLT = '''from sparse_multilang import Bolt


class Upper(Bolt):
    def process(self, tup):
        key, value = tup.values
        self.emit([key, value.upper()], need_task_ids=False)


if __name__ == "__main__":
    Upper().run()
'''


def topology(name, topic_in, topic_out, group, guarantee, epoch_ms, spout_options, direct):
    extra = "".join("\n      %s: %s" % tuple(o.split("=", 1)) for o in spout_options)
    if guarantee == "exactly_once":
        extra += "\n      epoch_ms: %d" % epoch_ms
    return """name: %s
config:
  topology.max.spout.pending: 5000
  topology.message.timeout.secs: 60
  sparse.queue.high.watermark: 5000
spouts:
  - id: source
    builtin: kafka_spout
    options:
      topics: [%s]
      group_id: %s
      start: earliest
      fields: [key, value]
      processing_guarantee: %s%s
bolts:%s
  - id: sink
    builtin: kafka_bolt
    options: {topic: %s, key_field: key, value_field: value}
    inputs: [{from: %s, grouping: shuffle}]
""" % (name, topic_in, group, guarantee, extra, "" if direct else PYTHON_BOLT, topic_out,
       "source" if direct else "upper")


PYTHON_BOLT = """
  - id: upper
    command: [python3, upper.py]
    parallelism: 2
    outputs: [key, value]
    inputs: [{from: source, grouping: shuffle}]"""


def one_run(sparse, bootstrap, records, guarantee, epoch_ms, tag, spout_options, direct):
    tmp = tempfile.mkdtemp(prefix="sparse-bench-eo-")
    topic_in, topic_out = "eo-bench-in-" + tag, "eo-bench-out-" + tag
    lines = "".join("k%d\t%s-%d\n" % (i % 97, "v" * 60, i) for i in range(records))
    subprocess.run([sparse, "kafka", "produce", "-b", bootstrap, "-t", topic_in, "-k", "\t"],
                   input=lines, text=True, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(tmp, "upper.py"), "w") as f:
        f.write(BOLT)
    with open(os.path.join(tmp, "bench.yaml"), "w") as f:
        f.write(topology("eobench", topic_in, topic_out, "g-" + tag, guarantee, epoch_ms,
                         spout_options, direct))

    seen = []  # (time, count) as the read_committed consumer gets records
    consumer = None
    done = threading.Event()

    def read():
        # The output topic exists once the bolt wrote to it: until then the consumer refuses it.
        nonlocal consumer
        n = 0
        while not done.is_set() and n < records:
            consumer = subprocess.Popen(
                [sparse, "kafka", "consume", "-b", bootstrap, "-t", topic_out, "--from-beginning",
                 "--max", str(records), "--idle", "0", "--json",
                 "-X", "isolation.level=read_committed"],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            for _ in consumer.stdout:
                n += 1
                seen.append((time.monotonic(), n))
            consumer.wait()
            if n == 0:
                time.sleep(0.2)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    started = time.monotonic()
    run = subprocess.Popen([sparse, "run", "bench.yaml", "-o", "kafka.bootstrap.servers=" + bootstrap],
                           cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    reader.join(timeout=600)
    done.set()
    run.terminate()
    _, err = run.communicate(timeout=120)
    if consumer and consumer.poll() is None:
        consumer.kill()
    if not seen or seen[-1][1] < records:
        sys.exit("%s epoch %s: the consumer saw %d of %d records\n%s" %
                 (guarantee, epoch_ms, seen[-1][1] if seen else 0, records, err[-3000:]))
    t10 = next(t for t, n in seen if n >= records // 10)
    t_end = seen[-1][0]
    rate = (records - records // 10) / (t_end - t10)
    return rate, t_end - started


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("--records", type=int, default=200000)
    ap.add_argument("--epochs", default="100,250,1000", help="epoch_ms values for exactly_once")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--bootstrap", help="a running broker (else one is started)")
    ap.add_argument("--direct", action="store_true",
                    help="kafka_spout -> kafka_bolt with no Python bolt: the runtime's own cost")
    ap.add_argument("--spout-option", action="append", default=[], metavar="KEY=VALUE",
                    help="a kafka_spout option for every run (repeatable)")
    args = ap.parse_args()
    sparse = os.path.join(os.path.abspath(args.build), "bin", "sparse")
    bootstrap = args.bootstrap
    if not bootstrap:
        kafka_dir = tempfile.mkdtemp(prefix="sparse-bench-kafka-")
        r = subprocess.run([os.path.join(root, "scripts", "kafka-server.sh"), "start", kafka_dir],
                           capture_output=True, text=True,
                           env=dict(os.environ, SPARSE_KAFKA_OWNER_PID=str(os.getpid())))
        if r.returncode != 0:
            sys.exit("scripts/kafka-server.sh start failed:\n" + r.stderr[-3000:])
        bootstrap = r.stdout.strip().splitlines()[-1]
    variants = [("at_least_once", 0)] + [("exactly_once", int(e)) for e in args.epochs.split(",")]
    results = {v: [] for v in variants}
    for rnd in range(args.rounds):
        for g, e in variants:
            tag = "%d-%s-%d-%d" % (rnd, g, e, int(time.time()))
            rate, total = one_run(sparse, bootstrap, args.records, g, e, tag, args.spout_option,
                                  args.direct)
            print("round %d %-13s epoch_ms %5s: %8.0f records/s, %.1f s in all" %
                  (rnd + 1, g, e or "-", rate, total), file=sys.stderr, flush=True)
            results[(g, e)].append(rate)
    base = max(results[variants[0]])
    print("| guarantee | epoch_ms | records/s (best of %d) | vs at-least-once |" % args.rounds)
    print("|---|---|---|---|")
    for g, e in variants:
        best = max(results[(g, e)])
        print("| %s | %s | %.0f | %.2f |" % (g, e or "-", best, best / base))


if __name__ == "__main__":
    main()
