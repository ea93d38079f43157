"""pycassette's engine: run any Python function under a context.

``overdub(ctx, f, *args, **kwargs)`` runs ``f`` with every call inside routed through
``ctx``: hooks observe calls, primitives replace them, and ``recurse`` runs a callee's
own code rewritten for the context.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from ._support import check_python_version

check_python_version()


_LAZY = {  # names imported when first asked for: the GPU context needs NumPy, which takes about
    # 100 ms to import, more than the rest of the package (``python -m context`` on a script
    # that does not use NumPy should not pay it)
    "GPUCtx": ".ready.gpu", "GPUHostFallbackWarning": ".ready.gpu", "GPUUnavailableError": ".ready.devices",
}


def __getattr__(name):
    """``GPUCtx`` and its exceptions, imported at first use (see ``_LAZY``); ``__version__``: the
    installed pycassette's version ("0+unknown" if it is not installed), read when first
    asked for (importlib.metadata takes longer to import than it is worth at every start)."""
    module = _LAZY.get(name)
    if module is not None:
        from importlib import import_module

        value = getattr(import_module(module, __name__), name)
        globals()[name] = value
        return value
    if name == "__version__":
        from importlib import metadata

        try:
            version = metadata.version("pycassette")
        except metadata.PackageNotFoundError:  # a source tree that is not installed
            version = "0+unknown"
        globals()["__version__"] = version
        return version
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


from . import passes  # noqa: E402
from .api import canrecurse, disablehooks, overdub, recurse, similarcontext  # noqa: E402
from .base import Context  # noqa: E402
from .callbacks import register_callback_method, register_callback_positions  # noqa: E402
from .errors import RewriteError  # noqa: E402
from .ready.counting import CountCtx, ProfileCtx  # noqa: E402
from .ready.printing import PrintCtx  # noqa: E402
from .ready.tracing import CallRecord, TraceCtx  # noqa: E402

__all__ = [
    "CallRecord",
    "Context",
    "CountCtx",
    "GPUCtx",
    "GPUHostFallbackWarning",
    "GPUUnavailableError",
    "PrintCtx",
    "ProfileCtx",
    "RewriteError",
    "TraceCtx",
    "canrecurse",
    "disablehooks",
    "overdub",
    "passes",
    "recurse",
    "register_callback_method",
    "register_callback_positions",
    "similarcontext",
]


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


def load_ipython_extension(ipython):
    """``%load_ext context``: the ``%trace``, ``%count`` and ``%print`` magics (see ``context.ipython``)."""
    from .ipython import load_ipython_extension as load  # IPython is needed only here

    load(ipython)
