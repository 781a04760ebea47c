"""Shared by the streamparse tests: the sparse binary, and project folders to run it in."""

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
