"""Derivative rules for the ``operator`` module (what ``a + b`` and friends call)."""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import operator as op

from ..engine.forward import NOT_DIFFERENTIABLE, defjvp, defzero
from .special import dabs, dpow_base, dpow_exponent, floor

for add in (op.add, op.iadd):
    defjvp(add, lambda g, ans, x, y: g, lambda g, ans, x, y: g)
for sub in (op.sub, op.isub):
    defjvp(sub, lambda g, ans, x, y: g, lambda g, ans, x, y: -g)
for mul in (op.mul, op.imul):
    defjvp(mul, lambda g, ans, x, y: g * y, lambda g, ans, x, y: x * g)
for div in (op.truediv, op.itruediv):
    defjvp(div, lambda g, ans, x, y: g / y, lambda g, ans, x, y: -g * ans / y)
for pw in (op.pow, op.ipow):
    defjvp(pw, dpow_base, dpow_exponent)
for mod in (op.mod, op.imod):
    defjvp(mod, lambda g, ans, x, y: g, lambda g, ans, x, y: -g * floor(x / y))
defjvp(op.neg, lambda g, ans, x: -g)
defjvp(op.pos, lambda g, ans, x: g)
defjvp(op.abs, lambda g, ans, x: dabs(g, x))
defzero(op.floordiv, op.ifloordiv, op.truth, op.not_)
defjvp(op.index, NOT_DIFFERENTIABLE)
