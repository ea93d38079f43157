"""What rewritten code calls, under forward AD, for subscripts, iteration and operators,
and the native guard of the AD context.

They extend the tagging context's handlers to plain NumPy buffers holding tangents in
shadow memory (see ``buffers``): such a buffer is read, iterated, used as an operand or
passed to a native as the ``DualArray`` it stands for, and written in place, tangent
included (``buf[i] = t``, ``buf += t``).
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import operator

import numpy as np

from context.resolve import declare_engine_code
from context.rewrite.operators import BINARY_OPS, COMPARE_OPS
from context.tagging import Tagged, dispatch
from context.tagging.arrays import root_of
from context.tagging.implicit import attribute, iterated, python_method, subscript
from context.tagging.dispatch import qualified_name
from context.tagging.guard import NativeGuard

from . import buffers
from .dual_array import BINARY_UFUNCS, DualArray
from .mutation import assign
from .saves import RUNS, before_write

declare_engine_code(__file__)

ndarray = np.ndarray
_SYMBOLS = {"add": "+", "and_": "&", "floordiv": "//", "lshift": "<<", "matmul": "@", "mul": "*", "mod": "%",
            "or_": "|", "pow": "**", "rshift": ">>", "sub": "-", "truediv": "/", "xor": "^"}
_COMPARISONS = {"lt": "<", "le": "<=", "eq": "==", "ne": "!=", "gt": ">", "ge": ">="}
_LIFTS = """
def handler(a, b):
    if type(a) is ndarray and has_shadow(a):
        a = lift(a)
    if type(b) is ndarray and has_shadow(b):
        b = lift(b)
"""
_TEMPLATE = _LIFTS + """    return a %s b
"""
_TEMPLATE_OWN = _LIFTS + """    if type(a) is own and (type(b) is own or not issubclass(type(b), own)):
        return dispatch(ufunc, (a, b))  # what own.__%s__ does, without its frame
    return a %s b
"""
_TEMPLATE_LIFT_IF = """
def handler(a, b):
    if type(a) is ndarray:
        a = lift_if(a)
    if type(b) is ndarray:
        b = lift_if(b)
    return a %s b
"""


_MUTATING_METHODS = frozenset(["fill", "sort", "put", "partition", "resize", "itemset", "setfield", "byteswap",
                               "__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__", "__ipow__"])
_MUTATING_FUNCTIONS = frozenset(id(f) for f in (np.copyto, np.place, np.putmask, np.put, np.put_along_axis,
                                                np.fill_diagonal))


def _native_mapping(kind):
    """Whether ``kind`` is a ``dict`` (or a subclass) whose items are found and stored natively."""
    return kind is dict or (issubclass(kind, dict) and python_method(kind, "__getitem__") is None
                            and python_method(kind, "__setitem__") is None)


def before_native_write(f, args, kwargs):
    """Native ``f`` called with these arguments may write into an array (``out=``, ``np.copyto``,
    ``ndarray.fill`` and the other mutating methods, ``ufunc.at``): the reverse-mode runs that
    saved that array's memory keep copies first (``saves``)."""
    out = kwargs.get("out") if kwargs else None
    if out is not None:
        for a in (out if type(out) is tuple else (out,)):
            before_write(a)
    owner = getattr(f, "__self__", None)
    if type(owner) is ndarray and getattr(f, "__name__", None) in _MUTATING_METHODS:
        before_write(owner)
    elif id(f) in _MUTATING_FUNCTIONS and args:
        before_write(args[0])
    elif type(owner) is np.ufunc and getattr(f, "__name__", None) == "at" and args:
        before_write(args[0])


_VIEW_METHODS = frozenset({"reshape", "ravel", "transpose", "swapaxes", "squeeze"})  # a view when NumPy can


def lifted_arguments(args, kwargs, holds, lift):
    """``(args, kwargs)`` with the buffers for which ``holds`` is true (in lists and tuples too, but for
    ``out=``, a target) lifted to the tagged values they stand for (see ``lifted_in``)."""
    args = tuple(lifted_in(a, holds, lift) for a in args)
    if kwargs:
        kwargs = {k: v if k == "out" else lifted_in(v, holds, lift) for k, v in kwargs.items()}
    return args, kwargs


def lifted_in(a, holds, lift, depth=2):
    """``a``, or (a buffer for which ``holds`` is true: it stands for a value being differentiated)
    ``lift(a)``, the tagged value it stands for; lists and tuples (``depth`` levels) get theirs."""
    kind = type(a)
    if kind is ndarray:
        return lift(a) if holds(a) else a
    if (kind is list or kind is tuple) and depth:
        items = [lifted_in(e, holds, lift, depth - 1) for e in a]
        if any(x is not y for x, y in zip(items, a)):
            return kind(items)
    return a


