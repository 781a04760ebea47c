#!/usr/bin/env python3
"""Runs spout -> bolt -> bolt with C++ components (the adapter's examples) through sparse and
prints tuples per second at each bolt and the runtime's CPU per tuple, acking on and off.

    bench/cpp/run.py BUILD_DIR [--seconds 10] [-o key=value]...
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
    messages = comps["split"]["executed"] + comps["count"]["executed"]
    return comps, runtime_cpu, messages, stats["uptime_secs"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("-o", dest="options", action="append", default=[],
                    help="extra topology option key=value for both runs")
    args = ap.parse_args()
    extra = args.options
    print("| mode | sentences/s (spout) | words/s (split -> count) | tuples delivered/s | runtime CPU µs/tuple | runtime core share |")
    print("|---|---|---|---|---|---|")
    for label, opts in [("acking on", ["topology.max.spout.pending=5000"] + extra),
                        ("acking off", ["topology.acker.executors=0"] + extra)]:
        comps, cpu, messages, up = run(args.build, args.seconds, opts)
        print("| %s | %.0f | %.0f | %.0f | %.2f | %.2f |" % (
            label, comps["spout"]["emitted"] / args.seconds, comps["count"]["executed"] / args.seconds,
            messages / args.seconds, cpu / max(messages, 1) * 1e6, cpu / up))


if __name__ == "__main__":
    sys.exit(main())
