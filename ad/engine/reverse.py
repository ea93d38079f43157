"""The reverse-mode AD context: values tagged by it carry a tape node; its primitives record each
operation with the pullbacks (vector-Jacobian products) of its arguments.

A ``Node`` holds ``parents``: pairs ``(node, pullback)``, where ``pullback(u)`` is the cotangent
the operation sends to that argument when its result's cotangent is ``u``. The backward pass
(``ad.tape``) walks the nodes from the result back to the inputs. Rules come in two forms:

* derived: every function with an elementwise ``defjvp`` rule (ufuncs, ``math``, operators)
  gets its pullback from the forward rule itself, which is a product by a factor
  (``g * cos(x)``): applied to the result's cotangent and summed over the broadcast axes,
  it is the pullback (``rules/pullbacks.py``). Registered when the forward rule is;
* ``defvjp(fn, vjp_0, vjp_1, ...)``: ``vjp_i(u, ans, *args, **kwargs)`` is the cotangent of
  argument ``i``, for the functions whose forward rule is a whole ``frule`` (reductions,
  shapes, products, indexing: ``rules/vjps.py``).

A value being differentiated that reaches a function with neither raises ``NoRuleError``
naming it; writes into arrays being differentiated raise too (not yet recorded).

Complex values inside the run (real inputs, real results) follow JAX's convention: the pairing
of a cotangent ``u`` with a tangent ``t`` is ``Re(sum(u * t))``, so the pullback of a holomorphic
function is the forward rule's factor times ``u`` (no conjugate), as for real values, and a
cotangent reaching a real value keeps its real part (``engine/backward.py``). Only functions whose
reverse rules are checked on complex values (``complex_checked``, listed in
``rules/vjps_complex.py``) accept them; any other raises ``ComplexValuesError`` naming the function.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from collections.abc import Callable
from typing import Any

import numpy as np

from context.base import Context
from context.resolve import declare_engine_code
from context.tagging import Tagged, TaggingContext, dispatch, enclosing_call, native_primitive
from context.state import call_under
from context.tagging.dispatch import qualified_name
from context.tagging.values import live, primal

from . import reverse_buffers, reverse_writes
from .buffers import REVERSE_VERSIONS
from .dual_array import is_array
from .forward import JVP_RULES, NOT_DIFFERENTIABLE, ON_DEFJVP, ZERO, NoRuleError
from .handlers import lifted_arguments
from .traced import (  # noqa: F401  (defined there)
    COMPLEX_NODES, ComplexValuesError, Node, Traced, TracedArray, is_complex, make_traced,
)

declare_engine_code(__file__)

ndarray = np.ndarray


class ReverseCtx(TaggingContext):
    """Reverse-mode AD: values tagged by this context carry their tape node as metadata."""

    tagged_type = staticmethod(make_traced)
    untag_for_natives = False  # a function with no rule raises NoRuleError: never a silent zero
    implicit_handlers = reverse_writes.handlers()
    native_guard = reverse_writes.GUARD
    records_writes = True  # writes into arrays the tape saved are seen (reverse_writes)

    @classmethod
    def primitive(cls, fn: Callable[..., Any], argtypes: tuple[type, ...] | None = None) -> Callable[[Any], Any]:
        """``Context.primitive``; a primitive that does not check complex values itself (one built by
        ``vjp_primitive`` does) is wrapped so that a complex value it takes or makes is refused unless
        ``fn`` is ``complex_checked``."""
        register = super().primitive(fn, argtypes)

        def decorator(impl):
            if getattr(impl, "checks_complex", False):
                return register(impl)
            register(_complex_guarded(fn, impl))
            return impl

        return decorator

    def read_version(self, a: np.ndarray, value: Any) -> Any:
        """Buffer ``a``, which holds versions of this run, as a ``TracedArray`` of the version's
        elements whose value is ``value`` (``a`` with the layers of older derivatives): how a forward
        derivative nested in this run reads it (``buffers.lift``)."""
        return reverse_buffers.lift_as(a, self._tag, value)

    def write_version(self, a: np.ndarray, key: Any, value: Any) -> None:
        """``a[key] = value`` for a forward derivative nested in this run, which has written its own
        layers (tangents into shadow memory, ``buffers.write``): this run records the rest, under it."""
        call_under(self._tag.activation, reverse_writes.assign, (a, key, value), {"newer_done": True})

    @classmethod
    def no_rule_error(cls, fn: Callable[..., Any], ctx: Context) -> NoRuleError:
        name = qualified_name(fn)
        return NoRuleError(
            "%s has no reverse-mode rule, and a value being differentiated reached it; add one with "
            "ad.defvjp(%s, ...), differentiate in forward mode (ad.ForwardMode()), or make the argument "
            "a constant" % (name, name)
        )


COMPLEX_CHECKED: dict = {}  # id(fn) -> fn: the functions whose reverse rules hold for complex values


def complex_checked(*fns: Callable[..., Any]) -> None:
    """Let complex values through the reverse rules of ``fns`` (each checked on complex values by
    the dot-product test against forward mode)."""
    COMPLEX_CHECKED.update((id(fn), fn) for fn in fns)


def _refuse_complex(fn):
    name = qualified_name(fn)
    return ComplexValuesError(
        "reverse mode: %s got or made a complex value, and its reverse rule is not checked on complex "
        "values; use ad.ForwardMode() for this function" % name
    )


def _complex_made(ctx, out):
    """Whether ``out`` (a result, or a tuple or list of them) holds a value of ``ctx``'s run that is
    complex or was made from a complex one."""
    if isinstance(out, (tuple, list)) and not isinstance(out, Tagged):  # named tuples too (eigh's result)
        return any(_complex_made(ctx, o) for o in out)
    if isinstance(out, Tagged) and out.tag is ctx._tag and isinstance(out.meta, Node):
        node = out.meta
        return not node.real or any(not parent.real for parent, _ in node.parents)
    return False


def _complex_guarded(fn, impl):
    """``impl`` refusing complex values for ``fn`` (see ``ReverseCtx.primitive``): checked on what it
    returns, once a complex value was recorded in the process. Its arguments that are plain buffers
    holding values being differentiated (also in lists and tuples, and but for ``out=``) reach it as
    the ``TracedArray`` they stand for, unless it writes into its arguments itself
    (``writes_arguments``: it handles such buffers)."""
    native = getattr(impl, "native_primitive", False)
    lifts = not getattr(impl, "writes_arguments", False)

    def guarded(ctx, /, *args, **kwargs):
        if REVERSE_VERSIONS and lifts:
            args, kwargs = lifted_arguments(args, kwargs, reverse_buffers.has_version, reverse_buffers.lift)
        out = impl(ctx, *args, **kwargs)
        if COMPLEX_NODES[0] and id(fn) not in COMPLEX_CHECKED and _complex_made(ctx, out):
            raise _refuse_complex(fn)
        return out

    guarded.__qualname__ = guarded.__name__ = getattr(impl, "__name__", "primitive")
    if native:
        guarded.native_primitive = True
    return guarded


def split(ctx, args):
    """Primals and nodes of ``args`` for ``ctx``'s tag, and whether any carries one."""
    t = ctx._tag
    primals = []
    nodes = []
    found = False
    versions = REVERSE_VERSIONS
    for a in args:
        if versions:
            if type(a) is ndarray and reverse_buffers.has_version(a):
                a = reverse_buffers.lift(a)
            elif type(a) is np.flatiter and reverse_buffers.has_version(a.base):  # np.sum(buf.flat)
                a = reverse_buffers.lift(a.base).reshape(-1)
        if isinstance(a, Tagged):
            if a.tag is t:
                if versions and type(a) is TracedArray:
                    a = reverse_buffers.fresh(a)
                primals.append(a.value)
                nodes.append(a.meta)
                found = True
                continue
            a = live(a)
        primals.append(a)
        nodes.append(None)
    return primals, nodes, found


