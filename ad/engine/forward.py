"""The forward-mode AD context, and how rules become its primitives.

A rule is registered for a function ``fn`` in one of three forms:

* ``defjvp(fn, jvp_0, jvp_1, ...)``: one function per argument, ``jvp_i(g, ans, *args)``
  giving the tangent contribution of argument ``i`` (tangent ``g``; ``ans`` is
  ``fn(*args)``). ``ZERO`` (or ``None``, as in autograd's and JAX's rule tables) marks an
  argument whose derivative is zero where it exists (``floor``); ``NOT_DIFFERENTIABLE`` an
  argument ``fn`` is not differentiable in (a tangent arriving there is an error).
* ``defzero(fn)``: the result does not depend continuously on any argument; it is
  returned untagged (``round``, ``math.isnan``).
* ``@frule(fn)``: ``rule(primals, tangents, **kwargs) -> (out, tangent_out)``, the whole
  rule; ``tangents[i]`` is None for arguments that carry no tangent.

Rules run where the context does its native work: nested inside another AD context,
their arithmetic and calls are differentiated by that one (``enclosing_call``).
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import inspect
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import numpy as np

from context.base import Context
from context.resolve import declare_engine_code
from context.tagging import Tagged, TaggingContext, TaggingError, dispatch, enclosing_call, native_primitive
from context.tagging.dispatch import qualified_name
from context.tagging.values import live, primal

from ..rules.tangents import align, full, lead
from . import buffers, handlers, mutation
from .dual_array import DualArray, make_dual

declare_engine_code(__file__)

_F = TypeVar("_F", bound=Callable[..., Any])

ndarray = np.ndarray


class NoRuleError(TaggingError):
    """A value being differentiated reached a function with no derivative rule."""


class ForwardCtx(TaggingContext):
    """Forward-mode AD: values tagged by this context carry their tangent as metadata."""

    tagged_type = staticmethod(make_dual)
    implicit_handlers = handlers.HANDLERS
    native_guard = handlers.GUARD
    untag_for_natives = False  # a function with no rule raises NoRuleError: never a silent zero tangent

    @classmethod
    def primitive(cls, fn: Callable[..., Any], argtypes: tuple[type, ...] | None = None) -> Callable[[Any], Any]:
        """``Context.primitive``; a primitive that does not split its arguments itself (those built by
        ``defjvp`` and ``frule`` do: ``splits``) gets its arguments that are plain buffers holding
        tangents (in lists and tuples too, but for ``out=``) as the ``DualArray`` they stand for,
        unless it writes into its arguments (``writes_arguments``: it handles such buffers)."""
        register = super().primitive(fn, argtypes)

        def decorator(impl):
            if getattr(impl, "splits", False) or getattr(impl, "writes_arguments", False):
                return register(impl)
            register(_buffers_lifted(impl))
            return impl

        return decorator

    @classmethod
    def no_rule_error(cls, fn: Callable[..., Any], ctx: Context) -> NoRuleError:
        name = qualified_name(fn)
        return NoRuleError(
            "%s has no derivative rule, and a value being differentiated reached it; "
            "add one with @ad.frule(%s) (or ad.defjvp(%s, ...)), or make the argument a constant"
            % (name, name, name)
        )


def writes_arguments(impl: Callable[..., Any]) -> Callable[..., Any]:
    """Mark primitive ``impl`` as one that writes into its arguments: it gets them as they are given
    (a plain buffer included) and lifts what it reads itself (see ``ForwardCtx.primitive``)."""
    impl.writes_arguments = True
    return impl


def _buffers_lifted(impl):
    """``impl`` receiving plain buffers that hold tangents as the ``DualArray`` they stand for (see
    ``ForwardCtx.primitive``): a primitive that computes with ``dispatch`` would otherwise compute on
    the buffer's values alone, a derivative silently lost."""

    def lifted(ctx, /, *args, **kwargs):
        if buffers.has_any_shadow() or buffers.REVERSE_VERSIONS:
            args, kwargs = handlers.lifted_arguments(args, kwargs, buffers.has_shadow, buffers.lift)
        return impl(ctx, *args, **kwargs)

    lifted.__qualname__ = lifted.__name__ = getattr(impl, "__name__", "primitive")
    if getattr(impl, "native_primitive", False):
        lifted.native_primitive = True
    return lifted


