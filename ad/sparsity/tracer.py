"""The sparsity-detection context: values carry the inputs they depend on.

A number depending on the input is a ``Traced`` (its dependencies, an array of slots
``(K,)``, are its metadata); an array stays a plain ndarray whose dependencies live
in the store (``store``), and is seen by the rules as the ``DualArray`` it stands for.

Two detectors (``SparsityCtx(local=...)``):

* **global** (the default): the pattern holds for every input. A value computed from
  the input with a zero derivative (a comparison, ``floor``, ``argmax``) is
  *undecided*: arithmetic takes it as a constant and selections (``np.where``,
  ``np.maximum``) take both ways, but a branch, an index, ``int()`` or ``bool()`` of it
  raises ``SparsityBranchError``, since the pattern of the path taken need not hold
  for other inputs.
* **local**: the pattern holds at the given input. Branches follow its values.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from typing import Any

import numpy as np

from context.resolve import declare_engine_code
from context.tagging import Tagged, TaggingContext, TaggingError
from context.tagging.arrays import root_of
from context.tagging.dispatch import qualified_name
from context.tagging.values import live

from ..engine import handlers
from ..engine.dual import ScalarArrayMethods
from ..engine.dual_array import DualArray
from ..engine.forward import NoRuleError
from . import deps, operators, store

declare_engine_code(__file__)

ndarray = np.ndarray
UNDECIDED = store.UNDECIDED


class SparsityBranchError(TaggingError):
    """The global detector met control flow or indexing that depends on the input's values."""


def branch_error(what: str) -> SparsityBranchError:
    return SparsityBranchError(
        "%s depends on the input's values (it was computed by a comparison, a rounding or an arg-search "
        "of them), so the global sparsity pattern cannot follow it: the path taken here need not be the "
        "path taken for other inputs. Use ad.jacobian_sparsity(f, x, local=True) for the pattern at x, "
        "or write the choice with np.where so that both ways are seen" % what
    )


class Traced(ScalarArrayMethods, Tagged):
    """A number that depends on the input: ``meta`` lists the inputs (slots, ``(K,)``)."""

    __slots__ = ()

    def __repr__(self):
        return "Traced(%r, depends on %s)" % (self.value, sorted({int(i) - 1 for i in self.meta if i}))

    def item(self) -> Any:
        return self


class Undecided(Traced):
    """A number computed from the input with zero derivative, under the global detector."""

    __slots__ = ()

    def __repr__(self):
        return "Undecided(%r)" % (self.value,)

    def __bool__(self):
        raise branch_error("a branch on bool(%r)" % (self.value,))

    def __index__(self):
        raise branch_error("an index or int() of %r" % (self.value,))


class UndecidedArray(DualArray):
    """An array computed from the input with zero derivative, under the global detector."""

    __slots__ = ()

    def __bool__(self):
        raise branch_error("a branch on the truth of an array")


def make_traced(value: Any, tag, meta: Any) -> Any:
    """The tagged value for ``value`` with dependencies ``meta`` (arrays are stored instead)."""
    if meta is UNDECIDED:
        return Undecided(value, tag, meta)
    return Traced(value, tag, meta)


def lift(a: np.ndarray) -> Any:
    """Buffer ``a`` as the ``DualArray`` it stands for (``UndecidedArray`` if undecided), or ``a``."""
    t, D = store.lookup(a)
    if t is None:
        return a
    if D is UNDECIDED:
        return UndecidedArray(a, t, UNDECIDED)
    return DualArray(a, t, D)


def deps_of(x: Any, t) -> Any:
    """``x``'s dependencies for tag ``t``: an array of slots, ``UNDECIDED``, or None."""
    x = live(x)
    if issubclass(type(x), Tagged):
        return x.meta if x.tag is t else None
    if type(x) is ndarray:
        return store.get(x, t)
    return None