def _no_traced_keywords(fn, ctx, kwargs):
    t = ctx._tag
    for name, v in kwargs.items():
        if isinstance(v, Tagged) and v.tag is t and name != "out":  # (out=: a write, see _into_out)
            raise NoRuleError(
                "%s got the keyword argument %s carrying a derivative; pass it positionally" % (qualified_name(fn), name)
            )


def _holds_derivative(ctx, out):
    """Whether ``out=`` (an array, or a 1-tuple of one) holds values being differentiated."""
    if type(out) is tuple and len(out) == 1:
        out = out[0]
    if isinstance(out, Tagged):
        return out.tag is ctx._tag
    return type(out) is ndarray and bool(REVERSE_VERSIONS) and reverse_buffers.has_version(out)


def _into_out(primitive, fn, ctx, args, kwargs):
    """``fn(*args, out=target, where=mask)`` with derivatives: the result computed (everywhere, warnings
    of the elements left out silenced), then written into ``target`` where ``mask`` holds; elements
    left out keep ``target``'s values (without ``out=``: zeros, where NumPy leaves them undefined)."""
    kwargs = dict(kwargs)
    target = kwargs.pop("out", None)
    mask = kwargs.pop("where", True)
    if type(target) is tuple:
        if len(target) != 1:
            raise NoRuleError("%s with several out= arrays has no reverse-mode rule; assign the results instead"
                              % qualified_name(fn))
        target = target[0]
    if mask is not True:
        kwargs["masked"], kwargs["masked_where"] = _MASKED, mask
    full = primitive(ctx, *args, **kwargs)
    if mask is not True:
        if target is None:
            current = np.zeros((), dtype=np.result_type(getattr(full, "dtype", float)))
        else:
            current = reverse_buffers.lift(target) if type(live(target)) is ndarray else target
        full = dispatch(np.where, (mask, full, current))
    if target is None:
        return full
    reverse_writes.assign(target, Ellipsis, full)
    return target


