#!/usr/bin/env python3
"""Cost of the adapter's two wire formats, JSON and MessagePack (not a test; run by hand).

    PYTHONPATH=adapters/python ~/.cache/sparse-peers/venv/bin/python \\
        tests/python/bench_serializers.py [--adapter DIR] [--tuples N] [--runs R]

``micro``: microseconds to encode / decode one message of each kind the pipeline of
bench/python (spout -> bolt -> bolt) exchanges, with the adapter's own encoder and reader
(decode includes the framing: messages are read back to back from one buffer).

``components``: CPU microseconds per tuple of each of that pipeline's Python components
(bench/python/components.py) run as real processes with ``sparse_multilang.run``, fed N
messages from a file (handshake, then tuples for the bolts, ``next`` commands for the spout)
with stdout to /dev/null: user+system time of the process for N messages minus that for none
(start-up); with ``--valgrind``, instructions counted by callgrind instead (deterministic to
within ~0.5%, where CPU time on the 2-core VM varies by ±30% when other work runs). Their sum is the Python side of one tuple through the pipeline, which is what
bounds its throughput (the components use most of the two cores; the runtime a quarter).

``--adapter DIR`` measures another copy of the adapter; MessagePack columns are left out when
it has no serializers module. ``--baseline DIR`` adds a JSON column for another copy (e.g. the
previous commit's: ``git archive HEAD adapters/python | tar -x -C /tmp/base``) to the
components table, measured in turn with the others.
"""

import argparse
import io
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
BENCH_COMPONENTS = os.path.join(ROOT, "bench", "python")

TUPLE_ID = "-6107321965434598766"  # Storm's ids: random signed 64-bit ints as strings
VALUES = [123456, "payload-123456"]
MESSAGES = {
    "tuple (host -> bolt)": {"id": TUPLE_ID, "comp": "spout", "stream": "default", "task": 3,
                             "tuple": VALUES},
    "emit (bolt -> host)": {"command": "emit", "stream": "default", "tuple": VALUES,
                            "anchors": [TUPLE_ID], "need_task_ids": False},
    "ack (bolt -> host)": {"command": "ack", "id": TUPLE_ID},
    "next (host -> spout)": {"command": "next", "id": ""},
    "spout emit": {"command": "emit", "stream": "default", "tuple": VALUES, "id": 123456,
                   "need_task_ids": False},
    "sync": {"command": "sync"},
}


def load_adapter(adapter_dir):
    sys.path.insert(0, adapter_dir)
    from sparse_multilang import protocol
    try:
        from sparse_multilang import serializers
    except ImportError:
        serializers = None
    return protocol, serializers


def formats(protocol, serializers):
    """(name, encode, make_reader(stream)) for each format the adapter has."""
    result = [("json", protocol.encode_message,
               lambda stream: protocol.MessageReader(stream))]
    if serializers is not None:
        result[0] = ("json", serializers.JSON.encoder(),
                     lambda stream: serializers.JSON.reader(stream))
        try:
            mp = serializers.msgpack_serializer()
        except Exception as exc:
            print("(no msgpack rows: %s)" % exc)
        else:
            result.append(("msgpack", mp.encoder(), lambda stream: mp.reader(stream)))
    return result


def best_of(runs, fn):
    times = []
    for _ in range(runs):
        start = time.process_time()  # CPU time: steadier than wall time on a busy machine
        fn()
        times.append(time.process_time() - start)
    return min(times)


def micro(protocol, serializers, runs, count=50000):
    fmts = formats(protocol, serializers)
    print("\n## micro: microseconds per message (best of %d runs of %d)\n" % (runs, count))
    print("| message | bytes " + "".join("| %s encode | %s decode " % (n, n) for n, _, _ in fmts)
          + "|")
    print("|---|---" + "|---|---" * len(fmts) + "|")
    for label, message in MESSAGES.items():
        row = []
        sizes = []
        for _, encode, make_reader in fmts:
            messages = [message] * count

            def run_encode():
                for m in messages:
                    encode(m)

            data = encode(message) * count

            def run_decode():
                reader = make_reader(io.BytesIO(data))
                read = reader.read_message
                for _ in range(count):
                    read()

            row.append(best_of(runs, run_encode) / count * 1e6)
            row.append(best_of(runs, run_decode) / count * 1e6)
            sizes.append(str(len(encode(message))))
        print("| %s | %s " % (label, "/".join(sizes))
              + "".join("| %.2f " % x for x in row) + "|")


def encode_all(encode, messages):
    return b"".join(encode(m) for m in messages)


VALGRIND = False  # --valgrind: count instructions instead of measuring CPU time