class _Zero:
    __slots__ = ()

    def __repr__(self):
        return "ZERO"


ZERO = _Zero()


class _NotDifferentiable:
    __slots__ = ()

    def __repr__(self):
        return "NOT_DIFFERENTIABLE"


NOT_DIFFERENTIABLE = _NotDifferentiable()


_signatures = {}

# every ``defjvp`` rule, id(fn) -> (fn, jvps, elementwise, argtypes), and who wants to hear of new
# ones: reverse mode derives its rules of elementwise functions from them (``reverse.py``)
JVP_RULES = {}
ON_DEFJVP = []
JOINT_RULES = {}  # id(fn) -> (fn, joint): the rules for all arguments at once (``defjvp(..., joint=)``)


def _carries(ctx, x):
    return (isinstance(x, Tagged) and x.tag is ctx._tag) or (type(x) is np.ndarray and buffers.has_shadow(x))


def _positional(fn, ctx, args, kwargs):
    """``(args, kwargs)`` with keyword arguments that carry a tangent moved to their positions."""
    if not kwargs or not any(_carries(ctx, v) for v in kwargs.values()):
        return args, kwargs
    sig = _signatures.get(id(fn))
    if sig is None:
        try:
            sig = _signatures[id(fn)] = (fn, inspect.signature(fn))
        except (TypeError, ValueError):
            sig = _signatures[id(fn)] = (fn, None)
    params = list(sig[1].parameters.values()) if sig[1] is not None else []
    args, kwargs = list(args), dict(kwargs)
    for name, value in list(kwargs.items()):
        if not _carries(ctx, value):
            continue
        where = [i for i, p in enumerate(params) if p.name == name and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if not where:
            raise NoRuleError(
                "%s got the keyword argument %s carrying a derivative, which its rule cannot take by "
                "name; pass it positionally" % (qualified_name(fn), name)
            )
        i = where[0]
        while len(args) < i:  # fill the positions before it with their defaults
            p = params[len(args)]
            if p.default is p.empty and p.name not in kwargs:
                raise NoRuleError(
                    "%s: pass the arguments before %s positionally, as %s carries a derivative"
                    % (qualified_name(fn), name, name)
                )
            args.append(kwargs.pop(p.name) if p.name in kwargs else p.default)
        if len(args) == i:
            args.append(kwargs.pop(name))
    return tuple(args), kwargs


def _split(ctx, args):
    """Primals and tangents of ``args`` for ``ctx``'s tag, and whether any carries one."""
    t = ctx._tag
    primals = []
    tangents = []
    found = False
    shadows = bool(_SHADOWS) or bool(_REVERSE_VERSIONS)  # (most runs: no buffer to look up)
    for a in args:
        if shadows:
            if type(a) is np.ndarray and buffers.has_shadow(a):
                a = buffers.lift(a)
            elif type(a) is np.flatiter and buffers.has_shadow(a.base):  # np.sum(buf.flat)
                a = buffers.lift(a.base).reshape(-1)
        if isinstance(a, Tagged):
            if a.tag is t:
                value, meta = a.value, a.meta
                if shadows:  # an enclosing derivative's values written into them (shadow memory, versions)
                    value, meta = _held(value, t), _held(meta, t)
                primals.append(value)
                tangents.append(meta)
                found = True
                continue
            a = live(a)
        primals.append(a)
        tangents.append(None)
    return primals, tangents, found


def _held(a, t):
    """``a``, or (a plain array of a ``DualArray`` of tag ``t`` that an enclosing derivative's values
    were written into: its shadow memory) the ``DualArray`` of that derivative it stands for."""
    return buffers.lift(a, below=t) if type(a) is np.ndarray else a


def _jvp_primitive(fn, jvps, elementwise, joint=None):
    last = len(jvps) - 1

    @native_primitive
    def primitive(ctx, /, *args, **kwargs):
        if kwargs:
            if kwargs.get("where", True) is not True:
                return _with_where(primitive, fn, ctx, args, kwargs)
            if "out" in kwargs:
                return _into_out(primitive, fn, ctx, args, kwargs)
            args, kwargs = _positional(fn, ctx, args, kwargs)
        primals, tangents, found = _split(ctx, args)
        if not found and _has_sequence(args):  # np.exp([x, 2 * x]): the list is an array being differentiated
            args, found = _lists_as_arrays(ctx, args)
            if found:
                return primitive(ctx, *args, **kwargs)
        t = ctx._tag
        runs = t.runs  # (``t.activation``, without a property's frame: every operation comes here)
        alone = not runs or runs[-1].parent is None  # no enclosing context: rule bodies are plain calls
        ans = fn(*primals, **kwargs) if alone else enclosing_call(t, fn, tuple(primals), kwargs)
        if not found:
            return ans
        out = None
        n = None
        lined = []
        if joint is not None:
            for g in tangents:  # (``_all_carry``, without its frame)
                if g is None:
                    break
            else:
                n, out, lined = _joint_term(t, joint, alone, tangents, ans, primals, kwargs, elementwise)
        for i, g in enumerate(tangents if out is None else ()):
            if g is None:
                continue
            jvp = jvps[i if i <= last else last]
            if jvp is ZERO:
                continue
            if jvp is NOT_DIFFERENTIABLE:
                raise NoRuleError(
                    "%s is not differentiable in argument %d, which carries a derivative; "
                    "make it a constant" % (qualified_name(fn), i + 1)
                )
            if type(g) is not float or not isinstance(ans, float):  # arrays: line up, expand
                x = primals[i]
                if type(g) is ndarray and type(x) is ndarray and g.ndim == x.ndim:
                    n = 0  # (``_lined_up``'s commonest answer, without its frame)
                else:
                    n, g = _lined_up(g, x, ans, elementwise)
                lined.append(g)
            try:
                term = jvp(g, ans, *primals, **kwargs) if alone else enclosing_call(t, jvp, (g, ans, *primals), kwargs)
            except (ZeroDivisionError, ValueError, OverflowError):
                term = _ieee_term(jvp, g, ans, primals, kwargs)
            out = term if out is None else _sum(t, out, term, tangents)
        if out is None:
            return ans
        if elementwise and lined:
            if not (type(out) is ndarray and out.dtype is _FLOAT64 and out.ndim == 1
                    and (_land(_isf(out)) if out.size < _LONG else all_finite(out))):  # (without its frame)
                out = _zero_where_untouched(t, out, lined)
        elif type(out) is np.ndarray:
            out = _untouched_directions_zero(t, out, ans, primals, tangents)
        if n is not None:
            if n == 0 and type(out) is ndarray and type(ans) is ndarray and out.shape == ans.shape \
                    and out.flags.writeable:  # (``full``'s commonest case, without its frame)
                for g in tangents:
                    if out is g:  # an argument's tangent: the result's must be memory of its own
                        out = full(out, ans, n, tangents)
                        break
            else:
                out = full(out, ans, n, tangents)
        if type(ans) is ndarray and t.used:  # (``make_dual``'s commonest case, without its frame)
            d = _new(DualArray)
            d.value = ans
            d.tag = t
            d.meta = out
            return d
        return make_dual(ans, t, out)

    primitive.__qualname__ = primitive.__name__ = "jvp rule of %s" % qualified_name(fn)
    primitive.splits = True  # (_split lifts buffers holding tangents)
    return primitive


def _joint_term(t, joint, alone, tangents, ans, primals, kwargs, elementwise):
    """``(n, term, lined)`` from a rule for all arguments at once (``defjvp(..., joint=)``), or
    ``(None, None, [])`` where the per-argument rules must decide (a Python number's arithmetic
    raised at a singular point: they give the IEEE result). A tangent and primal passed twice
    (``x * x``) stay one object each, so the rule can see it."""
    n = None
    lined = []
    for i, g in enumerate(tangents):
        if i and g is tangents[i - 1] and primals[i] is primals[i - 1]:
            lined.append(lined[-1])
            continue
        if type(g) is not float or not isinstance(ans, float):
            n, g = _lined_up(g, primals[i], ans, elementwise)
        lined.append(g)
    try:
        term = joint(*lined, ans, *primals, **kwargs) if alone else enclosing_call(t, joint, (*lined, ans, *primals), kwargs)
    except (ZeroDivisionError, ValueError, OverflowError):
        return None, None, []
    return n, term, [g for g in lined if type(g) is not float]


_PLAIN_NUMBERS = (float, int)


def _ieee_term(jvp, g, ans, primals, kwargs):
    """A rule's term for plain numbers whose Python arithmetic raised (``1 / 0.0`` for the
    derivative of ``math.sqrt`` at 0): the same rule in IEEE arithmetic, as for arrays, giving
    ``inf`` or ``nan``. Anything else (a nested derivative's values, a raise that IEEE
    arithmetic does not explain) raises as before."""
    values = (g, ans, *primals)
    if not all(type(v) in _PLAIN_NUMBERS or v is None for v in values):
        raise
    with np.errstate(all="ignore"):
        term = jvp(*(v if v is None else np.float64(v) for v in values), **kwargs)
    return float(term)


_FLOAT64 = np.dtype(np.float64)
_isf = np.isfinite
_land = np.logical_and.reduce
_add_reduce = np.add.reduce
_LONG = 1 << 15  # elements from which ``all_finite`` sums (see there)
_new = object.__new__
_SHADOWS = buffers.SHADOWS  # (the dicts themselves: ``has_any_shadow`` without a frame)
_REVERSE_VERSIONS = buffers.REVERSE_VERSIONS


def all_finite(p: np.ndarray) -> bool:
    """Whether array ``p`` holds no nan or infinity.

    Not BLAS's ``dot`` of ``p`` with itself, which warns when finite elements overflow
    (``overflow encountered in dot``, a warning the user's code did not cause), and whose
    threads, in a multithreaded BLAS, wake for a long vector (some 2 ms a check at 100,000
    elements on two cores). A long array is summed, one pass with no temporary array (a nan
    or an infinity makes the sum one; a sum that overflows is checked exactly), a short one
    tested element by element, which costs less than entering ``np.errstate``.
    """
    if p.size >= _LONG:
        with np.errstate(over="ignore", invalid="ignore"):
            if _isf(_add_reduce(p, axis=None)):  # (np.isfinite: a complex sum's imaginary part counts)
                return True
    return bool(_land(_isf(p), axis=None))


def _zero_where_untouched(t, out, lined):
    """``out`` with 0 wherever every input tangent is 0, if it holds a nan or an infinity there.

    A direction that does not touch an element gives it no tangent, whatever the
    derivative there: ``0 * inf`` must not make a ``nan`` (the gradient of ``sum(v**2)`` at
    ``v = [nan, inf, 1.0]`` is ``[nan, inf, 2.0]``, not all ``nan``). Checked only when the
    tangent is not finite, so finite tangents pay one pass over the array.
    """
    p = out if type(out) is np.ndarray else primal(out)
    if not isinstance(p, np.ndarray) or p.dtype.kind not in "fc" or all_finite(p):
        return out
    untouched = None
    for g in lined:
        zero = primal(g) == 0
        untouched = zero if untouched is None else np.logical_and(untouched, zero)
    untouched = np.broadcast_to(untouched, p.shape)
    if not untouched.any():
        return out
    return enclosing_call(t, np.where, (untouched, np.zeros((), dtype=p.dtype), out))


def _untouched_directions_zero(t, out, ans, primals, tangents):
    """Tangent ``out`` of ``ans`` with 0 in each chunk direction that no input tangent touches, if it
    holds a nan or an infinity (``_zero_where_untouched`` for rules that are not elementwise: a
    direction that changes none of the inputs changes nothing, whatever the derivative there, as
    the gradient of ``np.std`` of a constant array along the inputs it does not depend on)."""
    n = lead(out, ans)
    if not n or out.dtype.kind not in "fc" or all_finite(out):
        return out  # (one direction: it moves the inputs)
    chunk = out.shape[:n]
    touched = np.zeros(chunk, dtype=bool)
    pairs = list(zip(tangents, primals))
    for g, x in pairs:
        if g is None:
            continue
        if type(g) in (list, tuple):  # a sequence argument's items (math.fsum's): each touches its directions
            if type(x) not in (list, tuple) or len(x) != len(g):
                return out
            pairs.extend(zip(g, x))
            continue
        pg = primal(g)
        if lead(pg, x) != n or np.shape(pg)[:n] != chunk:
            return out  # a tangent shared by the directions: no direction is untouched by it alone
        touched |= np.any(pg != 0, axis=tuple(range(n, np.ndim(pg))))
    if touched.all():
        return out
    return enclosing_call(t, np.where, (np.reshape(touched, chunk + (1,) * (out.ndim - n)), out, 0.0))


def _lined_up(g, x, ans, elementwise):
    if type(g) is ndarray:  # the common case, plain arrays and numbers: no tag layers to look through
        tx = type(x)
        if tx is ndarray or tx is float:
            n = g.ndim - (x.ndim if tx is ndarray else 0)
            if not n or not elementwise:
                return n, g
    n = lead(g, x)
    return n, (align(g, x, ans) if elementwise else g)


def _single_out(fn, target):
    """The array of ``out=target`` (a one-element tuple is its element), or None."""
    if isinstance(target, tuple):
        if len(target) != 1:
            raise TypeError(
                "%s with several out= arrays is not supported while differentiating; "
                "assign the results instead" % qualified_name(fn)
            )
        target = target[0]
    return target


def _with_where(primitive, fn, ctx, args, kwargs):
    """``fn(*args, where=mask, out=target)``: computed everywhere, then kept where ``mask`` holds.

    Elsewhere ``target`` keeps its elements and their tangents (a buffer's come from its
    shadow memory); without ``out=`` NumPy leaves them uninitialized, and here they are 0
    with a zero tangent. The elements left out are computed too, with floating-point
    warnings silenced: the safe-division idiom ``np.divide(a, b, out=..., where=b != 0)``
    must not warn about the divisions it avoids.
    """
    kwargs = dict(kwargs)
    mask = kwargs.pop("where")
    target = _single_out(fn, kwargs.pop("out", None))
    with np.errstate(all="ignore"):
        full = primitive(ctx, *args, **kwargs)
    if target is None:
        return dispatch(np.where, (mask, full, np.zeros((), dtype=primal(full).dtype)))
    current = buffers.lift(target) if type(live(target)) is np.ndarray else target
    mutation.assign(target, Ellipsis, dispatch(np.where, (mask, full, current)))
    return target


def _into_out(primitive, fn, ctx, args, kwargs):
    """``fn(*args, out=target)``: the result computed with its tangent, then written into ``target``."""
    kwargs = dict(kwargs)
    target = _single_out(fn, kwargs.pop("out"))
    if target is None:
        return primitive(ctx, *args, **kwargs)
    mutation.assign(target, Ellipsis, primitive(ctx, *args, **kwargs))
    return target


def _plus(a, b):
    return a + b


def _sum(t, out, term, tangents):
    """``out + term``: in place when ``out`` is a temporary array of the rule's own."""
    if (
        type(out) is np.ndarray and type(term) is np.ndarray and out.base is None
        and out.flags.writeable and (out.shape == term.shape or out.shape == np.broadcast_shapes(out.shape, term.shape))
        and (out.dtype == term.dtype or out.dtype == np.result_type(out, term)) and not any(out is g for g in tangents)
    ):
        return np.add(out, term, out=out)
    return enclosing_call(t, _plus, (out, term))


def _frule_primitive(fn, rule, sequences):
    numpy_function = str(getattr(fn, "__module__", "")).startswith("numpy")
    @native_primitive
    def primitive(ctx, /, *args, **kwargs):
        if "out" in kwargs:
            return _into_out(primitive, fn, ctx, args, kwargs)
        args, kwargs = _positional(fn, ctx, args, kwargs)
        if numpy_function and _has_sequence(args):
            # lists holding values being differentiated become arrays (np.polyval([p, 2.0], x)), where
            # NumPy would make object arrays of them; the sequence arguments' parts stay parts
            args = _lists_as_arrays(ctx, args, sequences)[0]
        given = args
        if sequences:
            args, given = _sequences_listed(args, sequences)
        primals, tangents, found = _split(ctx, args)
        for i in sequences:
            if i < len(args):
                seq = args[i]
                if type(seq) is np.ndarray and buffers.has_shadow(seq):  # its items: the values it stands for
                    seq = buffers.lift(seq)
                if numpy_function and type(seq) in (list, tuple):
                    seq = _arrays_of_nested(ctx, seq)
                primals[i], tangents[i], inner = _split(ctx, seq)
                found = found or inner
        t = ctx._tag
        if not found:
            return enclosing_call(t, fn, tuple(given), kwargs)
        out, tangent = enclosing_call(t, rule, (tuple(primals), tuple(tangents)), kwargs)
        if type(tangent) is np.ndarray:  # (tuples of results: each rule sees to its own)
            tangent = _untouched_directions_zero(t, tangent, out, primals, tangents)
        return wrap(t, out, tangent)

    primitive.__qualname__ = primitive.__name__ = "frule of %s" % qualified_name(fn)
    primitive.splits = True  # (_split lifts buffers holding tangents)
    return primitive


def _sequences_listed(args, sequences):
    """``(args, given)``: ``args`` with the iterators at positions ``sequences`` read into lists, for
    the rule to read their items, and ``given`` with fresh iterators over those lists, for the
    function itself when no item carries a tangent (``math.fsum(v for v in data)``: the generator,
    read by the split, was empty for that call; an iterator still, it is refused where it was)."""
    listed = given = None
    for i in sequences:
        if i < len(args):
            seq = args[i]
            if type(seq) not in (list, tuple) and not isinstance(seq, (np.ndarray, Tagged)):
                if listed is None:
                    listed, given = list(args), list(args)
                listed[i] = list(seq)
                given[i] = iter(listed[i])
    return (args, args) if listed is None else (tuple(listed), tuple(given))


def _has_sequence(args):
    for a in args:
        if type(a) is list or type(a) is tuple:
            return True
    return False


def _arrays_of_nested(ctx, seq):
    """The items of ``seq`` with each list or tuple holding values of ``ctx`` made an array by the
    rule of ``np.array`` (``np.concatenate([x, [x[0], 1.0]])``: the nested list is one part, and
    its values' tangents must not be left behind)."""
    t = ctx._tag
    out = list(seq)
    for j, e in enumerate(out):
        if type(e) in (list, tuple) and any(isinstance(v, Tagged) and v.tag is t for v in _flat(e)):
            out[j] = Context.overdub(ctx, np.array, e)
    return out


def _lists_as_arrays(ctx, args, skip=()):
    """``args`` with each list or tuple holding values of ``ctx`` made an array by ``ctx``'s rule
    for ``np.array`` (``np.std([x, y])``: NumPy would make an object array of them), and
    whether there was one. Positions in ``skip`` are left as they are."""
    t = ctx._tag
    found = False
    out = []
    for i, a in enumerate(args):
        if i not in skip and type(a) in (list, tuple) and any(isinstance(e, Tagged) and e.tag is t for e in _flat(a)):
            a = Context.overdub(ctx, np.array, a)
            found = True
        out.append(a)
    return tuple(out), found


def _flat(seq, depth=2):
    for e in seq:
        if depth and type(e) in (list, tuple):
            yield from _flat(e, depth - 1)
        else:
            yield e


def wrap(t, out, tangent):
    """``out`` tagged with ``tangent`` (element by element for tuples); None means no tangent."""
    if tangent is None:
        return out
    if isinstance(out, (tuple, list)) and isinstance(tangent, (tuple, list)):
        items = [wrap(t, o, d) for o, d in zip(out, tangent)]
        if isinstance(out, list):
            return items
        return type(out)(*items) if hasattr(out, "_fields") else tuple(items)
    return make_dual(out, t, tangent)


def defjvp(fn: _F, *jvps: Any, argtypes: tuple[type, ...] | None = None, elementwise: bool = True,
           joint: Callable[..., Any] | None = None) -> _F:
    """Register per-argument tangent rules for ``fn`` (see the module docstring).

    ``elementwise`` (the default) says ``fn`` broadcasts its arguments as ufuncs do: a
    chunked tangent of a lower-rank argument gets unit axes so that it lines up with the
    result. Give ``elementwise=False`` for a rule that handles shapes itself.
    ``joint(g_0, g_1, ..., ans, *args)``, optional, gives the whole tangent when every argument
    carries one, in fewer array operations than the per-argument terms and their sum (the
    quotient rule ``(g_x - g_y * ans) / y``); it must equal that sum.
    """
    if not jvps:
        raise TypeError(
            "defjvp(%s): give one rule per argument (a function, ZERO, None or NOT_DIFFERENTIABLE)" % qualified_name(fn)
        )
    for j in jvps:
        if not (j is None or j is ZERO or j is NOT_DIFFERENTIABLE or callable(j)):
            raise TypeError(
                "defjvp(%s): each rule must be a function, ZERO, None or NOT_DIFFERENTIABLE, got %r"
                % (qualified_name(fn), j)
            )
    jvps = tuple(ZERO if j is None else j for j in jvps)
    if joint is not None and (not callable(joint) or any(j is ZERO or j is NOT_DIFFERENTIABLE for j in jvps)):
        raise TypeError("defjvp(%s): joint= must be a function, for rules where every argument has a derivative"
                        % qualified_name(fn))
    ForwardCtx.primitive(fn, argtypes)(_jvp_primitive(fn, jvps, elementwise, joint))
    if joint is not None:
        JOINT_RULES[id(fn)] = (fn, joint)
    else:
        JOINT_RULES.pop(id(fn), None)
    JVP_RULES[id(fn)] = (fn, jvps, elementwise, argtypes)
    for hook in ON_DEFJVP:
        hook(fn, jvps, elementwise, argtypes)
    return fn


def defzero(*fns: Callable[..., Any]) -> tuple[Callable[..., Any], ...]:
    """Register ``fn``s whose results carry no tangent: zero derivative wherever one exists."""
    for fn in fns:
        defjvp(fn, ZERO)
    return fns


def frule(fn: Callable[..., Any], argtypes: tuple[type, ...] | None = None,
          sequences: Iterable[int] = ()) -> Callable[[_F], _F]:
    """Decorator: ``rule(primals, tangents, **kwargs) -> (out, tangent_out)`` differentiates ``fn``.

    ``tangents[i]`` is None for an argument that carries no tangent; return a None
    tangent for a result with zero derivative. Tuples of results take tuples of tangents.
    Arguments at the positions in ``sequences`` are iterables of values: the rule gets
    lists of their primals and tangents. ``argtypes`` limits the rule as for primitives.
    """

    def decorator(rule: _F) -> _F:
        if not callable(rule):
            raise TypeError("frule(%s): the rule must be callable" % qualified_name(fn))
        ForwardCtx.primitive(fn, argtypes)(_frule_primitive(fn, rule, tuple(sequences)))
        return rule

    return decorator
