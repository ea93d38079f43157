"""Contexts by name, as the pytest plugin and the suite runners (``tools/``) name them."""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import importlib

NAMES = {
    "empty": "context.Context",
    "count": "context.CountCtx",
    "trace": "context.TraceCtx",
    "print": "context.PrintCtx",
    "profile": "context.ready.counting.ProfileCtx",
    "tagging": "context.tagging.TaggingContext (with a fresh tag)",
}


class UnknownContext(ValueError):
    """A context name that names no usable context; the message says why."""


def context_class(spec):
    """The ``context.Context`` subclass named ``module:Class``, checked to build with no arguments."""
    from ..base import Context

    module_name, _, attr = spec.partition(":")
    try:
        obj = importlib.import_module(module_name)
    except Exception as exc:
        raise UnknownContext("cannot import module %r: %s: %s" % (module_name, type(exc).__name__, exc)) from None
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise UnknownContext("module %r has no attribute %r" % (module_name, attr)) from None
    if not (isinstance(obj, type) and issubclass(obj, Context)):
        raise UnknownContext("%r is not a context.Context subclass" % (obj,))
    try:
        obj()
    except Exception as exc:
        raise UnknownContext("%s() fails with no arguments: %s: %s" % (obj.__qualname__, type(exc).__name__, exc)) \
            from None
    return obj


def context_factory(spec, trace_file=None):
    """``make(f) -> a fresh context`` for ``spec``: a name of ``NAMES`` or ``module:Class``.

    ``trace_file``: where ``trace`` streams its calls (in memory when None). ``f`` is the
    function about to run; the tagging context takes a fresh tag for it.
    """
    from .. import Context, CountCtx, PrintCtx, TraceCtx

    if spec == "empty":
        return lambda f: Context()
    if spec == "count":
        return lambda f: CountCtx()
    if spec == "trace":
        return (lambda f: TraceCtx()) if trace_file is None else (lambda f: TraceCtx(trace_file))
    if spec == "print":
        return lambda f: PrintCtx()
    if spec == "profile":
        from .counting import ProfileCtx

        return lambda f: ProfileCtx()
    if spec == "tagging":
        from ..tagging import TaggingContext, enabletagging

        return lambda f: enabletagging(TaggingContext(), f)
    if ":" not in spec:
        raise UnknownContext("unknown context %r; choose one of %s, or give module:Class for a "
                             "context.Context subclass" % (spec, ", ".join(sorted(NAMES))))
    cls = context_class(spec)
    return lambda f: cls()