_MASKED = object()  # marks the call _into_out makes of a ufunc given where=: its rule drops the elements left out


def _kept(pulls, arrays):
    """The arrays among ``arrays`` (an operation's) that some of ``pulls`` keeps, when one of them
    dropped large arrays its rule does not read (see ``rules.pullbacks.trim``): writes into the
    kept ones are watched."""
    held = set()
    for pull in pulls:
        held.add(id(pull.ans))
        held.update(map(id, pull.primals))
    return [a for a in arrays if id(a) in held]


def vjp_primitive(fn: Callable[..., Any], makers: tuple) -> Callable[..., Any]:
    """A primitive recording ``fn``: ``makers[i](ans, primals, kwargs, i)`` gives argument ``i``'s pullback
    (the last maker serves the arguments after it), or is ``ZERO`` or ``NOT_DIFFERENTIABLE``."""
    last = len(makers) - 1

    @native_primitive
    def primitive(ctx, /, *args, **kwargs):
        primals, nodes, found = split(ctx, args)
        mask = None
        if kwargs:
            _no_traced_keywords(fn, ctx, kwargs)
            out = kwargs.get("out")
            if found or _holds_derivative(ctx, out):
                if out is not None or kwargs.get("where", True) is not True:
                    return _into_out(primitive, fn, ctx, args, kwargs)
            if kwargs.get("masked") is _MASKED:  # the elements computed, from _into_out
                kwargs = dict(kwargs)
                mask = kwargs.pop("masked_where")
                del kwargs["masked"]
            elif out is not None:  # constants only: a plain write, seen by the tape
                for a in (out if type(out) is tuple else (out,)):
                    reverse_writes.before_write(a)
        t = ctx._tag
        for i, node in enumerate(nodes):
            if node is not None and makers[i if i <= last else last] is NOT_DIFFERENTIABLE:
                raise NoRuleError(
                    "%s is not differentiable in argument %d, which carries a derivative; make it a constant"
                    % (qualified_name(fn), i + 1)
                )
        runs = t.runs  # enclosing_call in line (this runs for every operation recorded)
        parent = runs[-1].parent if runs else None
        nested = parent is not None and parent.alive
        if mask is None:
            if not nested:
                ans = fn(*primals, **kwargs)
            else:
                ans = call_under(parent, fn, tuple(primals), kwargs)
        else:
            with np.errstate(all="ignore"):
                ans = enclosing_call(t, fn, tuple(primals), kwargs)
        if not found or ((type(ans) is ndarray or is_array(ans)) and ans.dtype.kind in "biu"):
            return ans  # integer and boolean results carry no derivative (as astype(int) in forward mode)
        if id(fn) not in COMPLEX_CHECKED and (is_complex(ans) or any(n is not None and not n.real for n in nodes)):
            raise _refuse_complex(fn)
        parents = []
        pulls = []
        trimmed = False
        for i, node in enumerate(nodes):
            if node is None:
                continue
            make = makers[i if i <= last else last]
            if make is ZERO:
                continue
            pull = make(ans, primals, kwargs, i)
            pulls.append(pull)
            trimmed = trimmed or getattr(pull, "trimmed", False)
            if mask is not None:
                if not hasattr(pull, "mask"):
                    raise NoRuleError("%s with where= has no reverse-mode rule; compute it everywhere and use "
                                      "np.where, or use ad.ForwardMode()" % qualified_name(fn))
                pull.mask = np.broadcast_to(mask, np.shape(ans))
            parents.append((node, pull))
        if not parents:
            return ans
        if nested:  # arrays may carry the enclosing derivative's tangents: saved too
            saves = [a for a in primals if type(a) is ndarray or type(primal(a)) is ndarray]
            if type(ans) is ndarray or type(primal(ans)) is ndarray:
                saves.append(ans)
        else:
            saves = [a for a in primals if type(a) is ndarray]
            if type(ans) is ndarray:
                saves.append(ans)
        if trimmed:
            saves = _kept(pulls, saves)
        if saves:
            reverse_writes.save_all(ctx, pulls, saves)
        return make_traced(ans, t, Node(tuple(parents)))

    primitive.__qualname__ = primitive.__name__ = "vjp rule of %s" % qualified_name(fn)
    primitive.checks_complex = True  # (above, before the node is made)
    return primitive


