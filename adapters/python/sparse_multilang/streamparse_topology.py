"""Reads a streamparse topology (``topologies/NAME.py``, or a streamparse 2 ``NAME.clj`` through
streamparse_clj.py) and prints it as JSON for sparse.

    python3 -m sparse_multilang.streamparse_topology FILE [--env ENV] [--serializer NAME]

The file is run with sparse's stand-ins for streamparse's DSL (streamparse_dsl.py), whatever
streamparse is installed: the real DSL needs thriftpy2 and fabric and only builds Thrift
objects. As streamparse does, ``FILE``'s folder and ``FILE/../src`` are put on sys.path, so
the topology imports its components. Output, one JSON object on stdout:

    {"name", "class", "line", "config", "components": [{"id", "kind": "spout"|"bolt",
     "class", "line", "command": [...], "java": null|"class name", "parallelism",
     "config", "streams": [{"id", "fields", "direct"}],
     "inputs": [{"from", "stream", "grouping", "fields"}]}]}

or ``{"error": message, "file": path, "line": n}`` when the file cannot be evaluated (exit 0
either way: the caller reports). What the topology prints goes to stderr. ``par`` given per environment is resolved for ``--env``.
``--serializer`` (config.json's) becomes ``-s NAME`` of each ``streamparse_run`` command, as
streamparse passes it.
"""

import argparse
import importlib.util
import inspect
import json
import os
import sys
import traceback

_HERE = os.path.dirname(os.path.abspath(__file__))


def _force_shim():
    # `import streamparse` inside the topology and its components must give sparse's DSL.
    os.environ["SPARSE_STREAMPARSE_SHIM"] = "1"
    parent = os.path.dirname(_HERE)
    if parent not in sys.path:
        sys.path.insert(0, parent)
    for name in list(sys.modules):
        if name == "streamparse" or name.startswith("streamparse."):
            del sys.modules[name]


class _Problem(Exception):
    def __init__(self, message, location):
        super().__init__(message)
        self.location = location


def _par(spec, env):
    if not isinstance(spec.par, dict):
        return spec.par
    if env is None:
        raise _Problem("`par` of %s is given per environment (%s) but no environment is "
                       "chosen: give one with -e" % (spec.name, ", ".join(sorted(spec.par))),
                       (spec.file, spec.line))
    if env not in spec.par:
        raise _Problem("`par` of %s has no entry for environment `%s` (it has %s)"
                       % (spec.name, env, ", ".join(sorted(spec.par))), (spec.file, spec.line))
    return spec.par[env]


def _command(spec, serializer):
    if spec.java_class is not None:
        return []
    command = [spec.command]
    args = str(spec.script).split()
    if serializer and os.path.basename(spec.command) == "streamparse_run" and "-s" not in args:
        args = ["-s", serializer] + args
    return command + args


def _component(spec, env, serializer):
    return {
        "id": spec.name,
        "kind": spec.kind,
        "class": spec.component_cls.__name__,
        "line": spec.line,
        "file": spec.file,
        "command": _command(spec, serializer),
        "java": spec.java_class,
        "parallelism": _par(spec, env),
        "config": spec.config,
        "streams": [{"id": s.name, "fields": s.fields, "direct": s.direct}
                    for s in spec.outputs.values()],
        "inputs": [{"from": stream_id.componentId, "stream": stream_id.streamId,
                    "grouping": grouping.kind, "fields": grouping.fields or []}
                   for stream_id, grouping in spec.inputs],
    }


def _load(path):
    directory = os.path.dirname(path)
    for extra in (os.path.join(directory, "..", "src"), directory):
        extra = os.path.normpath(extra)
        if extra not in sys.path:
            sys.path.append(extra)
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _find_topology(module, path):
    from streamparse import Topology  # sparse's stand-in (forced above)
    found = [value for value in vars(module).values()
             if isinstance(value, type) and issubclass(value, Topology) and value is not Topology]
    own = [cls for cls in found if cls.__module__ == module.__name__]
    if not (own or found):
        raise _Problem("no Topology subclass in this file (streamparse topologies are "
                       "`class NAME(Topology):` with spouts and bolts as attributes)", (path, 0))
    return (own or found)[0]


def _class_line(cls):
    try:
        return inspect.getsourcelines(cls)[1]
    except (OSError, TypeError):
        return 0


def _where(exc, path):
    """(file, line) to blame: the spec's, a syntax error's, or the deepest user frame."""
    location = getattr(exc, "sparse_location", None) or getattr(exc, "location", None)
    if location:
        return location
    if isinstance(exc, SyntaxError) and exc.filename:
        return exc.filename, exc.lineno or 0
    best = (path, 0)
    for frame in traceback.extract_tb(exc.__traceback__):
        filename = os.path.abspath(frame.filename)
        if filename.startswith(_HERE + os.sep) or filename.startswith("<"):
            continue
        if "importlib" in filename and filename.endswith(("_bootstrap.py",
                                                          "_bootstrap_external.py")):
            continue
        best = (filename, frame.lineno)
    return best


def evaluate(path, env=None, serializer=None):
    path = os.path.abspath(path)
    stdout, sys.stdout = sys.stdout, sys.stderr  # what the topology prints is not the answer
    try:
        _force_shim()
        module = _load(path)
        topology = _find_topology(module, path)
        return {
            "name": os.path.splitext(os.path.basename(path))[0],
            "class": topology.__name__,
            "line": _class_line(topology),
            "config": topology.config,
            "components": [_component(spec, env, serializer) for spec in topology.specs],
        }
    except BaseException as exc:  # SystemExit from a topology's import too
        if isinstance(exc, KeyboardInterrupt):
            raise
        file, line = _where(exc, path)
        message = str(exc) if isinstance(exc, _Problem) else "%s: %s" % (type(exc).__name__,
                                                                          exc)
        if isinstance(exc, ImportError) and not isinstance(exc, _Problem):
            message += (" (the topology imports its components from src/, so what they import "
                        "must be importable by %s; set SPARSE_PYTHON to use another Python)"
                        % sys.executable)
        return {"error": message, "file": file, "line": line}
    finally:
        sys.stdout = stdout


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m sparse_multilang.streamparse_topology")
    parser.add_argument("file")
    parser.add_argument("--env")
    parser.add_argument("--serializer")
    args = parser.parse_args(argv)
    if args.file.endswith(".clj"):
        # streamparse 2's Clojure topologies: read, not run (streamparse_clj.py).
        from sparse_multilang import streamparse_clj
        result = streamparse_clj.evaluate(args.file, args.env, args.serializer)
    else:
        result = evaluate(args.file, args.env, args.serializer)
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
