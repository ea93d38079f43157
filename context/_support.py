"""Which CPython versions the engine can rewrite, checked at import time."""

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


PY311 = sys.version_info[:2] == (3, 11)
PY312 = sys.version_info[:2] == (3, 12)
PY313 = sys.version_info[:2] == (3, 13)