def build(has_shadow, lift, assign, comparisons=False, lift_if=None, views_free=False, read=None,
          read_tagged=None, held=None, own_array=None):
    """``(handlers, guard)`` for an AD context whose plain buffers may stand for values being
    differentiated: ``has_shadow(a)`` tells which, ``lift(a)`` gives the ``DualArray`` one
    stands for, ``assign(target, key, value)`` writes into one (forward mode's shadow
    memory; sparsity detection's dependency store). With ``comparisons``, comparisons of such
    buffers go to their rules too (sparsity detection must see them; forward mode need not).
    ``lift_if(a)``, where given, is ``lift(a)`` for such a buffer and ``a`` itself for any
    other, in one look (the operators then call it alone). With ``views_free``, a view of
    such a buffer needs no rule (what it stands for is found from its memory, as sparsity
    detection's store does): ``a.reshape(...)`` and the like return NumPy's own view. ``read(a, key)``,
    where given, is ``a[key]`` for such a buffer (else the rule of ``getitem`` on ``lift(a)``);
    ``read_tagged(x, key)``, where given, is ``x[key]`` for a tagged ``x``, or None for the rule's.
    ``held()``, where given, tells cheaply whether any buffer stands for such a value now (else the
    lists and tuples natives receive are searched for such buffers whenever they get one).
    ``own_array``, where given, is the context's tagged array type: an arithmetic operator with one
    of those on its left goes to that type's rule at once (what its operator method does)."""

    def flattened(it):
        """``buf.flat`` of a buffer standing for a value being differentiated: that value raveled
        (None for any other ``flatiter``), so that reading the iterator reads the value."""
        base = it.base
        if not has_shadow(base):
            return None
        return lift(base).reshape(-1)

    def as_value(a):
        """Argument ``a`` of a native: a buffer (or ``.flat`` of one) as the value it stands for."""
        kind = type(a)
        if kind is ndarray:
            return lift(a) if has_shadow(a) else a
        if kind is np.flatiter:
            flat = flattened(a)
            return a if flat is None else flat
        return a

    def getitem(obj, key):
        """``obj[key]``."""
        kind = type(obj)
        if (kind is list or kind is tuple) and type(key) is int:
            return obj[key]
        if kind is ndarray:
            if has_shadow(obj):
                return dispatch(operator.getitem, (lift(obj), key)) if read is None else read(obj, key)
            if issubclass(type(key), Tagged):  # an index being differentiated: its rule says so
                return dispatch(operator.getitem, (obj, key))
            return obj[key]
        if kind is np.flatiter:
            flat = flattened(obj)
            if flat is not None:
                return getitem(flat, key)
        if issubclass(kind, Tagged):
            if read_tagged is not None:
                got = read_tagged(obj, key)
                if got is not None:
                    return got
            return dispatch(operator.getitem, (obj, key))
        if issubclass(type(key), Tagged) and _native_mapping(kind):
            return obj[key]  # a key is found by its value, as by ``key in obj`` and ``obj.get(key)``
        return subscript(obj, key)  # (np.r_[x, y], a user's container: its __getitem__ under the context)

    def _holds_tagged(key):
        return any(issubclass(type(k), Tagged) for k in key)

    def setitem(obj, key, value):
        """``obj[key] = value``."""
        if type(obj) is np.flatiter and (has_shadow(obj.base) or isinstance(value, Tagged)):
            base = obj.base
            if not (base.flags.c_contiguous or base.ndim <= 1):
                raise TypeError(
                    ".flat of a non-contiguous array written with a value being differentiated; "
                    "write into the array with an index instead"
                )
            obj = base.reshape(-1)  # (a view: the buffer's memory, in .flat's order)
        if (type(obj) is ndarray and obj.dtype != object) or isinstance(obj, DualArray):
            assign(obj, key, value)
        elif issubclass(type(obj), Tagged) or (issubclass(type(key), Tagged) and not _native_mapping(type(obj))):
            dispatch(operator.setitem, (obj, key, value))
        else:
            obj[key] = value  # (a dict keeps a key being differentiated as it is, as a set does)

    def iterable(x):
        """What a loop or an unpacking iterates instead of ``x``."""
        kind = type(x)
        if kind is tuple or kind is list or kind is range:
            return x
        if kind is ndarray:
            return lift(x) if has_shadow(x) else x
        if kind is np.flatiter:
            flat = flattened(x)
            if flat is not None:
                return iterable(flat)
            return x
        return iterated(x)

    def _written(op, symbols):
        # written out with the operator itself: this runs for every arithmetic operation in
        # differentiated code, and the specialized instruction is much cheaper than operator.add
        namespace = {"ndarray": ndarray, "has_shadow": has_shadow, "lift": lift, "lift_if": lift_if}
        symbol = symbols[op.__name__]
        dunder = op.__name__.rstrip("_")  # (operator.and_ is __and__)
        if own_array is not None and dunder in BINARY_UFUNCS:  # the array type's operator, called in line
            namespace.update(own=own_array, dispatch=dispatch, ufunc=BINARY_UFUNCS[dunder])
            source = _TEMPLATE_OWN % (dunder, symbol)
        else:
            source = (_TEMPLATE if lift_if is None else _TEMPLATE_LIFT_IF) % symbol
        exec(compile(source, __file__, "exec"), namespace)
        handler = namespace["handler"]
        handler.__name__ = handler.__qualname__ = op.__name__
        return handler

    def _inplace(iop, op):
        def handler(a, b):
            if type(a) is ndarray:
                if isinstance(b, Tagged) or has_shadow(a) or (type(b) is ndarray and has_shadow(b)):
                    assign(a, Ellipsis, op(lift(a), lift(b) if type(b) is ndarray else b))
                    return a
                if RUNS:  # constants: the reverse-mode runs' saved arrays keep their values
                    before_write(a)
            return iop(a, b)

        handler.__name__ = iop.__name__
        return handler

    def neg(a):
        """``-a``."""
        if type(a) is ndarray and has_shadow(a):
            a = lift(a)
        return -a

    def handlers():
        """The implicit handlers of the AD context."""
        table = {"getitem": getitem, "setitem": setitem, "iterable": iterable, "neg": neg, "getattr": attribute}
        plain = BINARY_OPS[:13]
        for op, iop in zip(plain, BINARY_OPS[13:]):
            table[op.__name__] = _written(op, _SYMBOLS)
            table[iop.__name__] = _inplace(iop, op)
        if comparisons:
            for op in COMPARE_OPS:
                table[op.__name__] = _written(op, _COMPARISONS)
        return table

    class ForwardGuard(NativeGuard):
        """The tagging guard, with buffers that stand for values being differentiated seen as the ``DualArray`` they stand for."""

        def call(self, f, args, kwargs, run=None, /):
            if RUNS:
                before_native_write(f, args, kwargs)
            owner = getattr(f, "__self__", None)
            if (views_free and type(owner) is ndarray and getattr(f, "__name__", None) in _VIEW_METHODS
                    and not _holds_tagged(args)):
                view = (run or f)(*args, **kwargs)
                if (type(view) is ndarray and view.base is not None and root_of(view) is root_of(owner)) or \
                        not has_shadow(owner):
                    return view  # a view (found from its memory), or a copy of a buffer that stands for nothing
            if type(owner) is ndarray and has_shadow(owner):
                name = getattr(f, "__name__", None)
                method = getattr(DualArray, name, None) if isinstance(name, str) else None
                if method is None:
                    raise TypeError(
                        "ndarray.%s was called on a buffer standing for a value being differentiated and has no rule; "
                        "call the matching NumPy function instead, or copy the values with np.copy" % name
                    )
                return method(lift(owner), *args, **kwargs)
            if any((type(a) is ndarray and has_shadow(a)) or type(a) is np.flatiter for a in args):
                args = tuple(as_value(a) for a in args)  # (np.sum(buf.flat) too)
            if (held is None or held()) and any(type(a) is list or type(a) is tuple for a in args):
                args = tuple(lifted_in(a, has_shadow, lift) for a in args)  # sum([buf, buf]), math.fsum([buf[0], ...])
            result = NativeGuard.call(self, f, args, kwargs, run)
            if type(result) is ndarray and result.dtype == object and not self.transparent(f, owner):
                if any(isinstance(e, Tagged) for e in result.flat):
                    name = qualified_name(f)
                    raise TypeError(
                        "%s made an array of Python objects holding values being differentiated: NumPy "
                        "would compute on it without derivative rules; build the array with np.array "
                        "or np.stack, or give %s a rule" % (name, name)
                    )
            return result

    return handlers(), ForwardGuard()


HANDLERS, GUARD = build(buffers.has_shadow, buffers.lift, assign, held=buffers.has_any_shadow, own_array=DualArray)
