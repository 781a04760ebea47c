"""``streamparse_run [-s json|msgpack] module.Class``: runs a component as streamparse does,
without streamparse installed. See sparse_multilang/streamparse_run.py."""

import sys

from sparse_multilang.streamparse_run import main

if __name__ == "__main__":
    sys.exit(main())
