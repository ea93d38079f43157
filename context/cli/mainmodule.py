"""A module's code as a function the engine can run under a context, and a fresh ``__main__`` module for it."""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import builtins
import inspect
import types
from typing import Any

_FUNCTION_FLAGS = inspect.CO_OPTIMIZED | inspect.CO_NEWLOCALS


def module_code_function(code: types.CodeType, namespace: dict[str, Any]) -> types.FunctionType:
    """A function that runs ``code``, a module's code, in ``namespace``, as ``exec(code, namespace)`` would.

    ``code`` is what ``compile(source, filename, "exec")`` (or ``"single"``) returns for a
    script, a module or a notebook cell; ``namespace`` is the dict it runs in, its globals
    and its locals at once: what the code defines at top level lands there, as with
    ``exec``. As ``exec`` does, a ``namespace`` without ``__builtins__`` gets the
    ``builtins`` module there. The function takes no arguments and returns None (what
    ``exec`` returns); run it under a context with ``context.overdub(ctx, function)``, and
    every call the code makes goes through ``ctx``. Each call runs the code again.

    The command line runs scripts and ``-m`` modules so, in a fresh ``__main__`` module
    (``new_main_module``). Raises ``TypeError`` if ``code`` is not a code object and
    ``ValueError`` if it is a function's code rather than a module's.
    """
    if not isinstance(code, types.CodeType):
        raise TypeError("module_code_function: expected a code object (compile(source, filename, 'exec')), "
                        "got %s" % type(code).__name__)
    if code.co_flags & _FUNCTION_FLAGS or code.co_freevars:
        raise ValueError("module_code_function: %r is the code of a function, not of a module; compile the "
                         "source with compile(source, filename, 'exec')" % code.co_name)
    if "__builtins__" not in namespace:
        namespace["__builtins__"] = builtins
    return types.FunctionType(code, namespace, "<module>")


def new_main_module(code: types.CodeType, **attributes: Any) -> tuple[types.ModuleType, types.FunctionType]:
    """A fresh module named ``__main__`` with ``attributes`` (``__file__``, ``__spec__``, ...), and the function
    that runs ``code`` in it (``module_code_function``). The module is not installed in ``sys.modules``."""
    module = types.ModuleType("__main__")
    module.__dict__.update(attributes, __builtins__=builtins)
    return module, module_code_function(code, module.__dict__)
