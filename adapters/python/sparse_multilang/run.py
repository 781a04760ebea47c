"""Runs a component class: ``python3 -m sparse_multilang.run module:Class``.

The module is imported from the current directory (sys.path gets it first). stdio is taken
over before the import, so output printed while importing becomes log messages.
Exit status: 0 when the host closed stdin, 1 on a fatal error, 2 on a bad command line.
"""

import importlib
import os
import sys
import traceback

from .component import Component
from .stdio import take_over_stdio

USAGE = "usage: python3 -m sparse_multilang.run MODULE:CLASS\n"


def load_component_class(spec):
    """Returns the Component subclass named by ``module:Class`` (Class may be dotted)."""
    module_name, sep, attr_path = spec.partition(":")
    if not sep or not module_name or not attr_path:
        raise ValueError("expected MODULE:CLASS, got %r" % spec)
    target = importlib.import_module(module_name)
    for attr in attr_path.split("."):
        target = getattr(target, attr)
    if not (isinstance(target, type) and issubclass(target, Component)):
        raise TypeError("%s is not a sparse_multilang component class" % spec)
    return target


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0] in ("-h", "--help"):
        sys.stderr.write(USAGE)
        return 0 if args and args[0] in ("-h", "--help") else 2
    cwd = os.getcwd()
    if cwd not in sys.path:
        sys.path.insert(0, cwd)
    take_over_stdio()
    try:
        component_class = load_component_class(args[0])
    except Exception:
        sys.stderr.write("sparse_multilang: cannot load %s:\n%s" % (args[0], traceback.format_exc()))
        return 1
    component_class().run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
