"""Shared by the streamparse tests: the sparse binary, and project folders to run it in."""

import json
import os
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")


def sparse_binary():
    binary = os.environ.get("SPARSE_BINARY")
    if not binary:
        raise RuntimeError("SPARSE_BINARY is not set (ctest sets it)")
    return binary


def sparse(args, cwd, env=None, timeout=120):
    """Runs `sparse ARGS` in `cwd`; returns the CompletedProcess (text)."""
    return subprocess.run([sparse_binary()] + list(args), cwd=cwd, env=env, timeout=timeout,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True)


def run_with_stats(args, cwd, env=None):
    """`sparse run ARGS --no-ui --stats-json FILE` in `cwd`: the CompletedProcess, and the final
    statistics by component id ({} when the run wrote none)."""
    stats = os.path.join(cwd, "stats.json")
    result = sparse(["run"] + list(args) + ["--no-ui", "--stats-json", stats], cwd=cwd, env=env)
    if not os.path.exists(stats):
        return result, {}
    with open(stats) as f:
        return result, {c["id"]: c for c in json.load(f)["components"]}


class ProjectDir:
    """A temporary folder, optionally a copy of a fixture project; removed on exit."""

    def __init__(self, fixture=None):
        self.path = tempfile.mkdtemp(prefix="sparse-streamparse-")
        if fixture:
            shutil.copytree(os.path.join(FIXTURES, fixture), self.path, dirs_exist_ok=True)

    def write(self, name, text):
        path = os.path.join(self.path, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)
