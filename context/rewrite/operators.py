"""Optional passes that turn operators, subscripts and attribute access into calls.

``a * b`` becomes ``operator.mul(a, b)``, ``x[i] = v`` becomes ``operator.setitem(x, i, v)``,
``o.name`` becomes ``getattr(o, 'name')``, and so on. The calls they produce are ordinary
calls, so the call pass then routes them through the context.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import operator

from bytecode import Instr

from . import emit
from .features import METHOD_BIT_ON_LOAD_ATTR, TO_BOOL_INSTRUCTION, Entry, table

I = emit.I

BINARY_OPS = (
    operator.add, operator.and_, operator.floordiv, operator.lshift, operator.matmul,
    operator.mul, operator.mod, operator.or_, operator.pow, operator.rshift, operator.sub,
    operator.truediv, operator.xor,
    operator.iadd, operator.iand, operator.ifloordiv, operator.ilshift, operator.imatmul,
    operator.imul, operator.imod, operator.ior, operator.ipow, operator.irshift,
    operator.isub, operator.itruediv, operator.ixor,
)
COMPARE_OPS = (operator.lt, operator.le, operator.eq, operator.ne, operator.gt, operator.ge)
UNARY_OPS = {
    "UNARY_NEGATIVE": operator.neg,
    "UNARY_INVERT": operator.invert,
    "UNARY_NOT": operator.not_,
    "UNARY_POSITIVE": operator.pos,
}
_INTRINSIC_UNARY_POSITIVE = 5


def _call(fn, k, loc, pop=False):
    out = emit.call_const_with_top(fn, k, loc)
    if pop:
        out.append(I("POP_TOP", loc=loc))
    return out


# ----------------------------------------------------------------------------- operators


def _binary_op(instr):
    return _call(BINARY_OPS[int(instr.arg)], 2, instr.location)


def _compare_op(instr):
    loc, code = instr.location, int(instr.arg)
    out = _call(COMPARE_OPS[code & 15], 2, loc)
    if code & 16:  # 3.13: result is used as a branch condition and must be a bool
        out.append(I("TO_BOOL", loc=loc))
    return out


def _unary(instr):
    return _call(UNARY_OPS[instr.name], 1, instr.location)


def _intrinsic_1(instr):
    if int(instr.arg) == _INTRINSIC_UNARY_POSITIVE:
        return _call(operator.pos, 1, instr.location)
    return None


def _contains_op(instr):
    loc = instr.location
    out = [I("SWAP", 2, loc)] + _call(operator.contains, 2, loc)
    if instr.arg:  # not in
        if TO_BOOL_INSTRUCTION:
            out.append(I("TO_BOOL", loc=loc))
        out.append(I("UNARY_NOT", loc=loc))
    return out


OPERATOR_ENTRIES = (
    Entry("BINARY_OP", None, _binary_op),
    Entry("COMPARE_OP", None, _compare_op),
    Entry("CONTAINS_OP", None, _contains_op),
    Entry("CALL_INTRINSIC_1", "CALL_INTRINSIC", _intrinsic_1),
    Entry("UNARY_POSITIVE", "UNARY_POSITIVE_INSTRUCTION", _unary),
    Entry("UNARY_NEGATIVE", None, _unary),
    Entry("UNARY_INVERT", None, _unary),
    Entry("UNARY_NOT", None, _unary),
)


# ----------------------------------------------------------------------------- subscripts


def _binary_subscr(instr):
    return _call(operator.getitem, 2, instr.location)


def _store_subscr(instr):  # [v, o, k] -> setitem(o, k, v)
    loc = instr.location
    return [I("SWAP", 2, loc), I("SWAP", 3, loc)] + _call(operator.setitem, 3, loc, pop=True)


def _delete_subscr(instr):
    return _call(operator.delitem, 2, instr.location, pop=True)


def _binary_slice(instr):
    loc = instr.location
    return [I("BUILD_SLICE", 2, loc)] + _call(operator.getitem, 2, loc)


def _store_slice(instr):
    loc = instr.location
    return [I("BUILD_SLICE", 2, loc), I("SWAP", 2, loc), I("SWAP", 3, loc)] + _call(
        operator.setitem, 3, loc, pop=True
    )


SUBSCRIPT_ENTRIES = (
    Entry("BINARY_SUBSCR", None, _binary_subscr),
    Entry("STORE_SUBSCR", None, _store_subscr),
    Entry("DELETE_SUBSCR", None, _delete_subscr),
    Entry("BINARY_SLICE", "SLICE_INSTRUCTIONS", _binary_slice),
    Entry("STORE_SLICE", "SLICE_INSTRUCTIONS", _store_slice),
)


# ----------------------------------------------------------------------------- attributes


def _get_attribute(attr, is_method, loc):
    out = [I("LOAD_CONST", attr, loc)] + _call(getattr, 2, loc)
    if is_method:
        out += emit.push_null_under_top(loc)
    return out


def _load_method(instr):  # 3.11
    return _get_attribute(instr.arg, True, instr.location)


def _load_attr(instr):
    if METHOD_BIT_ON_LOAD_ATTR:
        return _get_attribute(instr.arg[1], instr.arg[0], instr.location)
    return _get_attribute(instr.arg, False, instr.location)


def _store_attr(instr):  # [v, o] -> setattr(o, name, v)
    loc = instr.location
    return [I("SWAP", 2, loc), I("LOAD_CONST", instr.arg, loc), I("SWAP", 2, loc)] + _call(
        setattr, 3, loc, pop=True
    )


def _delete_attr(instr):
    return [I("LOAD_CONST", instr.arg, instr.location)] + _call(delattr, 2, instr.location, pop=True)


ATTRIBUTE_ENTRIES = (
    Entry("LOAD_ATTR", None, _load_attr),
    Entry("LOAD_METHOD", "LOAD_METHOD_INSTRUCTION", _load_method),
    Entry("STORE_ATTR", None, _store_attr),
    Entry("DELETE_ATTR", None, _delete_attr),
)

_TABLES = {}  # (operators, subscripts, attributes) -> {name: function(instr) -> replacement or None}


def _handlers(config):
    key = (config.operators, config.subscripts, config.attributes)
    found = _TABLES.get(key)
    if found is None:
        entries = ()
        if config.operators:
            entries += OPERATOR_ENTRIES
        if config.subscripts:
            entries += SUBSCRIPT_ENTRIES
        if config.attributes:
            entries += ATTRIBUTE_ENTRIES
        found = _TABLES[key] = table(*entries)
    return found


def rewrite_implicit(items, config):
    """Apply the operator, subscript and attribute passes that ``config`` asks for."""
    handlers = _handlers(config)
    if not handlers:
        return items
    out = []
    for item in items:
        handler = handlers.get(item.name) if isinstance(item, Instr) else None
        replacement = handler(item) if handler is not None else None
        if replacement is None:
            out.append(item)
        else:
            out.extend(replacement)
    return out


# instructions that iterate the value on top of the stack: loops, unpacking (``a, b = x``), and
# ``[*x]``, ``(*x,)``, ``{*x}`` (LIST_EXTEND and SET_UPDATE), ``yield from x``
_ITERATED = frozenset({"GET_ITER", "UNPACK_SEQUENCE", "UNPACK_EX", "LIST_EXTEND", "SET_UPDATE", "GET_YIELD_FROM_ITER"})


def plain_attribute_loads(items):
    """The ids of the plain attribute loads among ``items`` (``o.name``; not the method loads
    of calls, ``o.name(...)``), taken before the call pass turns method loads into plain ones.
    ``f_back`` is left to the frame-walk pass (a frame's getters are native anyway)."""
    if METHOD_BIT_ON_LOAD_ATTR:
        return {id(item) for item in items if isinstance(item, Instr) and item.name == "LOAD_ATTR"
                and not item.arg[0] and item.arg[1] != "f_back"}
    return {id(item) for item in items if isinstance(item, Instr) and item.name == "LOAD_ATTR" and item.arg != "f_back"}


def rewrite_direct(items, handlers, attribute_loads=frozenset()):
    """Replace subscripts, iteration, operators and attribute loads with direct calls of the
    context's handlers.

    ``handlers`` maps ``getitem(o, key)``, ``setitem(o, key, value)`` and ``iterable(x)``
    (given what is about to be iterated or unpacked, returns what to iterate) to functions,
    and may map the name of a binary operator in ``operator`` (``"add"``, ``"iadd"``,
    ``"matmul"``, ...), of a comparison (``"lt"``, ``"eq"``, ...) or ``"neg"`` to a function
    of its operands that computes it, and ``"getattr"`` to ``getattr(o, name)`` for the
    loads whose ids are in ``attribute_loads`` (see ``plain_attribute_loads``).
    """
    handlers = dict(handlers)
    if not handlers:
        return items
    getitem, setitem, iterable = handlers.get("getitem"), handlers.get("setitem"), handlers.get("iterable")
    attribute = handlers.get("getattr") if attribute_loads else None
    neg = handlers.get("neg")
    binary = [handlers.get(op.__name__) for op in BINARY_OPS]
    compare = [handlers.get(op.__name__) for op in COMPARE_OPS]
    out = []
    for item in items:
        name = item.name if isinstance(item, Instr) else None
        loc = item.location if name else None
        if name == "BINARY_OP" and binary[int(item.arg)] is not None:
            out += emit.direct_call(binary[int(item.arg)], 2, loc)
        elif name == "COMPARE_OP" and compare[int(item.arg) & 15] is not None:
            out += emit.direct_call(compare[int(item.arg) & 15], 2, loc)
            if int(item.arg) & 16:  # 3.13: the result is a branch condition and must be a bool
                out.append(I("TO_BOOL", loc=loc))
        elif neg is not None and name == "UNARY_NEGATIVE":
            out += emit.direct_call(neg, 1, loc)
        elif getitem is not None and name == "BINARY_SUBSCR":
            out += emit.direct_call(getitem, 2, loc)
        elif getitem is not None and name == "BINARY_SLICE":
            out += [I("BUILD_SLICE", 2, loc)] + emit.direct_call(getitem, 2, loc)
        elif setitem is not None and name == "STORE_SUBSCR":
            out += emit.direct_call(setitem, 3, loc) + [I("POP_TOP", loc=loc)]
        elif setitem is not None and name == "STORE_SLICE":
            # [v, o, start, stop] -> [v, o, slice]
            out += [I("BUILD_SLICE", 2, loc)] + emit.direct_call(setitem, 3, loc) + [I("POP_TOP", loc=loc)]
        elif iterable is not None and name in _ITERATED:
            out += emit.direct_call(iterable, 1, loc) + [item]
        elif attribute is not None and name == "LOAD_ATTR" and id(item) in attribute_loads:
            attr = item.arg[1] if METHOD_BIT_ON_LOAD_ATTR else item.arg
            out += [I("LOAD_CONST", attr, loc)] + emit.direct_call(attribute, 2, loc)
        else:
            out.append(item)
    return out
