"""Sparsity rules of linear maps with structure: products and contractions, differences,
convolutions, padding, scatters.

A contraction (``A @ x``, ``np.einsum``) with a constant operand keeps that operand's
zeros (they are zeros for every input); an operand that depends on the input counts
as nonzero everywhere. Differences and convolutions follow their stencils.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import operator
import string

import numpy as np

from context.base import Context
from context.resolve import declare_engine_code
from context.tagging.dispatch import qualified_name
from context.tagging.values import live

from ..engine.dual_array import DualArray
from ..rules import ufunc_methods
from . import deps, second_order, store
from . import families as F
from .tracer import UNDECIDED, assign

declare_engine_code(__file__)


def _known(d):
    return d is not None and d is not UNDECIDED and d.shape[0] > 0


# ---- contractions ----------------------------------------------------------------------

def _einsum_deps(spec, primals, ds, out_shape, pairs=None):
    """Dependencies of ``np.einsum(spec, *primals)`` (explicit ``->`` form, no ellipsis). With
    ``pairs``, two operands that depend on the input couple where their elements meet."""
    ins, out = spec.replace(" ", "").split("->")
    subs = ins.split(",")
    free = [c for c in string.ascii_letters if c not in spec]
    k = free[0]
    sizes = {}
    for sub, p in zip(subs, primals):
        for c, n in zip(sub, np.shape(p)):
            sizes[c] = n
    parts = []
    every = "".join(dict.fromkeys(spec.replace("->", "").replace(",", "")))
    met = []
    for j, (sub, d) in enumerate(zip(subs, ds)):
        if not _known(d):
            continue
        if pairs is not None:
            met.append(_lined_letters(np.einsum(k + sub + "->" + k + "".join(c for c in every if c in sub), d),
                                      "".join(c for c in every if c in sub), every,
                                      tuple(sizes[c] for c in every), lead=1))
        summed = "".join(dict.fromkeys(c for c in sub if c not in out))
        target = out + summed
        others = [(s, (np.asarray(p) != 0) if not _known(ds[i]) else np.ones(np.shape(p), bool))
                  for i, (s, p) in enumerate(zip(subs, primals)) if i != j]
        shape = tuple(sizes[c] for c in target)
        if others:
            mask = np.einsum(",".join(s for s, _ in others) + "->" + "".join(c for c in target if any(c in s for s, _ in others)),
                             *[m.astype(np.float64) for _, m in others]) > 0
            mask = _lined_letters(mask, "".join(c for c in target if any(c in s for s, _ in others)), target, shape)
        else:
            mask = None
        mine = "".join(c for c in target if c in sub)
        Dj = np.einsum(k + sub + "->" + k + mine, d)  # a permutation (and diagonal) of the slots: no sums
        Dj = _lined_letters(Dj, mine, target, shape, lead=1)
        if mask is not None:
            Dj = np.where(mask, Dj, 0)
        n_out = len(out)
        Dj = np.moveaxis(Dj, list(range(1 + n_out, 1 + n_out + len(summed))), list(range(1, 1 + len(summed))))
        D = Dj.reshape((-1,) + tuple(sizes[c] for c in out))
        parts.append(deps.compact(D) if len(summed) and D.shape[0] > 1 else D)
    for a in range(len(met)):
        for b in range(a + 1, len(met)):
            pairs.cross(met[a], met[b])
    return deps.union(parts, out_shape)


def _lined_letters(a, have, want, shape, lead=0):
    """``a`` (axes lettered ``have``, after ``lead`` leading axes) broadcast to letters ``want``."""
    full = a.reshape(a.shape[:lead] + tuple(a.shape[lead + have.index(c)] if c in have else 1 for c in want))
    return np.broadcast_to(full, a.shape[:lead] + shape)


def _contraction(spec_of):
    """A contraction whose einsum form ``spec_of(*primals)`` gives (None: all of every operand)."""

    def rule(ctx, fn, args, kwargs):
        primals, ds, found = F._split(ctx, args)
        ans = F._call(ctx, fn, primals, kwargs)
        if not found:
            return ans
        spec, operands = spec_of(*primals, **kwargs)
        if spec is None:
            out = F.dense()(ctx, fn, args, kwargs)
            if ctx.pairs is not None:
                second_order.after(ctx, fn, args, out)
            return out
        return F.result(ctx, ans, _einsum_deps(spec, operands, [ds[i] for i in range(len(operands))],
                                               np.shape(ans), ctx.pairs))

    rule.pairs_done = True
    return rule


def _matmul_spec(a, b, **_):
    na, nb = np.ndim(a), np.ndim(b)
    if na > 2 or nb > 2 or not na or not nb:
        if na >= 2 and na == nb and np.shape(a)[:-2] == np.shape(b)[:-2]:  # stacks of matrices
            batch = string.ascii_lowercase[: na - 2]
            return "%sij,%sjk->%sik" % (batch, batch, batch), (a, b)
        return None, None
    left = "ij" if na == 2 else "j"
    right = "jk" if nb == 2 else "j"
    out = ("i" if na == 2 else "") + ("k" if nb == 2 else "")
    return "%s,%s->%s" % (left, right, out), (a, b)


def _dot_spec(a, b, **_):
    na, nb = np.ndim(a), np.ndim(b)
    if not na or not nb:  # a number times an array
        letters = string.ascii_lowercase[: max(na, nb)]
        return "%s,%s->%s" % (letters[:na], letters[:nb], letters), (a, b)
    return _matmul_spec(a, b)


def _inner_spec(a, b, **_):
    na, nb = np.ndim(a), np.ndim(b)
    if not na or not nb:
        return None, None
    left = string.ascii_lowercase[: na - 1]
    right = string.ascii_uppercase[: nb - 1]
    return "%sz,%sz->%s%s" % (left, right, left, right), (a, b)


def _outer_spec(a, b, **_):
    return "i,j->ij", (np.ravel(a), np.ravel(b))


def _vdot_spec(a, b, **_):
    return "i,i->", (np.ravel(a), np.ravel(b))


def _tensordot_spec(a, b, axes=2):
    na, nb = np.ndim(a), np.ndim(b)
    if isinstance(axes, (int, np.integer)):
        ax_a, ax_b = list(range(na - axes, na)), list(range(axes))
    else:
        ax_a, ax_b = [list(np.atleast_1d(x)) for x in axes]
    ax_a = [int(x) % na for x in ax_a]
    ax_b = [int(x) % nb for x in ax_b]
    letters = iter(string.ascii_letters)
    la = [next(letters) for _ in range(na)]
    lb = [next(letters) for _ in range(nb)]
    for i, j in zip(ax_a, ax_b):
        lb[j] = la[i]
    out = [c for i, c in enumerate(la) if i not in ax_a] + [c for j, c in enumerate(lb) if j not in ax_b]
    return "%s,%s->%s" % ("".join(la), "".join(lb), "".join(out)), (a, b)


def _einsum_rule(ctx, fn, args, kwargs):
    spec = args[0]
    primals, ds, found = F._split(ctx, args[1:])
    ans = F._call(ctx, fn, [spec] + primals, kwargs)
    if not found:
        return ans
    if not isinstance(spec, str) or "..." in spec:  # every output element depends on every operand element
        whole = [deps.reduce(d, tuple(range(d.ndim - 1)), ()) for d in F._live(ds)]
        out = F.result(ctx, ans, deps.lined(deps.union(whole, ()), np.shape(ans)))
        if ctx.pairs is not None:
            second_order.after(ctx, fn, args[1:], out)
        return out
    if "->" not in spec:  # implicit output: the letters seen once, in order
        letters = spec.replace(" ", "").replace(",", "")
        spec = spec + "->" + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    return F.result(ctx, ans, _einsum_deps(spec, primals, ds, np.shape(ans), ctx.pairs))


_einsum_rule.pairs_done = True


# ---- stencils ---------------------------------------------------------------------------

def _shift(D, s, axis):
    """Slots of the element ``s`` places further along ``axis`` (empty past the ends)."""
    out = np.zeros_like(D)
    n = D.shape[axis + 1]
    src = [slice(None)] * D.ndim
    dst = [slice(None)] * D.ndim
    if s >= 0:
        src[axis + 1], dst[axis + 1] = slice(s, n), slice(0, n - s)
    else:
        src[axis + 1], dst[axis + 1] = slice(0, n + s), slice(-s, n)
    out[tuple(dst)] = D[tuple(src)]
    return out


def _diff_rule(ctx, fn, args, kwargs):
    """``np.diff``: each element depends on the two it subtracts, ``n`` times over; ``prepend`` and
    ``append`` (which may depend on the input too) are joined to the ends first, as NumPy does."""
    kwargs = dict(kwargs)
    for i, name in ((3, "prepend"), (4, "append")):  # (positional, as NumPy allows)
        if len(args) > i:
            kwargs[name] = args[i]
    args = args[:3]
    primals, ds, found = F._split(ctx, args)
    extra = [kwargs.get(k) for k in ("prepend", "append")]
    extra_split = [F._split(ctx, [e]) if e is not None else None for e in extra]
    plain = dict(kwargs)
    for name, sp in zip(("prepend", "append"), extra_split):
        if sp is not None:
            plain[name] = sp[0][0]
    ans = F._call(ctx, fn, primals, plain)
    if not found and not any(sp is not None and sp[2] for sp in extra_split):
        return ans
    n = kwargs.get("n", args[1] if len(args) > 1 else 1)
    axis = kwargs.get("axis", args[2] if len(args) > 2 else -1)
    x = np.asarray(primals[0])
    nd = x.ndim
    axis = int(axis) % nd
    D = ds[0] if _known(ds[0]) else deps.none(x.shape)
    pieces = [D]
    for end, sp in enumerate(extra_split):
        if sp is None:
            continue
        value, d = np.asarray(sp[0][0]), sp[1][0]
        shape = value.shape if value.ndim == nd else x.shape[:axis] + (1,) + x.shape[axis + 1:]
        piece = deps.lined(d, shape) if _known(d) else deps.none(shape)
        pieces.insert(0 if end == 0 else len(pieces), piece)
    if len(pieces) > 1:
        D = np.concatenate(deps.same_slots(pieces), axis=axis + 1)
    for _ in range(int(n)):
        L = D.shape[axis + 1]
        head = [slice(None)] * D.ndim
        tail = [slice(None)] * D.ndim
        head[axis + 1], tail[axis + 1] = slice(1, L), slice(0, L - 1)
        D = deps.union([D[tuple(head)], D[tuple(tail)]], D[tuple(head)].shape[1:])
    return F.result(ctx, ans, D if D.shape[0] else None)


def _gradient_rule(ctx, fn, args, kwargs):
    primals, ds, found = F._split(ctx, args)
    if any(F._split(ctx, [a])[2] for a in args[1:]):
        raise TypeError("np.gradient: spacings that depend on the input are not supported by sparsity detection")
    ans = F._call(ctx, fn, primals, kwargs)
    if not found or not _known(ds[0]):
        return ans
    D = ds[0]
    nd = D.ndim - 1
    axis = kwargs.get("axis")
    axes = list(range(nd)) if axis is None else [int(a) % nd for a in np.atleast_1d(axis)]
    order = int(kwargs.get("edge_order", 1))
    outs = []
    for ax in axes:
        inner = deps.union([_shift(D, -1, ax), _shift(D, 1, ax)], D.shape[1:])
        width = max(inner.shape[0], (order + 1) * D.shape[0])
        G = np.concatenate([inner, np.zeros((width - inner.shape[0],) + D.shape[1:], D.dtype)])
        moved = np.moveaxis(G, ax + 1, 1)
        src = np.moveaxis(D, ax + 1, 1)
        for end, idx in ((0, slice(0, order + 1)), (-1, slice(-order - 1, None))):
            edge = src[:, idx]
            moved[:, end] = np.concatenate([edge.reshape((-1,) + edge.shape[2:]),
                                            np.zeros((width - edge.shape[0] * edge.shape[1],) + edge.shape[2:],
                                                     D.dtype)])
        outs.append(G)
    if isinstance(ans, (list, tuple)):
        return type(ans)(F.result(ctx, a, g) for a, g in zip(ans, outs))
    return F.result(ctx, ans, outs[0])


def _convolution(ctx, fn, args, kwargs):
    """``np.convolve``/``np.correlate``: one probe per nonzero of the constant operand (a delta
    there moves the other operand's elements to where they land)."""
    primals, ds, found = F._split(ctx, args)
    ans = F._call(ctx, fn, primals, kwargs)
    if not found:
        return ans
    parts = []
    for j in (0, 1):
        if not _known(ds[j]):
            continue
        other = 1 - j
        mask = np.ones(np.shape(primals[other]), bool) if _known(ds[other]) else np.asarray(primals[other]) != 0
        D = ds[j]
        probe = np.arange(1, np.size(primals[j]) + 1, dtype=np.float64)
        for k in np.flatnonzero(mask):
            delta = np.zeros(np.shape(primals[other]))
            delta[k] = 1.0
            pair = (probe, delta) if j == 0 else (delta, probe)
            ids = np.rint(np.real(fn(*pair, *args[2:], **kwargs))).astype(np.int64)
            parts.append(deps.take(D, ids - 1))
    return F.result(ctx, ans, deps.union(parts, np.shape(ans)))


def along_axis(position: int = 2):
    """A transform along one axis (``np.fft.fft``): every element along it, possibly resized."""

    def rule(ctx, fn, args, kwargs):
        primals, ds, found = F._split(ctx, args)
        ans = F._call(ctx, fn, primals, kwargs)
        if not found or not _known(ds[0]):
            return ans
        D = ds[0]
        axis = int(F._axis_arg(args, kwargs, position) if F._axis_arg(args, kwargs, position) is not None else -1)
        axis %= D.ndim - 1
        keep = tuple(1 if i == axis else n for i, n in enumerate(D.shape[1:]))
        R = deps.reduce(D, (axis,), keep)
        return F.result(ctx, ans, deps.lined(R, np.shape(ans)))

    rule.pairs_done = True  # linear transforms
    return rule


def astype():
    def rule(ctx, fn, args, kwargs):
        dtype = np.dtype(args[1] if len(args) > 1 else kwargs.get("dtype"))
        kind = F.elementwise() if dtype.kind in "fc" else F.zero()
        return kind(ctx, fn, args, kwargs)

    return rule


def select_many():
    """``np.select(conditions, choices, default)``: each element depends on every choice there."""

    def rule(ctx, fn, args, kwargs):
        t = ctx._tag
        conds, choices = args[0], args[1]
        default = kwargs.get("default", args[2] if len(args) > 2 else 0)
        plain = [F._primal_tree(t, conds), F._primal_tree(t, choices)] + list(
            [F._primal_tree(t, default)] if len(args) > 2 else [])
        pk = dict(kwargs)
        if "default" in pk:
            pk["default"] = F._primal_tree(t, default)
        ans = F._call(ctx, fn, plain, pk)
        parts = [d for d in (F._split(ctx, list(choices) + [default])[1]) if _known(d)]
        if not parts:
            return ans
        return F.result(ctx, ans, deps.union(parts, np.shape(ans)))

    return rule


def _minmax(ctx, fn, args, kwargs):
    """``max(a, b, ...)`` or ``max(iterable)``: the result depends on every candidate (global);
    locally, on the one chosen."""
    items = list(args[0]) if len(args) == 1 else list(args)
    primals, ds, found = F._split(ctx, items, sequences=False)
    if not found:
        return fn(*args, **kwargs)
    if ctx.local or "key" in kwargs:
        if "key" in kwargs and not ctx.local:
            raise TypeError("%s(..., key=...) of values depending on the input: use local=True" % qualified_name(fn))
        pick = fn(range(len(primals)), key=lambda i: primals[i] if "key" not in kwargs else kwargs["key"](items[i]))
        return items[pick]
    ans = fn(primals)
    return F.result(ctx, ans, deps.union(F._live(ds), np.shape(ans)))


def _ufunc_at(ctx, fn, args, kwargs):
    """``np.add.at(a, indices, b)``: ``a[indices]`` gains ``b``'s dependencies, repeated indices included."""
    ufunc, a, index = args[0], args[1], args[2]
    b = args[3] if len(args) > 3 else None
    primals, ds, found = F._split(ctx, [a, b])
    plain_index = F._primal_tree(ctx._tag, index)
    if F._split(ctx, [index])[2] and not ctx.local:
        raise F.branch_error("the indices of %s.at" % ufunc.__name__)
    if b is None:
        ufunc.at(primals[0], plain_index)
    else:
        ufunc.at(primals[0], plain_index, primals[1])
    a = live(a)
    if isinstance(a, DualArray):  # a buffer holding dependencies, read as the value it stands for
        a = a.value
    if not _known(ds[1]) or type(a) is not np.ndarray:
        return None
    t = ctx._tag
    ids = np.arange(a.size).reshape(a.shape)[plain_index]
    Db = deps.lined(ds[1], np.shape(ids))
    flat_ids = np.asarray(ids).ravel()
    slots = deps.flat(Db)
    Da = store.get(a, t)
    Da = np.array(Da) if Da is not None and Da is not UNDECIDED else deps.none(a.shape)
    order = np.argsort(flat_ids, kind="stable")
    sorted_ids = flat_ids[order]
    first = np.r_[True, sorted_ids[1:] != sorted_ids[:-1]]
    rank = np.arange(len(sorted_ids)) - np.maximum.accumulate(np.where(first, np.arange(len(sorted_ids)), 0))
    reps = int(rank.max(initial=-1)) + 1
    extra = np.zeros((reps * slots.shape[0], a.size), slots.dtype)
    for r in range(reps):
        chosen = order[rank == r]
        extra[r * slots.shape[0]:(r + 1) * slots.shape[0], flat_ids[chosen]] = slots[:, chosen]
    merged = deps.union([deps.flat(Da), extra], (a.size,))
    if ctx.pairs is not None and ufunc not in (np.add, np.subtract):
        ctx.pairs.cross(merged, merged)
    store.write(a, Ellipsis, t, np.ascontiguousarray(merged).reshape((merged.shape[0],) + a.shape))
    return None


def _copyto(ctx, fn, args, kwargs):
    if kwargs.get("where", True) is not True:
        raise TypeError("np.copyto(..., where=mask) is not supported by sparsity detection; use np.where")
    source = args[1]
    if type(source) in (list, tuple):  # the array NumPy makes of it, with its slots
        (values,), (D,), found = F._split(ctx, [source])
        source = F.result(ctx, values, D) if found else values
    found = F._split(ctx, [source])[2]
    assign(args[0], Ellipsis, source if found else np.broadcast_to(source, np.shape(args[0])))


def _interp(ctx, fn, args, kwargs):
    """``np.interp(x, xp, fp)``: each result element depends on ``x`` there, and on all of ``xp``
    and ``fp`` where they depend on the input (which interval is used depends on the values)."""
    primals, ds, found = F._split(ctx, args)
    ans = F._call(ctx, fn, primals, kwargs)
    if not found:
        return ans
    parts = [ds[0]] if _known(ds[0]) else []
    parts += [deps.reduce(d, tuple(range(d.ndim - 1)), ()) for d in ds[1:3] if _known(d)]
    return F.result(ctx, ans, deps.union(parts, np.shape(ans)))


def _composed(composition):
    """The rule of a function computed, under detection, by the NumPy functions it equals
    (``ad.rules.ufunc_methods``): their rules see every step."""

    def rule(ctx, fn, args, kwargs):
        return Context.overdub(ctx, composition, *args, **kwargs)

    rule.pairs_done = True  # (the steps' rules add the pairs)
    return rule


# linear in the values (or pairs handled inside): no pairs after the call
_diff_rule.pairs_done = _gradient_rule.pairs_done = _minmax.pairs_done = _ufunc_at.pairs_done = True
_copyto.pairs_done = True


def table():
    """The entries of this module for ``table.py``: ``[(fn, rule), ...]``."""
    C = _contraction
    out = [(np.matmul, C(_matmul_spec)), (operator.matmul, C(_matmul_spec)), (np.dot, C(_dot_spec)),
           (np.inner, C(_inner_spec)), (np.outer, C(_outer_spec)), (np.vdot, C(_vdot_spec)),
           (np.tensordot, C(_tensordot_spec)), (np.einsum, _einsum_rule), (np.diff, _diff_rule),
           (np.gradient, _gradient_rule), (np.convolve, _convolution), (np.correlate, _convolution),
           (max, _minmax), (min, _minmax), (np.ufunc.at, _ufunc_at), (np.copyto, _copyto),
           (np.ufunc.reduce, _composed(ufunc_methods.reduce)), (np.ufunc.accumulate, _composed(ufunc_methods.accumulate)),
           (np.trapezoid, F.reduction(3, data=(0, 1))), (np.cross, F.dense()), (np.kron, F.dense()),
           (np.linalg.multi_dot, F.dense()), (np.interp, _interp)]
    for name in ("vecdot", "matvec", "vecmat"):
        if hasattr(np, name):
            out.append((getattr(np, name), F.dense()))
    return out
