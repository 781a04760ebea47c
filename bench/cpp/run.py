#!/usr/bin/env python3
"""Runs spout -> bolt -> bolt with C++ components (the adapter's examples) through sparse and
prints tuples per second at each bolt and the runtime's CPU per tuple, acking on and off.

    bench/cpp/run.py BUILD_DIR [--seconds 10] [--no-floor] [-o key=value]...

--no-floor leaves out the pipe floor (for a build without the adapter bench, such as an older
commit's built for a before/after comparison).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))


def run(build, seconds, options):
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(here, "pipeline.yaml.in")) as f:
            text = f.read().replace("@BIN@", os.path.join(os.path.abspath(build), "bin"))
        topo = os.path.join(tmp, "pipeline.yaml")
        with open(topo, "w") as f:
            f.write(text)
        stats_path = os.path.join(tmp, "stats.json")
        cmd = [os.path.join(build, "bin", "sparse"), "run", topo, "-t", str(seconds), "--wait", "5",
               "--stats-json", stats_path]
        for o in options:
            cmd += ["-o", o]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(stats_path) as f:
            stats = json.load(f)
    comps = {c["id"]: c for c in stats["components"]}
    cpu = stats["cpu"]
    runtime_cpu = cpu["runtime_user_secs"] + cpu["runtime_system_secs"]
    tuples = comps["split"]["executed"] + comps["count"]["executed"]
    return comps, runtime_cpu, tuples, stats["uptime_secs"]


def protocol_messages(comps):
    """JSON messages that crossed a pipe to or from the runtime (a lower bound: `next`s that
    emitted nothing and heartbeats are left out). Spout: next, emit, sync per tuple and an
    ack/fail plus its sync per tree; bolt: the tuple and its ack, plus each emit."""
    total = 0
    for c in comps.values():
        if c["type"] == "spout":
            total += 3 * c["emitted"] + 2 * (c["acked"] + c["failed"])
        else:
            total += 2 * c["executed"] + c["emitted"]
    return total


def pipe_floor(build):
    """Messages per second through a pipe between two trivial C++ processes (the adapter
    bench's `floor`: tuple messages one way, a canned ack back for each: two messages)."""
    exe = os.path.join(build, "bin", "sparse_cpp_adapter_bench")
    out = subprocess.run([exe, "1000000"], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.startswith("floor "):
            return 2 * float(line.split()[6])  # floor WIRE N tuples S s RATE tuples/s ...
    raise SystemExit("no floor line in the adapter bench output")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("-o", dest="options", action="append", default=[],
                    help="extra topology option key=value for both runs")
    ap.add_argument("--no-floor", action="store_true", help="skip the pipe floor measurement")
    args = ap.parse_args()
    extra = args.options
    floor = None if args.no_floor else pipe_floor(args.build)
    if floor:
        print("pipe floor: %.0f messages/s between two trivial C++ processes" % floor)
    print("| mode | sentences/s (spout) | words/s (split -> count) | tuples delivered/s | messages/s via runtime | share of floor | runtime CPU µs/tuple | runtime core share |")
    print("|---|---|---|---|---|---|---|---|")
    for label, opts in [("acking on", ["topology.max.spout.pending=5000"] + extra),
                        ("acking off", ["topology.acker.executors=0"] + extra)]:
        comps, cpu, tuples, up = run(args.build, args.seconds, opts)
        msgs = protocol_messages(comps) / args.seconds
        print("| %s | %.0f | %.0f | %.0f | %.0f | %.2f | %.2f | %.2f |" % (
            label, comps["spout"]["emitted"] / args.seconds, comps["count"]["executed"] / args.seconds,
            tuples / args.seconds, msgs, msgs / floor if floor else float("nan"),
            cpu / max(tuples, 1) * 1e6, cpu / up))


if __name__ == "__main__":
    sys.exit(main())
