"""The sparsity rule of ``np.pad``, every mode.

Modes that only move elements (``constant``, ``edge``, ``reflect``, ``symmetric``, ``wrap``,
``empty``) follow from probes, as ``np.concatenate`` does. The modes that compute the padding
(``maximum``, ``minimum``, ``mean``, ``median``: a statistic of the ``stat_length`` elements
nearest each edge; ``linear_ramp``: a ramp from ``end_values`` to the edge element) are
replayed on the slots the way NumPy pads: one axis after the other, each axis seeing the
padding the axes before it added (so the corners depend on what NumPy's corners depend on).
A statistic depends on every element it reads; a ramp's elements on the edge element, but
its outermost one, which is the end value itself. Fill values (``constant_values``,
``end_values``) may depend on the input too: they reach the positions they fill.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np

from context.resolve import declare_engine_code

from ..engine.forward import NoRuleError
from . import deps
from . import families as F
from .tracer import UNDECIDED

declare_engine_code(__file__)

_MOVES = {"constant", "edge", "reflect", "symmetric", "wrap", "empty"}
_STATISTICS = {"maximum", "minimum", "mean", "median"}
_OPTIONS = ("mode", "stat_length", "constant_values", "end_values", "reflect_type")


def _known(d):
    return d is not None and d is not UNDECIDED and d.shape[0] > 0


def rule():
    move = F.layout((0,), zero_kwargs=("constant_values",))

    def pad(ctx, fn, args, kwargs):
        if len(args) > 3:
            raise TypeError("np.pad takes at most 3 positional arguments")
        options = dict(kwargs)
        if len(args) > 2:
            options["mode"] = args[2]
        mode = options.get("mode", "constant")
        if not isinstance(mode, str) or mode not in _MOVES | _STATISTICS | {"linear_ramp"}:
            raise NoRuleError("np.pad(mode=%r) has no sparsity rule; pad with a mode NumPy names (a function "
                              "as the mode is not followed)" % (mode,))
        for key in ("stat_length", "reflect_type"):
            if F._split(ctx, [options.get(key)])[2]:
                raise NoRuleError("np.pad: %s depends on the input; it must be a constant" % key)
        (array, width), (D, dw), _ = F._split(ctx, [args[0], args[1] if len(args) > 1 else options.pop("pad_width")])
        if dw is not None:
            raise NoRuleError("np.pad: pad_width depends on the input; it must be a constant")
        fill = "constant_values" if mode == "constant" else "end_values" if mode == "linear_ramp" else None
        (fill_value,), (fill_d,), _ = F._split(ctx, [options.get(fill, 0)]) if fill else ((None,), (None,), None)
        plain = {k: v for k, v in options.items() if k not in ("mode", fill)}
        if fill and fill in options:
            plain[fill] = fill_value
        ans = F._call(ctx, fn, [array, width], dict(plain, mode=mode))
        if not _known(D) and not _known(fill_d):
            return ans
        a = np.asarray(array)
        widths = np.broadcast_to(np.asarray(width, dtype=np.int64), (a.ndim, 2)) if a.ndim else np.zeros((0, 2), int)
        if mode in _MOVES:
            # ("empty" leaves the padding unset: it depends on nothing, as a constant's does)
            parts = []
            if _known(D):
                moved = move(ctx, fn, args[:2], dict(plain, mode="constant" if mode == "empty" else mode))
                parts.append(F.deps_of(moved, ctx._tag))
            if _known(fill_d):
                parts.append(_fill_slots(fill_d, a.shape, widths, mode))
            return F.result(ctx, ans, deps.union([p for p in parts if _known(p)], ans.shape))
        D = deps.lined(D, a.shape) if _known(D) else deps.none(a.shape)
        if mode == "linear_ramp":
            out = _ramps(D, a.shape, widths)
        else:
            lengths = options.get("stat_length")
            out = _statistics(D, a.shape, widths, None if lengths is None else
                              np.broadcast_to(np.asarray(lengths, dtype=np.int64), (a.ndim, 2)))
        parts = [out]
        if _known(fill_d):
            parts.append(_fill_slots(fill_d, a.shape, widths, mode))
        return F.result(ctx, ans, deps.union(parts, ans.shape))

    return pad


def _padded(D, shape, widths):
    """``D`` placed in the middle of a padded shape (the padding empty), and the middle's slices."""
    out_shape = tuple(int(n + b + e) for n, (b, e) in zip(shape, widths))
    middle = tuple(slice(int(b), int(b) + n) for n, (b, _) in zip(shape, widths))
    out = np.zeros((D.shape[0],) + out_shape, dtype=D.dtype)
    out[(slice(None),) + middle] = D
    return out, middle


def _statistics(D, shape, widths, lengths):
    """Slots of ``np.pad(mode=<a statistic>)``: axis by axis, as NumPy pads."""
    out, middle = _padded(D, shape, widths)
    for axis, (before, after) in enumerate(widths):
        n = shape[axis]
        left, right = (n, n) if lengths is None else (min(int(lengths[axis][0]), n), min(int(lengths[axis][1]), n))
        roi = (slice(None),) * (axis + 2) + middle[axis + 1:]  # (the padded extent of the axes before)
        R = out[roi]
        at = lambda s: (slice(None),) * (axis + 1) + (s,)  # noqa: E731
        fills = []
        if before:
            fills.append((slice(0, before), deps.reduce(R[at(slice(before, before + left))], (axis,),
                                                          _kept(R.shape[1:], axis))))
        if after:
            end = R.shape[axis + 1] - after
            fills.append((slice(end, None), deps.reduce(R[at(slice(end - right, end))], (axis,),
                                                          _kept(R.shape[1:], axis))))
        for where, stat in fills:
            if stat.shape[0] > out.shape[0]:
                out = np.concatenate([out, np.zeros((stat.shape[0] - out.shape[0],) + out.shape[1:], out.dtype)])
                R = out[roi]
            target = R[at(where)]
            lined = np.broadcast_to(stat, (stat.shape[0],) + target.shape[1:])
            target[:stat.shape[0]] = lined
            target[stat.shape[0]:] = 0
    return out


def _kept(shape, axis):
    return tuple(1 if i == axis else n for i, n in enumerate(shape))


def _ramps(D, shape, widths):
    """Slots of ``np.pad(mode="linear_ramp")``: each padded element depends on the edge element of
    its line, but the outermost, which is the end value."""
    out, middle = _padded(D, shape, widths)
    for axis, (before, after) in enumerate(widths):
        roi = (slice(None),) * (axis + 2) + middle[axis + 1:]
        R = out[roi]
        at = lambda s: (slice(None),) * (axis + 1) + (s,)  # noqa: E731
        length = R.shape[axis + 1]
        if before > 1:
            R[at(slice(1, before))] = R[at(slice(before, before + 1))]
        if after > 1:
            R[at(slice(length - after, length - 1))] = R[at(slice(length - after - 1, length - after))]
    return out


def _fill_slots(fill_d, shape, widths, mode):
    """The slots a fill value (``constant_values``, ``end_values``) gives the positions it reaches:
    found by padding zeros with ones there."""
    if not _known(fill_d):
        return deps.none(tuple(int(n + b + e) for n, (b, e) in zip(shape, widths)))
    reached = np.pad(np.zeros(shape), widths, mode=mode,
                     **{"constant_values" if mode == "constant" else "end_values": 1.0}) != 0
    whole = deps.reduce(fill_d, tuple(range(fill_d.ndim - 1)), ())  # (every value: over-approximated)
    lined = deps.lined(whole, reached.shape)
    return np.where(reached, lined, np.zeros((), lined.dtype))
