"""Derivative rules for products: ``dot``, ``matmul`` (``@``), ``einsum``, ``outer``, ``inner``,
``tensordot``, ``vdot``, ``kron``, ``cross``, ``vecdot``, ``matvec``, ``vecmat``, and ``trace``.

Each is linear in each array operand (``vdot`` and ``vecdot`` conjugate the first one,
which is still real-linear), so the tangent is the sum, over operands carrying one, of
the product with that operand replaced by its tangent. A chunk of tangents goes
direction by direction, except where the product carries a leading axis along for
free: ``dot`` and ``inner`` in their first operand, ``matmul`` in an operand of at
least two axes and no fewer than the other's, and ``einsum``, which gives the chunk
axis an index letter of its own (so a single-operand ``einsum`` that returns a view
of its operand gets the same view of the tangent).
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import operator
import string

import numpy as np

from context.tagging.dispatch import qualified_name

from ..engine.forward import NoRuleError, frule
from .tangents import lead, per_direction


def _replaced(g, fn, primals, i, kwargs):
    args = list(primals)
    args[i] = g
    return fn(*args, **kwargs)


def _check(fn, tangents, linear):
    for i, g in enumerate(tangents):
        if g is not None and i not in linear:
            raise NoRuleError(
                "%s: argument %d carries a derivative but is not an operand; make it a constant"
                % (qualified_name(fn), i + 1)
            )


def _sum(terms):
    total = None
    for term in terms:
        total = term if total is None else total + term
    return total


def multilinear(fn, linear=(0, 1), leading_free=lambda i, primals, kwargs: False, product=None):
    """Register ``fn`` as linear in each argument at the positions ``linear`` (the others are constants).

    ``leading_free(i, primals, kwargs)`` says whether ``product`` (``fn`` by default) with
    argument ``i`` replaced by a chunk of tangents already gives the chunk axis first.
    """
    product = product or fn

    def rule(primals, tangents, **kwargs):
        _check(fn, tangents, linear)
        out = fn(*primals, **kwargs)
        terms = []
        for i, g in enumerate(tangents):
            if g is None:
                continue
            n = lead(g, primals[i])
            if n and leading_free(i, primals, kwargs):
                terms.append(_replaced(g, product, primals, i, kwargs))
            else:
                terms.append(per_direction(_replaced, g, n, product, primals, i, kwargs))
        return out, _sum(terms)

    rule.__name__ = rule.__qualname__ = "rule of %s" % qualified_name(fn)
    frule(fn)(rule)
    return rule


def _first_nonscalar(i, primals, kwargs):
    return i == 0 and np.ndim(primals[0]) >= 1


def _matmul_free(i, primals, kwargs):
    mine, other = np.ndim(primals[i]), np.ndim(primals[1 - i])
    return not kwargs and mine >= 2 and mine >= other


multilinear(np.dot, leading_free=_first_nonscalar)
multilinear(np.inner, leading_free=_first_nonscalar)
multilinear(np.matmul, leading_free=_matmul_free)
multilinear(operator.matmul, leading_free=_matmul_free, product=np.matmul)
multilinear(np.outer)
multilinear(np.tensordot)
multilinear(np.vdot)
multilinear(np.kron)
multilinear(np.cross)
multilinear(np.trace, linear=(0,))
for _fn in ("vecdot", "matvec", "vecmat"):  # NumPy 2 ufuncs
    if hasattr(np, _fn):
        multilinear(getattr(np, _fn))

# ---- einsum ------------------------------------------------------------------------------------

_SUBLIST_LETTERS = string.ascii_uppercase + string.ascii_lowercase  # NumPy's letters for sublist labels 0..51


def _letters(sublist):
    return "".join("..." if s is Ellipsis else _SUBLIST_LETTERS[operator.index(s)] for s in sublist)


def _einsum_form(args):
    """``(subscripts, operand positions)`` of an einsum call in either form, subscripts as one string."""
    if isinstance(args[0], str):
        return args[0].replace(" ", ""), list(range(1, len(args)))
    stop = len(args) - len(args) % 2
    subscripts = ",".join(_letters(s) for s in args[1:stop:2])
    if len(args) % 2:
        subscripts += "->" + _letters(args[-1])
    return subscripts, list(range(0, stop, 2))


def _explicit(subscripts):
    """Input terms and output term of ``subscripts``, the output worked out as NumPy does in implicit mode."""
    inputs, arrow, output = subscripts.partition("->")
    terms = inputs.split(",")
    if not arrow:
        labels = "".join(terms).replace(".", "")
        once = sorted(c for c in set(labels) if labels.count(c) == 1)
        output = ("..." if "..." in inputs else "") + "".join(once)
    return terms, output


@frule(np.einsum)
def _einsum(primals, tangents, **kwargs):
    out = np.einsum(*primals, **kwargs)
    subscripts, positions = _einsum_form(primals)
    _check(np.einsum, tangents, positions)
    operands = [primals[p] for p in positions]
    terms = []
    for j, p in enumerate(positions):
        g = tangents[p]
        if g is None:
            continue
        inputs, output = _explicit(subscripts)
        if lead(g, primals[p]):
            chunk = next(c for c in string.ascii_letters if c not in subscripts)
            inputs[j] = chunk + inputs[j]
            output = chunk + output
        args = list(operands)
        args[j] = g
        terms.append(np.einsum(",".join(inputs) + "->" + output, *args, **kwargs))
    return out, _sum(terms)
