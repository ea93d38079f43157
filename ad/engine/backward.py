"""Reverse mode's backward pass: cotangents sent from a node back to the nodes wanted.

Engine code: the walk (a heap of nodes, a dict of cotangents) runs natively. The pullbacks
it calls are rule code, called as a call of rewritten code would be (``STATE.call_ex``): under
an enclosing derivative (a Hessian forward over reverse) they run under that derivative's
context, which differentiates them; with none running, they are plain calls. Cotangents are
added by such a call of ``operator.add`` too: a pullback may return a plain buffer whose
derivative the enclosing context keeps beside it, which only the context sees. With no
enclosing derivative, a node's third and later cotangents are added in place into the sum
made for its second (the pass's own array, which nothing else holds yet), as autograd
does: one new buffer per node instead of one per contribution. A complex cotangent sent to a
real value keeps its real part (``np.real``, called the same way): with the pairing
``<u, t> = Re(sum(u * t))`` that is its transpose of the real value's embedding in the complex plane.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from heapq import heappop, heappush
from operator import add
from typing import Any

import numpy as np

from context.resolve import declare_engine_code
from context.state import STATE, native_call_ex
from context.tagging.values import primal

from ..rules.buffer_pullbacks import Overwritten, Read
from ..rules import pullbacks
from ..rules.pullbacks import _FromVjp, run_pull
from ..rules.sparse_cotangents import SPARSE, IndexScatter, getitem_vjp
from ..rules.sparse_cotangents import add as sparse_add
from .buffers import BACKWARD
from .forward import all_finite
from .traced import COMPLEX_NODES, is_complex

declare_engine_code(__file__)

_NO_KWARGS: dict = {}


def backward(top: Any, seed: Any, wanted: list, value: Any = None) -> list:
    """The cotangents that reach the nodes ``wanted`` when ``top`` gets ``seed`` (None where none does).

    Nodes are taken in decreasing serial order (a heap of the nodes reached so far): a node's users
    were all made after it, so its cotangent is complete when its turn comes. No recursion.

    A zero cotangent sends nothing back, even through an infinite or ``nan`` derivative (no
    ``0 * inf``), as forward mode gives a direction that does not touch an element no tangent:
    the gradient of ``sum(where(x > 0, log(x), 0))`` at 0 is 0, not ``nan``. Checking every
    pullback's result for that would cost a pass over each; instead a pass whose result holds a
    ``nan`` or an infinity is made again with the check on (``pullbacks.UNTOUCHED``). A ``nan``
    made from a zero cotangent either reaches the result or is dropped by a selection on the way
    (whose masked pass drops the zero the check leaves there), so a finite result needs no check.
    Where the output itself (``value``, where the seed is not zero) is not finite, it depended on
    the values that made it so: no pass is made again, and the derivative is ``nan`` as the value.
    """
    BACKWARD.depth += 1
    try:
        got = _backward(top, seed, wanted)
        if pullbacks.UNTOUCHED.on or all(_finite(g) for g in got) or not _finite_where_seeded(value, seed):
            return got
        pullbacks.UNTOUCHED.on = True
        try:
            return _backward(top, seed, wanted)
        finally:
            pullbacks.UNTOUCHED.on = False
    finally:
        BACKWARD.depth -= 1


def _finite(g):
    p = primal(g)
    if p is None:
        return True
    if type(p) is np.ndarray:
        return p.dtype.kind not in "fc" or all_finite(p)
    try:
        return bool(np.all(np.isfinite(p)))
    except TypeError:  # (not a number: nothing to check)
        return True


def _finite_where_seeded(value, seed):
    """Whether ``value`` (None: not known) is finite wherever ``seed`` is not zero."""
    if value is None:
        return True
    p, w = primal(value), primal(seed)
    if np.ndim(p) == 0:
        return _finite(p)
    return bool(np.isfinite(np.asarray(p)[np.broadcast_to(np.asarray(w) != 0, np.shape(p))]).all())


def _backward(top, seed, wanted):
    call = STATE.call_ex
    plain = call is native_call_ex  # no enclosing derivative: sums may be made in place
    cotangents = {top.serial: seed}
    sums = set()  # nodes whose cotangent is an array this pass made (only it holds it)
    keep = {node.serial for node in wanted}
    heap = [(-top.serial, top)]
    complex_run = COMPLEX_NODES[0] != 0  # (no complex value was ever recorded: every cotangent is real)
    scatter = plain  # real reads send only the elements read (``sparse_cotangents``)
    while heap:
        _, node = heappop(heap)
        s = node.serial
        u = cotangents[s] if s in keep else cotangents.pop(s)
        if type(u) in SPARSE:  # only reads sent cotangents to this node
            u = u.dense()
            sums.add(s)
            if s in keep:
                cotangents[s] = u
        mine = scatter and s in sums and s not in keep
        parents = node.parents
        for parent, pull in parents:
            made = False  # whether g is an array this pass made
            kind = type(pull)
            if scatter and kind is Read and _real(u):
                g = pull.scatter(u)
            elif scatter and kind is _FromVjp and pull.vjp is getitem_vjp and _real(u):
                g = IndexScatter(pull.primals[1], u, np.shape(primal(pull.primals[0])))
            elif scatter and kind is Overwritten:
                # the last use of u (the value written comes first): cleared in place if only this pass holds it
                g = pull.in_place(u) if mine and pull is parents[-1][1] else pull(u)
                made = True
            else:
                g = run_pull(call, pull, u)
            if complex_run and parent.real and type(g) is not float \
                    and (type(g) is not np.ndarray or g.dtype.kind == "c") and is_complex(primal(g)):
                g = call(np.real, (g,), _NO_KWARGS)  # a real value's cotangent is real (see traced.py)
            k = parent.serial
            previous = cotangents.get(k)
            if previous is None:
                cotangents[k] = g
                heappush(heap, (-k, parent))
                if made:
                    sums.add(k)
            elif not plain:  # (an enclosing derivative may keep a cotangent's derivative beside a plain
                # buffer: the sum is a call of the context too, which sees it)
                cotangents[k] = call(add, (previous, g), _NO_KWARGS)
            elif type(g) in SPARSE or type(previous) in SPARSE:
                cotangents[k] = sparse_add(previous, g, k in sums, made)
                sums.add(k)
            elif k in sums and type(g) is np.ndarray and g.shape == previous.shape and g.dtype == previous.dtype:
                np.add(previous, g, out=previous)
            else:
                total = previous + g
                cotangents[k] = total
                if type(total) is np.ndarray and total.ndim:
                    sums.add(k)
    got = [cotangents.get(node.serial) for node in wanted]
    return [g.dense() if type(g) in SPARSE else g for g in got]


def _real(u):
    kind = type(u)
    return kind is float or ((kind is np.ndarray or kind is np.float64) and u.dtype.kind == "f")
