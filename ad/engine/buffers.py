"""Tangents of plain NumPy buffers that differentiated code writes into.

A buffer made anywhere (inside the function or outside it) cannot become a ``DualArray``:
the caller holds the array itself. When a value carrying a tangent is written into it,
the tangent goes into *shadow memory*: an array of the same layout, one per buffer and
AD run (tag), kept aside and found again from any view of the buffer by the view's
address and strides. Elements never written with a tangent hold zero in the shadow,
which is exact: they are constants of the run. ``lift(a)`` turns a buffer with shadow
memory into a ``DualArray`` whose tangent is a view of the shadow, so rules see it as
any other value being differentiated.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import threading

import numpy as np

from context.resolve import declare_engine_code
from context.state import STATE
from context.tagging.arrays import per_buffer, root_of
from context.tagging.values import Tagged, live, primal

from .dual_array import make_dual
from .saves import before_write
from .traced import TracedArray, make_traced
from ..rules.tangents import chunk_shape, lead_axes

declare_engine_code(__file__)

ndarray = np.ndarray
_shadows = {}  # id(root buffer) -> {tag: (flat shadow memory, chunk shape)}
SHADOWS = _shadows  # (the dict itself, for hot paths that check it without ``has_any_shadow``'s frame)
REVERSE_VERSIONS = {}  # id(root buffer) -> {tag: tape node}: reverse mode's buffers (``reverse_buffers``)


def address(a):
    """The address of ``a``'s first element."""
    return a.__array_interface__["data"][0]


def live_tags(a):
    """The live tags whose shadow memory ``a``'s buffer has, oldest first (dead ones are dropped)."""
    entries = _shadows.get(id(root_of(a)))
    if not entries:
        return ()
    for t in [t for t in entries if t.finished]:
        del entries[t]
    return sorted(entries, key=lambda t: t.serial)


def has_any_shadow():
    """Whether any buffer holds tangents in shadow memory (cheap: most runs write none)."""
    return bool(_shadows)


def has_shadow(a):
    """Whether ndarray ``a`` shares memory that holds tangents of a live AD run (or the versions of a
    reverse-mode run that the forward derivative running now is nested in)."""
    root = root_of(a)
    entries = _shadows.get(id(root))
    if REVERSE_VERSIONS and REVERSE_VERSIONS.get(id(root)) and reverse_layer(root, None) is not None:
        return True
    return bool(entries) and bool(live_tags(a))


def _is_reverse(t):
    return getattr(type(t.context), "records_writes", False)


def reverse_layer(root, below):
    """The newest live reverse-mode run holding versions of buffer ``root`` that the forward code
    running now reads through: one that the running forward derivative is nested in (reverse over
    forward), older than ``below`` where given. None if there is none (a Hessian forward over
    reverse: the reverse-mode run reads and writes its versions itself)."""
    entries = REVERSE_VERSIONS.get(id(root))
    if not entries:
        return None
    act = STATE.act
    reader = getattr(act.ctx, "_tag", None) if act is not None else None
    if reader is None:
        if any(not t.finished for t in entries):
            raise TypeError(
                "a buffer holding a reverse-mode run's versions was used by forward-mode code outside any "
                "derivative; read it inside the function being differentiated"
            )
        return None
    limit = reader.serial if below is None else below.serial
    best = None
    for t in entries:
        if t.finished or t.serial > reader.serial or t.serial >= limit:
            continue
        if t is reader and below is None:
            continue  # (a reverse-mode run's own code: it reads its versions itself)
        if best is None or t.serial > best.serial:
            best = t
    return best if best is None else _not_in_a_backward_pass(best)


