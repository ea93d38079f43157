"""The arrays reverse-mode runs saved for their backward passes, kept as they were when saved.

A pullback keeps the arrays its rule needs (``x`` for ``sin(x)``, a constant ``A`` for
``A * x``). The program may write into such an array later in the run (``A[0] = 5``,
``A *= 3``, ``A.fill(0)``, ``np.multiply(A, 3, out=A)``); the backward pass must still see
the values the operation used. So each run keeps, per memory block (an array's root), the
pullbacks that saved arrays of it, and before a write into that block they keep a copy of
what they saved (``detach``): copy on write, paid by programs that write into saved arrays.

Every live run that saved something is told of a write (``before_write``), whichever AD
context's code makes it: in a Hessian reverse over reverse or reverse over forward, the inner
derivative's code writes into arrays the outer run saved, and a write of constants there is
that inner code's own business, which the outer run would not otherwise see.

A leaf module: forward mode's writes (``buffers``, the handlers' guard) and reverse mode's
(``reverse_writes``) both call it.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from typing import Any

import numpy as np

from context.resolve import declare_engine_code
from context.tagging.values import primal

declare_engine_code(__file__)

ndarray = np.ndarray
RUNS: list = []  # the reverse-mode contexts whose live runs saved arrays (until ``forget``)


def root_of(a: ndarray) -> ndarray:
    while isinstance(a.base, ndarray):
        a = a.base
    return a


def save(ctx: Any, pull: Any, arrays: Any) -> None:
    """Remember that ``pull`` keeps the ndarrays among ``arrays`` (by their memory blocks)."""
    save_all(ctx, (pull,), arrays)


def save_all(ctx: Any, pulls: Any, arrays: Any) -> None:
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
            RUNS.append(ctx)
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


def forget(ctx: Any) -> None:
    """Drop the record of saved arrays (the run is over: writes can no longer reach it)."""
    ctx.__dict__.pop("_saved", None)
    ctx.__dict__.pop("_pending_saves", None)
    try:
        RUNS.remove(ctx)
    except ValueError:
        pass


def before_write(a: Any) -> None:
    """``a`` (an ndarray, or one carrying a forward derivative's tangent) is about to change: the
    pullbacks of every live run that saved its memory keep copies (each of the arrays as the
    values of its own run: without the layers of derivatives nested inside it)."""
    if not RUNS:
        return
    if type(a) is not ndarray:
        a = primal(a)
        if type(a) is not ndarray:
            return
    r = root_of(a)
    for ctx in tuple(RUNS):
        d = ctx.__dict__
        if "_saved" not in d and "_pending_saves" not in d:
            continue
        saved = _index(ctx)
        entry = saved.pop(id(r), None) if saved else None
        if entry is not None:
            for pull in entry[1]:
                pull.detach(r, getattr(ctx, "_tag", None))
