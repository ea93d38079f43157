"""Which CPython versions the engine can rewrite, checked at import time."""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import sys

SUPPORTED = ((3, 11), (3, 12), (3, 13))


def check_python_version(version_info=sys.version_info, implementation=sys.implementation.name):
    """Raise ImportError naming the supported versions unless this interpreter is one of them."""
    names = ", ".join("%d.%d" % v for v in SUPPORTED)
    if implementation != "cpython" or tuple(version_info[:2]) not in SUPPORTED:
        found = "%s %d.%d" % (implementation, version_info[0], version_info[1])
        raise ImportError(
            "pycassette rewrites CPython bytecode and supports CPython %s only; "
            "this interpreter is %s" % (names, found)
        )


# Runtime differences the engine outside the rewriter depends on, each named and tested
# with ``>=`` so that a new CPython inherits the newest behaviour (the rewriter's own are
# in ``rewrite/features.py``).
WARN_SKIP_FILE_PREFIXES = sys.version_info >= (3, 12)  # warnings.warn(skip_file_prefixes=...)
C_RECURSION_GUARDED = sys.version_info >= (3, 12)  # deep Python recursion cannot overflow the C stack
LOCALS_SNAPSHOT = sys.version_info >= (3, 13)  # PEP 667: locals() is a fresh dict in optimized scopes
