"""``with`` and ``async with`` entry, with ``__enter__`` called through the context."""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from ..resolve import lookup_special
from ..state import STATE

_MISSING = object()


def _special(mgr, name, protocol, missed=""):
    """CPython's ``_PyObject_LookupSpecial``, with the interpreter's messages."""
    kind = type(mgr)
    method = lookup_special(kind, name, _MISSING)
    if method is _MISSING:
        raise TypeError("'%s' object does not support the %s protocol%s" % (kind.__name__, protocol, missed))
    get = getattr(type(method), "__get__", None)
    return get(method, mgr, kind) if get is not None else method


def _enter(mgr, enter, exit, protocol):
    enter_method = _special(mgr, enter, protocol)
    exit_method = _special(mgr, exit, protocol, " (missed %s method)" % exit)
    result = STATE.call(enter_method, ())
    return (result, exit_method)


def enter_with(mgr):
    """What BEFORE_WITH does, returned as ``(enter_result, bound_exit)``."""
    return _enter(mgr, "__enter__", "__exit__", "context manager")


def enter_async_with(mgr):
    """What BEFORE_ASYNC_WITH does: ``(awaitable_from_aenter, bound_aexit)``."""
    return _enter(mgr, "__aenter__", "__aexit__", "asynchronous context manager")


def exit_with_exception(exit_method, exc):
    """What WITH_EXCEPT_START does: ``exit(type, value, traceback)``, called through the context."""
    return STATE.call(exit_method, (type(exc), exc, exc.__traceback__))