def assign(target: Any, key: Any, value: Any) -> None:
    """``target[key] = value`` for a plain buffer (or the ``DualArray`` of one), dependencies included."""
    target = live(target)
    if isinstance(target, DualArray):
        target = target.value
    if type(target) is not ndarray:
        target[key] = value
        return
    value = live(value)
    t = value.tag if issubclass(type(value), Tagged) else (store.tag_of(value) if type(value) is ndarray else None)
    t = t or store.tag_of(target)
    if t is None:
        target[key] = value
        return
    D = deps_of(value, t)
    if D is UNDECIDED:
        if t.context is not None and t.context.local:
            D = None
        else:
            raise branch_error("writing a value computed by a comparison or rounding into an array")
    if D is not None and not D.shape[0]:
        D = None
    source = value.value if isinstance(value, DualArray) else value
    if D is not None and type(source) is ndarray and root_of(source) is root_of(target):
        D = np.array(D)  # the source overlaps the target (a[1:] = a[:-1]): its slots are read before the write
    primal = value.value if issubclass(type(value), Tagged) else value
    if D is not None and target.dtype.kind not in "fc":
        raise TypeError(
            "writing a value that depends on the input into an array of dtype %s: only float and complex "
            "arrays can carry dependencies (make the buffer with dtype=float)" % target.dtype
        )
    target[key] = primal
    store.write(target, key, t, D)


def result(ctx, ans: Any, D: Any) -> Any:
    """``ans`` carrying dependencies ``D`` (slots shaped ``(K,) + ans.shape``, or their
    ``deps.Parts``, ``UNDECIDED`` or None)."""
    if D is None or (D is UNDECIDED and ctx.local):
        return ans
    if type(D) is deps.Parts:
        if type(ans) is not ndarray or not ans.ndim:
            D = D.array()
        elif not D.K:
            return ans
    elif D is not UNDECIDED and not D.shape[0]:
        return ans
    t = ctx._tag
    if type(ans) is ndarray and ans.ndim and ans.base is not None and root_of(ans).itemsize != ans.itemsize:
        ans = ans.copy()  # (np.real of a complex array: a view whose memory cannot hold slots of its own)
    if type(ans) is ndarray and ans.ndim:
        if D is UNDECIDED:
            store.put(ans if ans.base is None or root_of(ans) is ans else ans.copy(), t, UNDECIDED)
        elif ans.base is None or root_of(ans) is ans:
            store.put(ans, t, D)
        else:  # a view of a buffer: only its own part changes
            store.write(ans, Ellipsis, t, D)
        return ans
    if type(ans) is ndarray:
        ans = ans[()]
    if D is not UNDECIDED:
        if D.ndim != 1:
            D = D.reshape(D.shape[:1])
        if D.base is not None:  # slots seen in a buffer's store (an element read, x * 1.0): a later write
            D = D.copy()        # into the buffer must not change what this number depends on
        # (a number's own slots, base None, are never written: numbers may share them)
    return make_traced(ans, t, D)


class SparsityCtx(TaggingContext):
    """Sparsity detection: each value carries the set of inputs it depends on.

    ``local=False`` (global detector): the pattern holds for every input; ``local=True``:
    at the input given. See the module docstring.
    """

    tagged_type = staticmethod(make_traced)
    implicit_handlers, native_guard = handlers.build(store.has_deps, lift, assign, comparisons=True, lift_if=lift,
                                                         views_free=True)
    untag_for_natives = False  # a function with no rule raises: never a silently missing dependency

    pairs = None  # second order (``hessian_sparsity``): the pairs of inputs that interact

    def __init__(self, local: bool = False) -> None:
        self.local = bool(local)

    @classmethod
    def no_rule_error(cls, fn, ctx) -> NoRuleError:
        name = qualified_name(fn)
        return NoRuleError(
            "%s has no sparsity rule, and a value depending on the input reached it; add one with "
            "ad.sparsity.defsparsity(%s, kind) (see docs/sparsity.md), or make the argument a constant"
            % (name, name)
        )


SparsityCtx.implicit_handlers = operators.install(SparsityCtx.implicit_handlers, SparsityCtx, Traced, UNDECIDED,
                                                  result)