def _derive(fn, jvps, elementwise, argtypes):
    """Reverse mode's rule for a ``defjvp`` rule of an elementwise function (others need ``defvjp``)."""
    if not elementwise:
        return
    from ..rules.pullbacks import from_jvp  # the pullbacks are rule code, differentiated through

    makers = tuple(j if j is ZERO or j is NOT_DIFFERENTIABLE else from_jvp(j) for j in jvps)
    ReverseCtx.primitive(fn, argtypes)(vjp_primitive(fn, makers))


def defvjp(fn: Callable[..., Any], *vjps: Any, argtypes: tuple[type, ...] | None = None) -> Callable[..., Any]:
    """Register reverse-mode rules for ``fn``: ``vjp_i(u, ans, *args, **kwargs)`` is the cotangent of
    argument ``i`` for the result's cotangent ``u``; ``ZERO`` (or None) for a zero derivative,
    ``NOT_DIFFERENTIABLE`` for an argument with none (an error if it carries a derivative)."""
    if not vjps:
        raise TypeError("defvjp(%s): give one rule per argument" % qualified_name(fn))
    from ..rules.pullbacks import from_vjp

    makers = tuple(
        ZERO if v is None or v is ZERO else NOT_DIFFERENTIABLE if v is NOT_DIFFERENTIABLE else from_vjp(v)
        for v in vjps
    )
    ReverseCtx.primitive(fn, argtypes)(vjp_primitive(fn, makers))
    return fn


def plain_result(out: Any, ctx: ReverseCtx, parts: list) -> Any:
    """``out`` without this run's layer, in its form (lists and tuples kept); ``parts`` gets
    ``(value, node or None)`` for each leaf. Engine code: it looks at tags."""
    if type(out) in (list, tuple) or (isinstance(out, tuple) and not isinstance(out, Tagged)):
        return type(out)(plain_result(o, ctx, parts) for o in out)
    if isinstance(out, Tagged) and out.tag is ctx._tag:
        parts.append((out.value, out.meta))
        return out.value
    parts.append((out, None))
    return out


def install():
    """Derive the rules of every ``defjvp`` rule so far, and of those registered later."""
    for fn, jvps, elementwise, argtypes in list(JVP_RULES.values()):
        _derive(fn, jvps, elementwise, argtypes)
    if _derive not in ON_DEFJVP:
        ON_DEFJVP.append(_derive)
