"""``streamparse_run [-s json|msgpack] module.Class``: what streamparse's DSL names as each
Python component's command, working with or without streamparse installed.

When the interpreter has the real streamparse, its own runner runs the component (on real
pystorm). Otherwise the class is imported with sparse's stand-ins for ``streamparse`` and
``pystorm`` (compat.py) and run on sparse_multilang, which detects JSON or MessagePack from
the handshake, so ``-s`` is accepted and checked but not needed. As streamparse's runner does,
a single argument is split on spaces (Storm passes the script as one string), and the module
is imported from the working directory (or its ``resources/``).
Exit status: 0 when the host closed stdin, 1 on a fatal error, 2 on a bad command line.
"""

import argparse
import importlib
import os
import sys
import traceback

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _real_streamparse():
    if _ROOT not in sys.path:
        sys.path.insert(0, _ROOT)
    try:
        import streamparse
    except Exception:
        return None
    from .compat import _is_stand_in
    where = getattr(streamparse, "__file__", "") or ""
    return None if not where or _is_stand_in(where) else streamparse


def _parse(argv):
    parser = argparse.ArgumentParser(prog="streamparse_run",
                                     description="Run a streamparse bolt/spout class.")
    parser.add_argument("target_class", help="module.Class of the bolt or spout")
    parser.add_argument("-s", "--serializer", choices=("json", "msgpack"), default="json",
                        help="accepted for streamparse; sparse detects it from the handshake")
    if len(argv) == 1:
        argv = argv[0].split()
    return parser.parse_args(argv)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parse(argv)
    if _real_streamparse() is not None:
        from streamparse.run import main as real_main
        sys.argv = [sys.argv[0]] + argv
        return real_main()
    from .stdio import take_over_stdio
    module_name, _, class_name = args.target_class.rpartition(".")
    if not module_name:
        sys.stderr.write("streamparse_run: expected module.Class, got %r\n" % args.target_class)
        return 2
    import_path = os.getcwd()
    resources = os.path.join(import_path, "resources")
    if os.path.isfile(os.path.join(resources, module_name.replace(".", os.sep) + ".py")):
        import_path = resources
    sys.path.append(import_path)
    take_over_stdio()  # output printed while importing becomes log messages
    try:
        component_class = getattr(importlib.import_module(module_name), class_name)
    except Exception:
        sys.stderr.write("streamparse_run: cannot load %s:\n%s"
                         % (args.target_class, traceback.format_exc()))
        return 1
    component_class(serializer=args.serializer).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
