"""Reverse mode's writes of values being differentiated into arrays: buffers with versions.

A plain ndarray cannot carry a tape node, and the caller may hold it (a buffer made outside
the function and reused). When a value being differentiated is written into one, the
buffer gets a *version*: a tape node standing for its whole memory, whose cotangent is a
flat array over that memory. Each write makes a new version, whose parents are the
version before it (the positions written get nothing from later reads: ``Overwritten``)
and the value written (``Written``). Reading a view of a buffer with a version gives a
``TracedArray`` whose node is a ``Read`` of the version at the view's positions. An array
computed in the run (a ``TracedArray``) that is written into gets a version too, with a mask
of the elements written: the arrays that are views of its memory and were made before the
write read the version where it was written and keep their own derivative elsewhere when
next used (``fresh``).

Positions are found from a view's address and strides, as forward mode's shadow memory
is; only buffers whose memory is one contiguous block can hold versions.

Under an enclosing forward-mode derivative (a Hessian forward over reverse), the values and
arrays also carry its tangents: the write itself is then a call of that derivative (its shadow
memory keeps the tangents written) and the version is recorded here as without it. Under an
enclosing reverse-mode run (reverse over reverse), each run keeps its own versions, keyed by its
tag: the code running reads the running run's (``_running_tag``); a nested run reads and writes
the enclosing run's values through that run (``call_under`` of its ``getitem``/``setitem``, which
records them there), keeps them as its primals (``lift``, ``fresh``), and the write of a value
only it differentiates goes through the enclosing run too, which then clears its own version there.
A forward derivative nested inside this run (reverse over forward) reads a buffer holding this
run's versions as the ``TracedArray`` they stand for, with its own tangents around it
(``buffers.lift``), and writes its own layers first, then has this run record the rest (``buffers.write``).
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import operator
from typing import Any

import numpy as np

from context.resolve import declare_engine_code
from context.tagging import Tagged, dispatch
from context.tagging.arrays import per_buffer, root_of
from context.state import STATE, call_under
from context.tagging.values import live, primal

from . import buffers
from .forward import NoRuleError
from .traced import COMPLEX_NODES, Node, TracedArray, make_traced
from ..rules.buffer_pullbacks import Overwritten, Read, Unwritten, Written
from ..rules.pullbacks import _FromVjp
from ..rules.sparse_cotangents import basic, getitem_vjp

declare_engine_code(__file__)

ndarray = np.ndarray
_VERSIONS = buffers.REVERSE_VERSIONS  # id(root buffer) -> {tag: version node}
_NESTED = (
    "reverse mode records writes into arrays for one derivative at a time; this write carries the values of "
    "a forward-mode derivative nested in the one being recorded: use ad.ForwardMode() for the outer one "
    "(ad.hessian(f, x) or ad.HigherOrder(ad.ForwardMode(), ...)), or build a new array instead of writing "
    "(np.where, np.concatenate)"
)


def positions(root: ndarray, a: ndarray) -> ndarray:
    """The memory position (item index from the start of ``root``) of each element of view ``a``
    (at a cost in ``a``'s size, not ``root``'s: a loop reading one element at a time stays linear)."""
    size = root.itemsize
    if a.dtype != root.dtype:
        buffers.mirror(np.empty(0), (), root, a)  # (raises its error about views of another dtype)
    pos = np.full(a.shape, (buffers.address(a) - buffers.address(root)) // size, dtype=np.intp)
    ndim = a.ndim
    for axis, (n, stride) in enumerate(zip(a.shape, a.strides)):
        if n > 1:
            pos += (np.arange(n, dtype=np.intp) * (stride // size)).reshape((n,) + (1,) * (ndim - axis - 1))
    return pos


def _check_block(root):
    if not (root.flags.c_contiguous or root.flags.f_contiguous):
        raise NoRuleError(
            "writing a value being differentiated into a view of a non-contiguous buffer: reverse mode has "
            "nowhere to keep its derivative; make the buffer with np.empty/np.zeros (or copy it) first"
        )


def _entry(root, t):
    """``(version node, written)`` of ``root`` for tag ``t``, or None; ``written`` is None for a plain
    buffer (elements never written are constants) or, for the memory of an array computed in the
    run, a mask of the elements written (the others keep that array's own derivative)."""
    entries = _VERSIONS.get(id(root))
    return entries.get(t) if entries else None


def any_version() -> bool:
    """Whether any buffer holds versions now (cheap: most runs write none)."""
    return bool(_VERSIONS)


def has_version(a: ndarray) -> bool:
    """Whether plain ndarray ``a``'s buffer holds values of the running reverse-mode run (or, outside
    one, of any live run). An enclosing reverse-mode run's versions are that run's business: a
    nested run sees the buffer as a constant, and its calls of the enclosing run lift it there."""
    if not _VERSIONS:  # the common case, on every array operand of reverse-mode code: no buffer written
        return False
    entries = _VERSIONS.get(id(root_of(a)))
    if not entries:
        return False
    for t in [t for t in entries if t.finished]:
        del entries[t]
    t = _running_tag(entries)
    return t is not None


def _running_tag(entries):
    """The tag among ``entries``' live ones whose versions the code running now reads: the running
    reverse-mode run's own, or (no reverse-mode run running: native code, a forward derivative's
    rule) the newest live one; None if the running run has none."""
    act = STATE.act
    t = getattr(act.ctx, "_tag", None) if act is not None else None
    if t is not None and _reverse(t):
        entry = entries.get(t)
        return t if entry is not None and not t.finished else None
    live_tags = [u for u in entries if not u.finished]
    return max(live_tags, key=lambda u: u.serial) if live_tags else None


def _set(root, t, node, written):
    per_buffer(_VERSIONS, root, True)[t] = (node, written)
    if t.context is not None:
        t.context.__dict__.setdefault("_buffers", {})[id(root)] = root


def _read_parent(root, a, entry, pos=None):
    """``((version node, Read pullback), mask)`` for view ``a``: the read is restricted to the
    elements written (``mask``) when the version covers only those, else ``mask`` is None."""
    node, written = entry
    pos = positions(root, a) if pos is None else pos
    mask = None if written is None else written[pos]
    start = None
    if a.size and a.flags.c_contiguous and (pos.size == 1 or bool(np.all(np.diff(pos.reshape(-1)) == 1))):
        start = int(pos.reshape(-1)[0])
    overlapping = start is None and (not a.flags.writeable or 0 in a.strides)
    return (node, Read(pos, root.size, start, overlapping, mask)), mask


def lift(a: ndarray) -> Any:
    """Buffer ``a`` as the ``TracedArray`` it stands for (the newest live version's), or ``a`` itself."""
    root = root_of(a)
    entries = _VERSIONS.get(id(root))
    if not entries:
        return a
    t = _running_tag(entries)
    if t is None:
        return a
    parent, _ = _read_parent(root, a, entries[t])
    value = a
    if _outer_versions(entries, t):  # the enclosing reverse-mode run's value of it (a view, read there)
        value = call_under(STATE.act.parent, operator.getitem, (a, Ellipsis), {})
    return make_traced(value, t, Node((parent,)))


def lift_as(a: ndarray, t: Any, value: Any) -> Any:
    """Buffer ``a`` as the ``TracedArray`` of tag ``t``'s version of it, holding ``value`` (``a`` with
    the layers of derivatives older than ``t``): read by a forward derivative nested in ``t``'s run."""
    root = root_of(a)
    parent, _ = _read_parent(root, a, _entry(root, t))
    return make_traced(value, t, Node((parent,)))


def read(a: ndarray, key: Any) -> Any:
    """``a[key]`` for plain buffer ``a`` holding versions, as the value it stands for. A basic key ties
    only the elements read to the version (a loop reading one element at a time costs one element
    per read, here and on the way back); other keys read the whole buffer first."""
    root = root_of(a)
    entries = _VERSIONS.get(id(root))
    t = _running_tag(entries) if entries else None
    if t is None or not basic(key) or (buffers.has_any_shadow() and buffers.live_tags(a)):
        # (an enclosing forward derivative's tangents are read with the buffer, as a call of it)
        return dispatch(operator.getitem, (lift(a), key))
    if _outer_versions(entries, t):  # an enclosing reverse-mode run reads its own versions
        act = STATE.act
        value = call_under(act.parent, operator.getitem, (a, key), {})
        view = a[key] if type(primal(value)) is ndarray else a[_new_axis_first(key)]
        parent, _ = _read_parent(root, view, entries[t])
        return make_traced(value, t, Node((parent,)))
    value = a[key]
    if type(value) is ndarray:
        view = value
    else:  # one element: its position, from a view of it
        view = a[_new_axis_first(key)]
    parent, _ = _read_parent(root, view, entries[t])
    return make_traced(value, t, Node((parent,)))


def read_traced(x: Any, key: Any) -> Any:
    """``x[key]`` for a ``TracedArray`` of the running reverse-mode run that was written into since it
    was made, when a basic key reads only elements written since (they come from the version) or
    only elements not written (they keep ``x``'s own derivative): the elements read alone are tied
    to the tape, so a loop reading one element at a time stays linear. None for the general path."""
    p = x.value
    if not _VERSIONS or type(p) is not ndarray or type(x) is not TracedArray or not basic(key):
        return None
    act = STATE.act
    t = x.tag
    if act is None or getattr(act.ctx, "_tag", None) is not t:
        return None
    root = root_of(p)
    entry = _entry(root, t)
    if entry is None or entry[1] is None or entry[0].serial < x.meta.serial:
        return None  # (nothing written since x was made: the general path is as cheap)
    value = p[key]
    view = value if type(value) is ndarray else p[_new_axis_first(key)]
    pos = positions(root, view)
    written = entry[1][pos]
    if written.all():
        parent, _ = _read_parent(root, view, (entry[0], None), pos)
    elif not written.any():
        parent = (x.meta, _FromVjp(getitem_vjp, value, (p, key), {}))
    else:
        return None
    return make_traced(value, t, Node((parent,)))


def fresh(x: TracedArray) -> TracedArray:
    """``x``, or (part of its memory written since it was made) the same view reading its buffer's
    version where it was written and keeping its own derivative elsewhere."""
    p = x.value
    if type(p) is TracedArray and not p.tag.finished:  # an enclosing reverse-mode run's value: fresh there too
        q = fresh(p)
        if q is not p:
            x, p = make_traced(q, x.tag, x.meta), q
    memory = p if type(p) is ndarray else primal(p)  # (an enclosing forward derivative's array)
    if type(memory) is not ndarray:
        return x
    root = root_of(memory)
    entry = _entry(root, x.tag)
    if entry is None or entry[0].serial < x.meta.serial:
        return x
    pos = positions(root, memory)
    if entry[1] is not None and not entry[1][pos].any():
        return x
    parent, mask = _read_parent(root, memory, entry, pos)
    if mask is None or mask.all():
        return make_traced(p, x.tag, Node((parent,)))
    return make_traced(p, x.tag, Node((parent, (x.meta, Unwritten(mask)))))


def _outer_versions(entries, t):
    """Whether a live run older than ``t`` holds versions too (``t``'s run nested in it)."""
    return any(u.serial < t.serial and not u.finished for u in entries)


def _new_axis_first(key):
    """``key`` with a leading new axis: it gives a view even where ``key`` picks one element."""
    return (None,) + (key if isinstance(key, tuple) else (key,))


def _key_positions(root, a, key):
    """Positions of ``a[key]``: from the view itself when ``key`` makes one (no index array of all of
    ``a``); a leading new axis keeps an integer key from making a scalar."""
    try:
        view = a[_new_axis_first(key)]
    except (IndexError, TypeError, ValueError):
        view = None
    if type(view) is ndarray and view.base is not None and root_of(view) is root:
        return positions(root, view)[0]
    return positions(root, a)[key]


def _reverse(t):
    """Whether tag ``t`` is a reverse-mode run's (its context records writes)."""
    return getattr(type(t.context), "records_writes", False)


def _outer_ok(raw, t):
    """Whether ``raw`` (a value written, or the array written into, without ``t``'s layer) carries
    only derivatives of runs older than ``t``, which enclose it and record the write themselves: a
    forward derivative keeps its tangents in shadow memory (a Hessian forward over reverse), a
    reverse-mode run its versions (reverse over reverse)."""
    while isinstance(raw, Tagged):
        u = raw.tag
        if not u.finished and u.serial > t.serial:
            return False
        raw = raw.value
    return True


def _shadowed(a, t, newer_done=False):
    """Whether plain buffer ``a`` holds tangents of a live forward-mode run (shadow memory), and they
    are all older than ``t`` (None: some are newer, which no write of ``t``'s run may touch). With
    ``newer_done`` (a forward derivative nested in ``t``'s run wrote the newer ones itself), whether
    some are older than ``t``."""
    tags = buffers.live_tags(a)
    if not tags:
        return False
    if newer_done:
        return tags[0].serial < t.serial
    return None if tags[-1].serial > t.serial else True


def _raw_write(a, key, raw, outer):
    """``a[key] = raw`` without reverse mode's layer; with ``outer`` (an enclosing forward derivative
    holds part of it), done as a call of the enclosing context, which keeps its tangents. A plain
    buffer ``raw`` holding an enclosing forward derivative's tangents (its shadow memory) is such a
    part too."""
    if outer or (type(raw) is ndarray and buffers.has_any_shadow() and bool(buffers.live_tags(raw))):
        act = STATE.act
        call_under(act.parent if act is not None else None, operator.setitem, (a, key, raw), {})
    else:
        a[key] = raw


def assign(target: Any, key: Any, value: Any, newer_done: bool = False) -> None:
    """``target[key] = value`` in a reverse-mode run: ``target`` a plain ndarray or a ``TracedArray``.

    Under an enclosing forward-mode derivative (a Hessian forward over reverse), the arrays and
    values may carry its tangents too: the write itself is then done by that derivative (which
    keeps the tangents written), and the version is recorded here as without it. With
    ``newer_done``, a forward derivative nested in this run (reverse over forward) has written the
    layers newer than this run's into plain buffer ``target`` (its shadow memory): they are left
    alone here."""
    target, value = live(target), live(value)
    if type(value) is ndarray and has_version(value):
        value = lift(value)
    elif type(value) is TracedArray:
        value = fresh(value)
    if isinstance(target, TracedArray):
        t = target.tag
        if isinstance(value, Tagged) and value.tag is not t and value.tag.serial > t.serial:
            raise NoRuleError(
                "writing a value of an inner derivative into an array of an outer one (computed in its "
                "reverse-mode run): the array cannot take the inner derivative; create the array inside the "
                "inner function, or write into a buffer made with np.zeros or np.empty"
            )
        a = target.value
        if not _outer_ok(a, t):
            raise NoRuleError(_NESTED)
        owned = True
    elif type(target) is ndarray:
        a = target
        entries = _VERSIONS.get(id(root_of(a)))
        if not (isinstance(value, Tagged) and _reverse(value.tag)):
            # a constant for reverse mode (an enclosing forward derivative's value at most)
            outer = isinstance(value, Tagged) or (buffers.has_any_shadow() and _older_shadows(a, newer_done))
            _raw_write(a, key, value, outer)
            if entries:  # a constant over part of a buffer with versions: that part's derivative is zero now
                _clear(a, key, entries)
            return
        t = value.tag
        owned = False
    else:
        target[key] = value
        return
    mine = isinstance(value, Tagged) and value.tag is t
    raw = value.value if mine else value
    if (mine and not isinstance(value.meta, Node)) or not _outer_ok(raw, t):
        raise NoRuleError(_NESTED)
    memory = primal(a)
    shadowed = type(a) is ndarray and buffers.has_any_shadow() and _shadowed(a, t, newer_done)
    if shadowed is None:
        raise NoRuleError(_NESTED)
    root = root_of(memory)
    _check_block(root)
    if memory.dtype.kind not in "fc":
        raise TypeError(
            "writing a value being differentiated into an array of dtype %s would drop its derivative; "
            "only float arrays can hold one (make the buffer with dtype=float)" % memory.dtype
        )
    pos = _key_positions(root, memory, key)
    entries = _VERSIONS.get(id(root))
    outer_versions = bool(entries) and _outer_versions(entries, t)  # (an enclosing run clears its own)
    _raw_write(a, key, raw, shadowed or a is not memory or isinstance(raw, Tagged) or outer_versions)
    entry = _entry(root, t)
    if entry is None:
        previous, written = None, (np.zeros(root.size, dtype=bool) if owned else None)
    else:
        previous, written = entry
    # the value written first: the backward pass may then clear the positions written in place
    parents = [(value.meta, Written(pos, raw))] if mine else []
    if previous is not None:
        parents.append((previous, Overwritten(pos)))
    if written is not None:
        written[pos] = True
    _set(root, t, _version(root, parents), written)


def _older_shadows(a, newer_done):
    """Whether plain buffer ``a`` holds tangents of live forward-mode runs that an enclosing
    derivative keeps (all of them, or with ``newer_done`` those older than the running run)."""
    tags = buffers.live_tags(a)
    if not newer_done or not tags:
        return bool(tags)
    t = getattr(STATE.act.ctx, "_tag", None) if STATE.act is not None else None
    return t is None or tags[0].serial < t.serial


def _clear(a, key, entries):
    root = root_of(a)
    pos = None
    for t, (node, written) in list(entries.items()):
        if t.finished:
            continue
        pos = _key_positions(root, a, key) if pos is None else pos
        if written is not None:
            written[pos] = True
        _set(root, t, _version(root, ((node, Overwritten(pos)),)), written)


def _version(root, parents):
    """A new version node of buffer ``root``: complex memory's keeps the imaginary parts of its cotangents."""
    node = Node(tuple(parents))
    if root.dtype.kind == "c":
        node.real = False
        COMPLEX_NODES[0] += 1
    return node


def result(out: Any, ctx: Any) -> Any:
    """What ``ctx``'s run returned, with buffers holding its versions read and its ``TracedArray``
    written since they were made reading their versions (lists and tuples walked)."""
    t = ctx._tag
    kind = type(out)
    if kind is list or kind is tuple:
        return kind(result(o, ctx) for o in out)
    if kind is ndarray:
        root = root_of(out)
        entry = _entry(root, t)
        return out if entry is None else make_traced(out, t, Node((_read_parent(root, out, entry)[0],)))
    if kind is TracedArray and out.tag is t:
        return fresh(out)
    return out


def end(ctx: Any) -> None:
    """The run of ``ctx`` ended: its versions are dropped (its tag is finished; nothing reads them again)."""
    t = getattr(ctx, "_tag", None)
    for root in ctx.__dict__.pop("_buffers", {}).values():
        entries = _VERSIONS.get(id(root))
        if entries is not None:
            entries.pop(t, None)
            if not entries:  # an empty store keeps has_version's fast path
                del _VERSIONS[id(root)]
