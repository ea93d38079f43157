"""NumPy 2's array-API functions, differentiated through NumPy's own Python code.

``np.linalg.matmul``, ``outer``, ``tensordot``, ``vecdot``, ``trace``, ``diagonal``, ``cross`` and
``matrix_transpose``, ``np.matrix_transpose``, ``np.cumulative_sum``, ``np.cumulative_prod``,
``np.unstack`` and ``np.linalg.svdvals`` are native callables (NumPy's ``array_function_dispatch``)
around Python implementations that check their arguments and call functions with rules
(``np.matmul``, ``np.outer``, ``np.swapaxes``, ``np.cumsum``, ``np.linalg.svd``...). In both modes
their rule is that implementation, run under the AD context: results, checks and error messages
are NumPy's own, and the derivative is that of the functions it calls. A NumPy without one of
them (before 2.0, or 2.1 for the cumulative functions) has none to register.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np

from context.base import Context
from context.tagging import native_primitive

from ..engine.forward import ForwardCtx
from ..engine.reverse import ReverseCtx

NAMES = ("linalg.matmul", "linalg.outer", "linalg.tensordot", "linalg.vecdot", "linalg.trace", "linalg.diagonal",
         "linalg.cross", "linalg.matrix_transpose", "linalg.svdvals", "matrix_transpose", "cumulative_sum",
         "cumulative_prod", "unstack")


def _function(name):
    owner = np
    for part in name.split("."):
        owner = getattr(owner, part, None)
    return owner


def _through_implementation(fn, implementation):
    @native_primitive
    def primitive(ctx, *args, **kwargs):
        return Context.overdub(ctx, implementation, *args, **kwargs)

    primitive.__qualname__ = primitive.__name__ = "rule of %s (NumPy's implementation)" % fn.__name__
    return primitive


FUNCTIONS = []
for _name in NAMES:
    _fn = _function(_name)
    _implementation = getattr(_fn, "_implementation", None)
    if _implementation is None:
        continue
    FUNCTIONS.append(_fn)
    for _ctx in (ForwardCtx, ReverseCtx):
        _ctx.primitive(_fn)(_through_implementation(_fn, _implementation))