def component_cpu(python, adapter_dir, spec, data):
    """user+system seconds of ``python -m sparse_multilang.run spec`` reading ``data``
    (with VALGRIND: millions of user-space instructions, as callgrind counts them)."""
    with tempfile.TemporaryFile() as stdin, tempfile.TemporaryFile() as stderr:
        stdin.write(data)
        stdin.seek(0)
        env = dict(os.environ, PYTHONPATH=adapter_dir, PYTHONHASHSEED="0")
        argv = [python, "-m", "sparse_multilang.run", spec]
        if VALGRIND:
            argv = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + argv
        proc = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.DEVNULL, stderr=stderr,
                                cwd=BENCH_COMPONENTS, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = status = os.waitstatus_to_exitcode(status)
        stderr.seek(0)
        errors = stderr.read().decode("utf-8", "replace")
        if status != 0:
            raise RuntimeError("%s exited with status %d:\n%s" % (spec, status, errors))
        if VALGRIND:
            match = re.search(r"Collected : (\d+)", errors)
            return int(match.group(1)) / 1e6
        return usage.ru_utime + usage.ru_stime


def components(protocol, serializers, adapter_dir, tuples, runs, baseline=None):
    with tempfile.TemporaryDirectory(prefix="sparse-bench-pids-") as pid_dir:
        _components(protocol, serializers, adapter_dir, tuples, runs, pid_dir, baseline)


def _components(protocol, serializers, adapter_dir, tuples, runs, pid_dir, baseline):
    # Columns: (label, adapter directory, encode). The baseline adapter speaks JSON only.
    columns = [(name, adapter_dir, encode) for name, encode, _ in
               formats(protocol, serializers)]
    if baseline:
        columns.insert(0, ("json (baseline)", baseline, columns[0][2]))
    print("\n## components: %s per tuple (median of %d runs, %d tuples%s)\n"
          % ("instructions" if VALGRIND else "CPU microseconds", runs, tuples,
             ", baseline %s" % baseline if baseline else ""))
    print("| component | " + " | ".join(c[0] for c in columns) + " | json / msgpack |")
    print("|---|" + "---|" * len(columns) + "---|")
    inputs = {
        "spout (FastSpout)": ("components:FastSpout",
                              lambda i: {"command": "next", "id": ""}),
        "pass bolt (PassBolt)": ("components:PassBolt",
                                 lambda i: {"id": str(-6107321965434598766 + i), "comp": "spout",
                                            "stream": "default", "task": 3,
                                            "tuple": [i, "payload-%d" % i]}),
        "sink bolt (SinkBolt)": ("components:SinkBolt",
                                 lambda i: {"id": str(-6107321965434598766 + i), "comp": "pass",
                                            "stream": "default", "task": 4,
                                            "tuple": [i, "payload-%d" % i]}),
    }
    handshake = {"pidDir": pid_dir, "conf": {"bench.reliable": True},
                 "context": {"taskid": 3, "componentid": "x"}}
    totals = [0.0] * len(columns)
    for label, (spec, make) in inputs.items():
        feeds = [(encode(handshake), encode_all(encode, (make(i) for i in range(tuples))))
                 for _, _, encode in columns]
        samples = [[] for _ in columns]
        for _ in range(runs):  # the columns take turns, so that load changes hit them alike
            for index, (_, adapter, _) in enumerate(columns):
                head, body = feeds[index]
                full = component_cpu(sys.executable, adapter, spec, head + body)
                empty = component_cpu(sys.executable, adapter, spec, head)
                samples[index].append((full - empty) / tuples * 1e6)
        row = [sorted(x)[len(x) // 2] for x in samples]
        for index, value in enumerate(row):
            totals[index] += value
        number = "%.0f" if VALGRIND else "%.1f"
        print("| %s | %s | %s |" % (label, " | ".join(number % x for x in row),
                                    ratio(columns, row)))
    print("| **sum** | %s | **%s** |" % (" | ".join("**%s**" % (number % x) for x in totals),
                                        ratio(columns, totals)))


def ratio(columns, row):
    names = [c[0] for c in columns]
    if "json" in names and "msgpack" in names:
        return "%.2f" % (row[names.index("json")] / row[names.index("msgpack")])
    return "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--adapter", default=os.path.join(ROOT, "adapters", "python"))
    ap.add_argument("--tuples", type=int, default=50000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", choices=("micro", "components"))
    ap.add_argument("--valgrind", action="store_true",
                    help="components: count instructions with valgrind's callgrind (slow, but "
                         "the same on a busy machine) instead of measuring CPU time")
    ap.add_argument("--baseline", help="another adapter directory (JSON only), measured "
                                       "alongside in the components table")
    args = ap.parse_args()
    global VALGRIND
    VALGRIND = args.valgrind
    adapter_dir = os.path.abspath(args.adapter)
    protocol, serializers = load_adapter(adapter_dir)
    print("python %s, adapter %s, load average %.2f"
          % (sys.version.split()[0], adapter_dir, os.getloadavg()[0]))
    if args.only in (None, "micro"):
        micro(protocol, serializers, args.runs)
    if args.only in (None, "components"):
        components(protocol, serializers, adapter_dir, args.tuples, args.runs,
                   os.path.abspath(args.baseline) if args.baseline else None)


if __name__ == "__main__":
    main()
