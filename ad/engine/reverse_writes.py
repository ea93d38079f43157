"""Writes during a reverse-mode run: the values the tape saved stay as they were when saved.

A pullback keeps the arrays its rule needs (``x`` for ``sin(x)``, a constant ``A`` for
``A * x``). The program may write into such an array later in the run (``A[0] = 5``,
``A *= 3``, ``A.fill(0)``, ``np.multiply(A, 3, out=A)``); the backward pass must still see
the values the operation used. So each run keeps, per memory block (an array's root), the
pullbacks that saved arrays of it, and before a write into that block they keep a copy of
what they saved (``detach``): copy on write, paid by programs that write into saved arrays.

Seen writes: subscript assignment and in-place operators in rewritten code (the handlers
below), and natives that write into an array argument (``out=``, ``np.copyto``,
``ndarray.fill`` and the other mutating methods: the guard below). Writes of values being
differentiated into arrays are recorded too, as versions of the buffer (``reverse_buffers``).
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np

from context.resolve import declare_engine_code
from context.rewrite.operators import BINARY_OPS
from context.state import STATE
from context.tagging import Tagged
from context.tagging.values import primal

from . import reverse_buffers
from .handlers import build

declare_engine_code(__file__)

ndarray = np.ndarray

_MUTATING_METHODS = frozenset(["fill", "sort", "put", "partition", "resize", "itemset", "setfield", "byteswap",
                               "__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__", "__ipow__"])
_MUTATING_FUNCTIONS = {id(f): f for f in (np.copyto, np.place, np.putmask, np.put, np.put_along_axis,
                                          np.fill_diagonal)}


def root_of(a: ndarray) -> ndarray:
    while isinstance(a.base, ndarray):
        a = a.base
    return a


def save(ctx, pull, arrays) -> None:
    """Remember that ``pull`` keeps the ndarrays among ``arrays`` (by their memory blocks)."""
    save_all(ctx, (pull,), arrays)


def save_all(ctx, pulls, arrays) -> None:
    """Remember that each of ``pulls`` keeps the ndarrays among ``arrays`` (by their memory blocks).

    Until the run's first write into an array, this is one append to a list: most runs never
    write into an array the tape keeps, and the index by memory block is built at the first
    write (``_index``)."""
    d = ctx.__dict__
    saved = d.get("_saved")
    if saved is None:
        pending = d.get("_pending_saves")
        if pending is None:
            d["_pending_saves"] = [(pulls, arrays)]
        else:
            pending.append((pulls, arrays))
        return
    _enter(saved, pulls, arrays)


def _enter(saved, pulls, arrays):
    for a in arrays:
        if type(a) is not ndarray:
            a = primal(a)  # an array carrying an enclosing forward derivative's tangent
        if type(a) is ndarray:
            r = a if a.base is None else root_of(a)
            entry = saved.get(id(r))
            if entry is None:
                saved[id(r)] = (r, list(pulls))
            else:
                kept = entry[1]
                for pull in pulls:
                    if kept[-1] is not pull:
                        kept.append(pull)


def _index(ctx):
    """The saved arrays' pullbacks by memory block (``id(root) -> (root, pulls)``), built now from
    what was saved so far if this is the run's first write."""
    d = ctx.__dict__
    saved = d.get("_saved")
    if saved is None:
        saved = d["_saved"] = {}
        for pulls, arrays in d.pop("_pending_saves", ()):
            _enter(saved, pulls, arrays)
    return saved


def forget(ctx) -> None:
    """Drop the record of saved arrays (the run is over: writes can no longer reach it)."""
    ctx.__dict__.pop("_saved", None)
    ctx.__dict__.pop("_pending_saves", None)


def before_write(ctx, a) -> None:
    """``a`` (an ndarray, or one carrying an enclosing forward derivative's tangent) is about to
    change: the pullbacks that saved its memory keep copies."""
    if type(a) is not ndarray:
        a = primal(a)
        if type(a) is not ndarray:
            return
    d = ctx.__dict__
    if "_saved" not in d and "_pending_saves" not in d:
        return
    saved = _index(ctx)
    if not saved:
        return
    r = root_of(a)
    entry = saved.pop(id(r), None)
    if entry is not None:
        for pull in entry[1]:
            pull.detach(r)


def _current():
    """The reverse-mode context of the running activation, or None."""
    act = STATE.act
    ctx = act.ctx if act is not None else None
    return ctx if getattr(type(ctx), "records_writes", False) else None


def assign(target, key, value) -> None:
    """``target[key] = value`` under reverse mode: the tape's saved arrays of ``target``'s memory are
    copied first, then the write is recorded (``reverse_buffers``)."""
    ctx = _current()
    if ctx is not None:
        p = target.value if isinstance(target, Tagged) else target
        before_write(ctx, p)
    reverse_buffers.assign(target, key, value)


def _cow(handler):
    """An in-place operator's handler, with the saved arrays of a plain target copied first."""

    def inplace(a, b):
        if type(a) is ndarray:
            ctx = _current()
            if ctx is not None:
                before_write(ctx, a)
        return handler(a, b)

    inplace.__name__ = handler.__name__
    return inplace


HANDLERS, _BUFFER_GUARD = build(reverse_buffers.has_version, reverse_buffers.lift, assign, read=reverse_buffers.read,
                                read_tagged=reverse_buffers.read_traced, held=reverse_buffers.any_version)
for _iop in BINARY_OPS[13:]:
    HANDLERS[_iop.__name__] = _cow(HANDLERS[_iop.__name__])


def handlers():
    """The implicit handlers of the reverse-mode context."""
    return dict(HANDLERS)


class ReverseGuard(type(_BUFFER_GUARD)):
    """The tagging guard, with buffers holding versions seen as the values they stand for, and
    natives that write into an array argument seen first."""

    def call(self, f, args, kwargs, run=None, /):
        ctx = _current()
        if ctx is not None:
            out = kwargs.get("out") if kwargs else None
            if out is not None:
                for a in (out if type(out) is tuple else (out,)):
                    before_write(ctx, a)
            owner = getattr(f, "__self__", None)
            if type(owner) is ndarray and getattr(f, "__name__", None) in _MUTATING_METHODS:
                before_write(ctx, owner)
            elif id(f) in _MUTATING_FUNCTIONS and args:
                before_write(ctx, args[0])
            elif type(owner) is np.ufunc and getattr(f, "__name__", None) == "at" and args:
                before_write(ctx, args[0])
        return type(_BUFFER_GUARD).call(self, f, args, kwargs, run)


GUARD = ReverseGuard()
