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
naming it; writes into arrays being differentiated raise too (not yet recorded). Complex
values are refused: the cotangent conventions for them are not settled here yet.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from context.base import Context
from context.resolve import declare_engine_code
from context.tagging import Tagged, TaggingContext, enclosing_call, native_primitive
from context.tagging.dispatch import qualified_name
from context.tagging.values import live

from . import reverse_writes
from .dual import ScalarArrayMethods
from .dual_array import DualArray, is_array
from .forward import JVP_RULES, NOT_DIFFERENTIABLE, ON_DEFJVP, ZERO, NoRuleError

declare_engine_code(__file__)

ndarray = np.ndarray


_serials = itertools.count()


class Node:
    """One recorded operation: ``parents`` are ``(node, pullback)`` pairs (none for an input).

    ``serial`` grows with each node made, so a node's serial is larger than its parents': the
    backward pass takes nodes in decreasing serial order, each after all its users."""

    __slots__ = ("parents", "serial")

    def __init__(self, parents: tuple = ()) -> None:
        self.parents = parents
        self.serial = next(_serials)


class Traced(ScalarArrayMethods, Tagged):
    """A number being differentiated in reverse mode (primal ``value``, tape node ``meta``)."""

    __slots__ = ()

    def item(self) -> Traced:
        return self


class TracedArray(DualArray):
    """An array being differentiated in reverse mode: ``DualArray``'s array protocol, a node for meta."""

    __slots__ = ()

    def __repr__(self):
        return "TracedArray(%r, tag=#%d)" % (self.value, self.tag.serial)


def make_traced(value: Any, tag: Any, node: Node) -> Tagged:
    """The tagged value for primal ``value``: a ``TracedArray`` for arrays, else a ``Traced``."""
    if type(value) is float:
        return Traced(value, tag, node)
    if np.iscomplexobj(value):
        raise TypeError(
            "reverse mode: complex values are not supported yet (a result of %r); use ad.ForwardMode()"
            % (type(value).__name__,)
        )
    if type(value) is ndarray or (type(value) is not float and is_array(value)):
        return TracedArray(value, tag, node)
    return Traced(value, tag, node)


class ReverseCtx(TaggingContext):
    """Reverse-mode AD: values tagged by this context carry their tape node as metadata."""

    tagged_type = staticmethod(make_traced)
    untag_for_natives = False  # a function with no rule raises NoRuleError: never a silent zero
    implicit_handlers = reverse_writes.handlers()
    native_guard = reverse_writes.GUARD
    records_writes = True  # writes into arrays the tape saved are seen (reverse_writes)

    @classmethod
    def no_rule_error(cls, fn: Callable[..., Any], ctx: Context) -> NoRuleError:
        name = qualified_name(fn)
        return NoRuleError(
            "%s has no reverse-mode rule, and a value being differentiated reached it; add one with "
            "ad.defvjp(%s, ...), differentiate in forward mode (ad.ForwardMode()), or make the argument "
            "a constant" % (name, name)
        )


def split(ctx, args):
    """Primals and nodes of ``args`` for ``ctx``'s tag, and whether any carries one."""
    t = ctx._tag
    primals = []
    nodes = []
    found = False
    for a in args:
        if isinstance(a, Tagged):
            if a.tag is t:
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
        if isinstance(v, Tagged) and v.tag is t:
            raise NoRuleError(
                "%s got the keyword argument %s carrying a derivative; pass it positionally" % (qualified_name(fn), name)
            )


def vjp_primitive(fn: Callable[..., Any], makers: tuple) -> Callable[..., Any]:
    """A primitive recording ``fn``: ``makers[i](ans, primals, kwargs, i)`` gives argument ``i``'s pullback
    (the last maker serves the arguments after it), or is ``ZERO`` or ``NOT_DIFFERENTIABLE``."""
    last = len(makers) - 1

    @native_primitive
    def primitive(ctx, /, *args, **kwargs):
        primals, nodes, found = split(ctx, args)
        if kwargs:
            _no_traced_keywords(fn, ctx, kwargs)
            if found and ("out" in kwargs or kwargs.get("where", True) is not True):
                raise NoRuleError(
                    "%s with out= or where= has no reverse-mode rule yet; assign the result instead, or "
                    "use ad.ForwardMode()" % qualified_name(fn)
                )
            if kwargs.get("out") is not None:  # constants only: a plain write, seen by the tape
                out = kwargs["out"]
                for a in (out if type(out) is tuple else (out,)):
                    reverse_writes.before_write(ctx, a)
        t = ctx._tag
        for i, node in enumerate(nodes):
            if node is not None and makers[i if i <= last else last] is NOT_DIFFERENTIABLE:
                raise NoRuleError(
                    "%s is not differentiable in argument %d, which carries a derivative; make it a constant"
                    % (qualified_name(fn), i + 1)
                )
        ans = enclosing_call(t, fn, tuple(primals), kwargs)
        if not found or (is_array(ans) and ans.dtype.kind in "biu"):
            return ans  # integer and boolean results carry no derivative (as astype(int) in forward mode)
        parents = []
        saves = [a for a in primals if type(a) is ndarray]
        if type(ans) is ndarray:
            saves.append(ans)
        for i, node in enumerate(nodes):
            if node is None:
                continue
            make = makers[i if i <= last else last]
            if make is ZERO:
                continue
            pull = make(ans, primals, kwargs, i)
            if saves:
                reverse_writes.save(ctx, pull, saves)
            parents.append((node, pull))
        if not parents:
            return ans
        return make_traced(ans, t, Node(tuple(parents)))

    primitive.__qualname__ = primitive.__name__ = "vjp rule of %s" % qualified_name(fn)
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
