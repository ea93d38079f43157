"""Telling a clear error (raised by ad, naming the function) from a crash."""

import math
import os
import re
import traceback

import numpy as onp

from . import ROOT


_KNOWN = None


def _known_names():
    """The names of the functions of NumPy, SciPy's usual modules, math, operator and builtins."""
    global _KNOWN
    if _KNOWN is None:
        import builtins
        import importlib
        import operator

        names = set(dir(onp)) | set(dir(onp.linalg)) | set(dir(onp.fft)) | set(dir(math)) | set(dir(operator))
        names |= set(dir(builtins))
        for mod in ["scipy.special", "scipy.linalg", "scipy.stats", "scipy.signal", "scipy.integrate"]:
            try:
                names |= set(dir(importlib.import_module(mod)))
            except ImportError:
                pass
        _KNOWN = {n for n in names if not n.startswith("__")}
    return _KNOWN


def deliberate(e):
    """Whether ``ad`` (or the engine) raised ``e`` itself: its last frame is a ``raise``
    statement in ad/ or context/ (not an error of NumPy or Python inside a rule)."""
    tb = traceback.extract_tb(e.__traceback__)
    if not tb:
        return False
    last = tb[-1]
    inside = any(last.filename.startswith(os.path.join(ROOT, d) + os.sep) for d in ("ad", "context"))
    if not inside:
        try:
            import ad
            import context

            inside = any(last.filename.startswith(os.path.dirname(m.__file__) + os.sep) for m in (ad, context))
        except ImportError:
            pass
    return inside and (last.line or "").lstrip().startswith("raise")


def names_function(message, case):
    """Whether an error message names a function: the case's own, a qualified name
    (``numpy.pad``, ``np.linalg.norm``), or, first thing in the message, a function of
    NumPy, SciPy, math, operator or the builtins (``gammaln converted ...``)."""
    short = case.func.split(".")[-1]
    if re.search(r"\b%s\b" % re.escape(short), message):
        return True
    if re.search(r"\b(numpy|scipy|np|math|operator|builtins)\.[A-Za-z_]", message):
        return True
    first = re.match(r"\s*([A-Za-z_][\w.]*)", message)
    return bool(first) and first.group(1).split(".")[-1] in _known_names()


NORULE = re.compile(r"^(\S+) has no derivative rule")


def last_frames(e):
    tb = traceback.extract_tb(e.__traceback__)
    return ["%s:%d %s" % (os.path.relpath(f.filename, ROOT) if f.filename.startswith(ROOT) else f.filename,
                          f.lineno, f.name) for f in tb[-4:]]
