#!/usr/bin/env python3
"""One sparse binary, one spout -> bolt -> bolt pipeline with acking, five ways of writing the
components, side by side in one invocation:

    sparse_multilang (JSON)   sparse's own Python adapter (bench/python/components.py)
    sparse_multilang (msgpack)  the same components, `serializer: msgpack`
    pystorm (JSON)            the real pystorm from PyPI
    pystorm (msgpack)         the same, serializer="msgpack"
    storm.py                  Apache Storm's own storm.py (JSON only; every emit waits for task ids)

All run under the peers virtualenv's Python (scripts/peers.sh makes it; it has pystorm and
msgpack) so that the interpreter is the same for every row. Prints tuples/s at the sink, the
runtime's CPU per tuple and the ratios asked for in docs/benchmarks.md.

    scripts/peers.sh && bench/multilang/run.py build/bin/sparse [--seconds 8] [--rounds 1]
        [--only "sparse_multilang"] [-o KEY=VALUE]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
cache = os.environ.get("SPARSE_PEERS_DIR", os.path.expanduser("~/.cache/sparse-peers"))
python = os.path.join(cache, "venv", "bin", "python")


def topology(name, commands, serializer):
    lines = ["name: %s" % name, "config: {topology.max.spout.pending: 2000, bench.reliable: true}"]
    extra = ", serializer: %s" % serializer if serializer else ""
    lines += ["spouts:",
              "  - {id: spout, command: %s, outputs: [n, payload]%s}" % (json.dumps(commands["spout"]), extra),
              "bolts:",
              "  - {id: pass, command: %s, outputs: [n, payload], inputs: [spout]%s}" % (json.dumps(commands["pass"]), extra),
              "  - {id: sink, command: %s, inputs: [pass]%s}" % (json.dumps(commands["sink"]), extra)]
    return "\n".join(lines) + "\n"


def variants():
    def sparse_cmd(cls):
        return [python, "-m", "sparse_multilang.run", "components:" + cls]

    def pystorm_cmd(kind, ser):
        return [python, "pystorm_components.py", kind, ser]

    def storm_cmd(kind):
        return [python, "storm_components.py", kind]

    sparse = {"spout": sparse_cmd("FastSpout"), "pass": sparse_cmd("PassBolt"), "sink": sparse_cmd("SinkBolt")}
    return [
        ("sparse_multilang (JSON)", sparse, None),
        ("sparse_multilang (msgpack)", sparse, "msgpack"),
        ("pystorm (JSON)", {k: pystorm_cmd(k, "json") for k in ("spout", "pass", "sink")}, None),
        ("pystorm (msgpack)", {k: pystorm_cmd(k, "msgpack") for k in ("spout", "pass", "sink")}, "msgpack"),
        ("storm.py", {k: storm_cmd(k) for k in ("spout", "pass", "sink")}, None),
    ]


def run_one(sparse, seconds, label, commands, serializer, overrides=()):
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(os.path.join(root, "bench", "python", "components.py"), tmp)
        shutil.copy(os.path.join(here, "pystorm_components.py"), tmp)
        shutil.copy(os.path.join(here, "storm_components.py"), tmp)
        shutil.copy(os.path.join(cache, "storm", "storm.py"), tmp)
        with open(os.path.join(tmp, "topo.yaml"), "w") as f:
            f.write(topology("bench-multilang", commands, serializer))
        stats_path = os.path.join(tmp, "stats.json")
        cmd = [sparse, "run", os.path.join(tmp, "topo.yaml"), "-t", str(seconds), "--wait", "5",
               "--log-dir", os.path.join(tmp, "logs"), "--stats-json", stats_path]
        for override in overrides:
            cmd += ["-o", override]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(stats_path) as f:
            stats = json.load(f)
    comps = {c["id"]: c for c in stats["components"]}
    tuples = comps["sink"]["executed"]
    cpu = stats["cpu"]
    runtime_cpu = cpu["runtime_user_secs"] + cpu["runtime_system_secs"]
    comp_cpu = cpu["components_user_secs"] + cpu["components_system_secs"]
    return {
        "label": label,
        "tuples_per_sec": tuples / seconds,
        "runtime_us": runtime_cpu / max(tuples, 1) * 1e6,
        "components_us": comp_cpu / max(tuples, 1) * 1e6,
        "failed": comps["spout"]["failed"],
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sparse")
    ap.add_argument("--seconds", type=float, default=8)
    ap.add_argument("--rounds", type=int, default=1, help="run every variant this many times, interleaved")
    ap.add_argument("--only", action="append", metavar="LABEL",
                    help="run only the variants whose label starts with LABEL (repeatable)")
    ap.add_argument("-o", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                    help="a topology config override passed to every run (sparse run -o)")
    args = ap.parse_args()
    if not os.path.exists(python):
        sys.exit("no peers virtualenv at %s: run scripts/peers.sh" % python)
    results = {}
    for _ in range(args.rounds):
        for label, commands, serializer in variants():
            if args.only and not any(label.startswith(prefix) for prefix in args.only):
                continue
            results.setdefault(label, []).append(
                run_one(args.sparse, args.seconds, label, commands, serializer, args.overrides))
    print("| components | tuples/s at sink | runtime CPU µs/tuple | components CPU µs/tuple | spout fails |")
    print("|---|---|---|---|---|")
    best = {}
    for label, rows in results.items():
        best[label] = max(r["tuples_per_sec"] for r in rows)
        print("| %s | %s | %s | %s | %s |" % (
            label, " / ".join("%.0f" % r["tuples_per_sec"] for r in rows),
            " / ".join("%.1f" % r["runtime_us"] for r in rows),
            " / ".join("%.1f" % r["components_us"] for r in rows),
            " / ".join(str(r["failed"]) for r in rows)))

    def ratio(a, b):
        return best[a] / best[b] if best.get(b) else float("nan")

    print()
    print("sparse_multilang / pystorm, JSON:      %.2f" % ratio("sparse_multilang (JSON)", "pystorm (JSON)"))
    print("sparse_multilang / pystorm, msgpack:   %.2f" % ratio("sparse_multilang (msgpack)", "pystorm (msgpack)"))
    print("msgpack / JSON, sparse_multilang:      %.2f" % ratio("sparse_multilang (msgpack)", "sparse_multilang (JSON)"))
    print("msgpack / JSON, pystorm:               %.2f" % ratio("pystorm (msgpack)", "pystorm (JSON)"))
    print("sparse_multilang (JSON) / storm.py:    %.2f" % ratio("sparse_multilang (JSON)", "storm.py"))
    print("(ratios of each variant's best round)")


if __name__ == "__main__":
    sys.exit(main())