def mirror(flat, chunk, root, a):
    """The part of ``flat`` (one item per item of ``root``'s memory, after ``chunk`` leading axes: shadow
    memory, or reverse mode's positions) laid out as view ``a`` of ``root``: shape ``chunk + a.shape``."""
    size = root.itemsize
    if a.dtype != root.dtype:
        raise TypeError(
            "a view of a buffer with another dtype (%s of %s) cannot carry derivatives; "
            "copy it first with .astype()" % (a.dtype, root.dtype)
        )
    offset = (address(a) - address(root)) // size
    width = flat.itemsize
    strides = flat.strides[:-1] + tuple(s // size * width for s in a.strides)
    # an ndarray over flat's memory: its base is flat, so views of views find the same shadow root
    return np.ndarray(chunk + a.shape, dtype=flat.dtype, buffer=flat, offset=offset * width, strides=strides)


def shadow(a, t):
    """The tangent of buffer view ``a`` for tag ``t`` (a view of the shadow memory), or None."""
    root = root_of(a)
    entries = _shadows.get(id(root))
    entry = entries.get(t) if entries else None
    if entry is None:
        return None
    return mirror(entry[0], entry[1], root, a)


def _ensure(a, t, chunk, dtype):
    root = root_of(a)
    entries = per_buffer(_shadows, root, True)
    entry = entries.get(t)
    if entry is None:
        if not (root.flags.c_contiguous or root.flags.f_contiguous):
            raise TypeError(
                "writing a value being differentiated into a view of a non-contiguous buffer: its "
                "tangent has nowhere to go; make the buffer with np.empty/np.zeros (or copy it) first"
            )
        flat = np.zeros(tuple(chunk) + (root.size,), dtype=np.result_type(root.dtype, dtype))
        entry = entries[t] = (flat, tuple(chunk))
    elif entry[1] != tuple(chunk):
        raise ValueError(
            "tangents with %d directions written into a buffer holding tangents with %d"
            % (chunk[0] if chunk else 1, entry[1][0] if entry[1] else 1)
        )
    return mirror(entry[0], entry[1], root, a)


def lift(a, below=None):
    """Buffer ``a`` as a ``DualArray`` (one layer per live tag with shadow memory), or ``a`` itself.

    ``below`` limits the layers to tags older than it (the layers under that tag's).
    """
    tags = live_tags(a)
    if below is not None:
        tags = [t for t in tags if t.serial < below.serial]
    r = reverse_layer(root_of(a), below) if REVERSE_VERSIONS else None
    if r is not None and (not tags or r.serial > tags[-1].serial):  # reverse over forward
        return r.context.read_version(a, lift(a, r))
    if not tags:
        return a
    t = tags[-1]
    return make_dual(lift(a, t), t, lift(shadow(a, t)))


def snapshot(v, below=None):
    """A copy of array ``v`` as it stands now, with the tangents live forward runs keep for it (its
    shadow memory, or a ``DualArray``'s own) and the node an enclosing reverse-mode run keeps for it:
    what reverse mode keeps of an array it saved before the array is written into (see
    ``reverse_writes``). ``below`` as for ``lift``."""
    if type(v) is ndarray:
        tags = live_tags(v) if _shadows else ()
        if below is not None:
            tags = [t for t in tags if t.serial < below.serial]
        if not tags:
            return v.copy()
        t = tags[-1]
        return make_dual(snapshot(v, t), t, snapshot(shadow(v, t)))
    if isinstance(v, Tagged) and not v.tag.finished:
        if type(v) is TracedArray:  # an enclosing reverse-mode run's value: its node stands for it as it is now
            return make_traced(snapshot(v.value, v.tag), v.tag, v.meta)
        return make_dual(snapshot(v.value, v.tag), v.tag, snapshot(v.meta))
    return v


def fit(g, target_ndim, n):
    """Tangent ``g`` (``n`` chunk axes) with unit axes after the chunk axes, to broadcast into a
    target of ``target_ndim`` axes (assignment aligns trailing axes; the chunk axis stays first)."""
    shape = np.shape(primal(g))
    missing = target_ndim - len(shape)
    if n and missing > 0:
        return g.reshape(shape[:n] + (1,) * missing + shape[n:])
    return g


def key_tuple(key):
    return key if isinstance(key, tuple) else (key,)


def write(a, key, value, below=None):
    """``a[key] = value`` for a plain ndarray ``a``, keeping tangents in shadow memory.

    With ``below`` (a tag), only the layers of tags older than it are written: the
    caller handles that tag's own layer and the newer ones.
    """
    value = live(value)
    if type(value) is ndarray and has_shadow(value):
        value = lift(value, below)
    tags = [t for t in live_tags(a) if below is None or t.serial < below.serial]
    r = _reverse_writer(a, value, below) if REVERSE_VERSIONS or isinstance(value, Tagged) else None
    if r is not None:  # reverse over forward: the newer layers here, the rest by the reverse-mode run
        _zero(a, key, [t for t in tags if t.serial > r.serial])
        r.context.write_version(a, key, value)
        return
    if not isinstance(value, Tagged):
        before_write(a)  # a reverse-mode run enclosing this derivative may have saved it
        a[key] = value
        _zero(a, key, tags)
        return
    if a.dtype.kind not in "fc":
        raise TypeError(
            "writing a value being differentiated into an array of dtype %s would drop its tangent; "
            "only float and complex arrays can hold one (make the buffer with dtype=float)" % a.dtype
        )
    t = value.tag
    _zero(a, key, [u for u in tags if u.serial > t.serial])
    write(a, key, value.value, below=t)  # the layers below this tag's
    chunk = chunk_shape(value.meta, value.value)
    meta = value.meta
    if a.dtype.kind == "f" and np.iscomplexobj(primal(meta)):
        meta = np.real(meta)  # NumPy keeps the real part of a complex value written into a real array
    s = _ensure(a, t, chunk, np.result_type(primal(meta)))
    n = len(chunk)
    if n:
        meta = fit(meta, np.ndim(a[key]) + n, n)
    write(s, lead_axes(n) + key_tuple(key), meta)


class _BackwardPasses(threading.local):
    depth = 0  # backward passes running on this thread (``engine/backward.py``)


BACKWARD = _BackwardPasses()


def _not_in_a_backward_pass(r):
    """``r``, or (a backward pass is running: a third derivative whose innermost reverse-mode run's
    pullbacks write under a forward derivative nested in the reverse-mode run ``r``) a clear error,
    as before reverse over forward wrote: that case is not recorded right yet."""
    if BACKWARD.depth:
        raise TypeError(
            "reverse mode records writes into arrays for one derivative at a time; a backward pass run under a "
            "forward-mode derivative nested in a reverse-mode one used a buffer (a third derivative reverse over "
            "forward over reverse): use ad.ForwardMode() for one of them"
        )
    return r


def _reverse_writer(a, value, below):
    """The reverse-mode run that records what is left of ``a[key] = value`` once the forward layers newer
    than it are written: the newest of the value's own run (its newest layer a reverse-mode one) and
    the run whose versions of ``a`` the forward code reads (``reverse_layer``); None where the value's
    newest layer is a forward derivative's newer than both, or neither exists."""
    r = reverse_layer(root_of(a), below) if REVERSE_VERSIONS else None
    if isinstance(value, Tagged):
        t = value.tag
        if not _is_reverse(t):
            return None if r is None or t.serial > r.serial else r
        if r is None or t.serial > r.serial:
            return _not_in_a_backward_pass(t)
    return r


def _zero(a, key, tags):
    """Zero the tangents of ``a[key]`` for ``tags``; a shadow that holds tangents of its own (an older
    derivative's, second order) has them zeroed too."""
    for t in tags:
        s = shadow(a, t)
        write(s, lead_axes(s.ndim - a.ndim) + key_tuple(key), 0)
