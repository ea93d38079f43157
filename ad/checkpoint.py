"""``ad.checkpoint(f)``: in reverse mode, ``f``'s inside is recomputed on the way back instead of stored.

A call of the checkpointed function during a reverse-mode run computes ``f``'s result without
recording ``f``'s operations: the tape gets one node for the whole call. When the backward
pass reaches that node, ``f`` runs again on the saved inputs under a fresh tape, whose backward
pass gives the inputs' cotangents, and is freed. A time-stepping loop whose steps are
checkpointed in blocks keeps one node per block instead of one per operation: memory for
time, as ``jax.checkpoint`` and ``torch.utils.checkpoint`` trade them.

Outside reverse mode (forward mode, no derivative) the checkpointed function is ``f`` itself.
``f`` must return a number or an array; the values it closes over are constants for the
recomputation (pass what is differentiated as arguments). Not engine code: the call and the
recomputation run under the contexts of the derivatives around them.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from context.tagging import tag
from context.tagging.values import primal

from . import tape
from .engine.reverse import Node, plain_result

__all__ = ["checkpoint"]


def checkpoint(f: Callable[..., Any]) -> Callable[..., Any]:
    """``f``, recomputed on the backward pass of reverse mode instead of recorded (see the module)."""

    @functools.wraps(f)
    def checkpointed(*args: Any) -> Any:
        return checkpoint_call(f, args)

    return checkpointed


def checkpoint_call(f: Callable[..., Any], args: tuple) -> Any:
    """``f(*args)``; reverse mode has a primitive for it (``rules/vjps.py``) that records one node."""
    return f(*args)


class Recompute:
    """The pullbacks of a checkpointed call: ``f`` run again under a fresh tape, once per cotangent."""

    __slots__ = ("f", "primals", "traced", "u", "got")

    def __init__(self, f, primals, traced):
        self.f, self.primals, self.traced = f, primals, traced
        self.u = self.got = None

    def cotangents(self, u):
        if self.u is u:
            return self.got
        ctx = tape.start()
        leaves = [Node() if t else None for t in self.traced]
        args = [tag(p, ctx, leaf) if leaf is not None else p for p, leaf in zip(self.primals, leaves)]
        parts = []
        plain_result(tape.run(ctx, self.f, *args), ctx, parts)
        wanted = [leaf for leaf in leaves if leaf is not None]
        (value, node), = parts
        got = tape.backward(node, u, wanted) if node is not None else [None] * len(wanted)
        self.u, self.got = u, iter_cotangents(leaves, got)
        return self.got

    def pull_for(self, i):
        return _Pull(self, i)


def iter_cotangents(leaves, got):
    out, k = [], 0
    for leaf in leaves:
        if leaf is None:
            out.append(None)
        else:
            out.append(got[k])
            k += 1
    return out


class _Pull:
    __slots__ = ("recompute", "i")

    def __init__(self, recompute, i):
        self.recompute, self.i = recompute, i

    def __call__(self, u):
        g = self.recompute.cotangents(u)[self.i]
        return np.zeros(np.shape(primal(self.recompute.primals[self.i]))) if g is None else g

    def detach(self, root, below=None):
        """Keep copies of the saved inputs in memory block ``root`` (about to be written)."""
        self.recompute.primals = [p.copy() if type(p) is np.ndarray and _root(p) is root else p
                                  for p in self.recompute.primals]


def _root(a):
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a
