"""Lets sparse's ``streamparse`` and ``pystorm`` stand-ins step aside for the real packages.

sparse puts its stand-ins on PYTHONPATH, which Python searches before site-packages. Each
stand-in's ``__init__`` calls ``load_real`` first: when the interpreter can import the real
package from elsewhere on sys.path, that package is imported in the stand-in's place (and
``import streamparse`` returns it), so components run on real pystorm wherever it is
installed. If the real package fails to import (streamparse without thriftpy2, say), the
stand-in is used after all. ``SPARSE_STREAMPARSE_SHIM=1`` forces the stand-ins (sparse sets it
while reading topology files).
"""

import importlib.machinery
import importlib.util
import os
import sys

__all__ = ["load_real"]


MARKER = "sparse stand-in"  # in the docstring of each stand-in's __init__.py


def _is_stand_in(origin):
    try:
        with open(origin, encoding="utf-8", errors="replace") as f:
            return MARKER in f.read(400)
    except OSError:
        return False


def _find_real(name, path):
    """The spec of package ``name`` on ``path`` that is not one of sparse's stand-ins (there may
    be several copies of sparse's Python folder on the path: a build tree and a jar's)."""
    search = list(path)
    while True:
        spec = importlib.machinery.PathFinder.find_spec(name, search)
        if spec is None or spec.origin is None:
            return None
        if not _is_stand_in(spec.origin):
            return spec
        package_root = os.path.dirname(os.path.dirname(os.path.abspath(spec.origin)))
        remaining = [p for p in search if os.path.abspath(p or os.curdir) != package_root]
        if len(remaining) == len(search):
            return None
        search = remaining


def load_real(name, stand_in_file):
    """Imports the real package ``name`` in place of the stand-in at ``stand_in_file``;
    returns it, or None when the stand-in should define the module itself."""
    if os.environ.get("SPARSE_STREAMPARSE_SHIM") == "1":
        return None
    own_root = os.path.dirname(os.path.dirname(os.path.abspath(stand_in_file)))
    spec = _find_real(name, sys.path)
    if spec is None:
        return None
    stand_in = sys.modules.get(name)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception:
        # Not usable here (a missing dependency): forget it and its half-imported submodules.
        for loaded in list(sys.modules):
            if loaded.startswith(name + ".") and getattr(sys.modules[loaded], "__file__", "") \
                    and not os.path.abspath(sys.modules[loaded].__file__).startswith(own_root):
                del sys.modules[loaded]
        if stand_in is not None:
            sys.modules[name] = stand_in
        else:
            sys.modules.pop(name, None)
        return None
    return module
