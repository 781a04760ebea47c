#!/usr/bin/env python3
"""The Python adapter's bolt loop alone: CPU time per tuple of one sparse_multilang bolt, with
no runtime and no scheduling between processes in the way.

A handshake and N tuple messages, as the runtime writes them (JSON), are written to a file once;
the Kafka bench's bolt (bench/storm/components.py KafkaPass: emit one tuple anchored to the
input, auto-ack) reads them from that file and writes its answers to /dev/null. The figure is
the bolt process's user + system CPU divided by N, start-up included (about 0.3 µs per tuple at
300,000 tuples).

    bench/multilang/bolt_loop.py [--tuples 300000] [--rounds 3] [--adapter DIR]...

Each --adapter is a folder holding a sparse_multilang package (default: adapters/python); with
several, the rounds alternate between them, to compare two versions of the adapter.
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))


def write_input(path, tuples, pid_dir, progress_dir):
    conf = {"bench.dir": progress_dir, "topology.name": "bolt-loop"}
    context = {"taskid": 3, "componentid": "transform",
               "task->component": {"2": "spout", "3": "transform"}}
    with open(path, "w") as f:
        f.write(json.dumps({"conf": conf, "context": context, "pidDir": pid_dir}) + "\nend\n")
        for i in range(tuples):
            f.write(json.dumps({"id": str(-4324234234234234 + i * 7919), "comp": "spout",
                                "stream": "default", "task": 2,
                                "tuple": ["bench-in", 0, i, "key%d" % i,
                                          "value number %d with some text" % i]}) + "\nend\n")


def run_once(adapter, work, tuples):
    pid_dir = os.path.join(work, "pids")
    shutil.rmtree(pid_dir, ignore_errors=True)
    os.makedirs(pid_dir)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(os.path.join(work, "input"), "rb") as stdin, open(os.devnull, "wb") as devnull:
        code = subprocess.call([sys.executable, "-m", "sparse_multilang.run", "components:KafkaPass"],
                               stdin=stdin, stdout=devnull, stderr=subprocess.DEVNULL, cwd=work,
                               env=dict(os.environ, PYTHONPATH=adapter))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if code != 0:
        sys.exit("the bolt exited with %d (adapter %s)" % (code, adapter))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu / tuples * 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tuples", type=int, default=300000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--adapter", action="append", default=[])
    args = ap.parse_args()
    adapters = [os.path.abspath(a) for a in args.adapter] or [os.path.join(root, "adapters", "python")]
    work = tempfile.mkdtemp(prefix="sparse-bolt-loop-")
    try:
        for name in ("components.py", "progress.py"):
            shutil.copy(os.path.join(root, "bench", "storm", name), work)
        os.makedirs(os.path.join(work, "progress"))
        write_input(os.path.join(work, "input"), args.tuples, os.path.join(work, "pids"),
                    os.path.join(work, "progress"))
        results = {a: [] for a in adapters}
        for _ in range(args.rounds):
            for a in adapters:
                us = run_once(a, work, args.tuples)
                results[a].append(us)
                print("%-60s %6.2f µs CPU per tuple" % (a, us), flush=True)
        print()
        for a in adapters:
            print("%-60s best %6.2f µs CPU per tuple" % (a, min(results[a])))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
