#!/usr/bin/env python3
"""Runs bench/python/pipeline.yaml (spout -> bolt -> bolt, Python components) with the given
sparse binary for a few seconds, with acking on and off, and prints tuples per second at the
sink, runtime CPU per tuple, and the runtime's share of one core.

    bench/python/run.py build/bin/sparse [--seconds 10] [-o key=value ...]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))


def run(sparse, seconds, options):
    with tempfile.TemporaryDirectory() as tmp:
        stats_path = os.path.join(tmp, "stats.json")
        cmd = [sparse, "run", os.path.join(here, "pipeline.yaml"), "-t", str(seconds), "--wait", "5",
               "--log-dir", os.path.join(tmp, "logs"), "--stats-json", stats_path]
        for o in options:
            cmd += ["-o", o]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(stats_path) as f:
            stats = json.load(f)
    comps = {c["id"]: c for c in stats["components"]}
    tuples = comps["sink"]["executed"]
    up = stats["uptime_secs"]
    cpu = stats["cpu"]
    runtime_cpu = cpu["runtime_user_secs"] + cpu["runtime_system_secs"]
    comp_cpu = cpu["components_user_secs"] + cpu["components_system_secs"]
    return {
        "tuples": tuples,
        "tuples_per_sec": tuples / seconds,
        "runtime_cpu_us_per_tuple": runtime_cpu / max(tuples, 1) * 1e6,
        "runtime_core_share": runtime_cpu / up,
        "components_core_share": comp_cpu / up,
        "complete_latency_ms": comps["spout"]["complete_latency_ms"],
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sparse")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("-o", action="append", default=[])
    args = ap.parse_args()
    rows = []
    for label, opts in [("acking on", ["bench.reliable=true", "topology.max.spout.pending=2000"]),
                        ("acking off", ["bench.reliable=false", "topology.acker.executors=0"])]:
        r = run(args.sparse, args.seconds, opts + args.o)
        r["mode"] = label
        rows.append(r)
    print("| mode | tuples/s at sink | runtime CPU µs/tuple | runtime core share | components core share | complete latency ms |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %.0f | %.2f | %.2f | %.2f | %.2f |" % (
            r["mode"], r["tuples_per_sec"], r["runtime_cpu_us_per_tuple"], r["runtime_core_share"],
            r["components_core_share"], r["complete_latency_ms"]))
    if len(rows) == 2 and rows[0]["tuples"] and rows[1]["tuples"]:
        print("\nreliability costs %.2f µs of runtime CPU per tuple" % (
            rows[0]["runtime_cpu_us_per_tuple"] - rows[1]["runtime_cpu_us_per_tuple"]))


if __name__ == "__main__":
    sys.exit(main())
