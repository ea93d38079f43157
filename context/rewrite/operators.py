"""Optional passes that turn operators, subscripts and attribute access into calls.

``a * b`` becomes ``operator.mul(a, b)``, ``x[i] = v`` becomes ``operator.setitem(x, i, v)``,
``o.name`` becomes ``getattr(o, 'name')``, and so on. The calls they produce are ordinary
calls, so the call pass then routes them through the context.
"""

import operator

from bytecode import Instr

from .._support import PY311, PY313
from . import emit

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


def _operator(instr):
    name, arg, loc = instr.name, instr.arg, instr.location
    if name == "BINARY_OP":
        return _call(BINARY_OPS[int(arg)], 2, loc)
    if name == "COMPARE_OP":
        code = int(arg)
        out = _call(COMPARE_OPS[code & 15], 2, loc)
        if code & 16:  # 3.13: result is used as a branch condition and must be a bool
            out.append(I("TO_BOOL", loc=loc))
        return out
    if name in UNARY_OPS:
        return _call(UNARY_OPS[name], 1, loc)
    if name == "CALL_INTRINSIC_1" and int(arg) == _INTRINSIC_UNARY_POSITIVE:
        return _call(operator.pos, 1, loc)
    if name == "CONTAINS_OP":
        out = [I("SWAP", 2, loc)] + _call(operator.contains, 2, loc)
        if arg:
            if PY313:
                out.append(I("TO_BOOL", loc=loc))
            out.append(I("UNARY_NOT", loc=loc))
        return out
    return None


def _subscript(instr):
    name, loc = instr.name, instr.location
    if name == "BINARY_SUBSCR":
        return _call(operator.getitem, 2, loc)
    if name == "STORE_SUBSCR":  # [v, o, k] -> setitem(o, k, v)
        return [I("SWAP", 2, loc), I("SWAP", 3, loc)] + _call(operator.setitem, 3, loc, pop=True)
    if name == "DELETE_SUBSCR":
        return _call(operator.delitem, 2, loc, pop=True)
    if name == "BINARY_SLICE":
        return [I("BUILD_SLICE", 2, loc)] + _call(operator.getitem, 2, loc)
    if name == "STORE_SLICE":
        return [I("BUILD_SLICE", 2, loc), I("SWAP", 2, loc), I("SWAP", 3, loc)] + _call(
            operator.setitem, 3, loc, pop=True
        )
    return None


def _attribute_name(instr):
    return instr.arg if PY311 or instr.name != "LOAD_ATTR" else instr.arg[1]


def _attribute(instr):
    name, loc = instr.name, instr.location
    if name == "LOAD_ATTR" or (PY311 and name == "LOAD_METHOD"):
        attr = _attribute_name(instr)
        out = [I("LOAD_CONST", attr, loc)] + _call(getattr, 2, loc)
        is_method = (PY311 and name == "LOAD_METHOD") or (not PY311 and instr.arg[0])
        if is_method:
            out += emit.push_null_under_top(loc)
        return out
    if name == "STORE_ATTR":  # [v, o] -> setattr(o, name, v)
        return [I("SWAP", 2, loc), I("LOAD_CONST", instr.arg, loc), I("SWAP", 2, loc)] + _call(
            setattr, 3, loc, pop=True
        )
    if name == "DELETE_ATTR":
        return [I("LOAD_CONST", instr.arg, loc)] + _call(delattr, 2, loc, pop=True)
    return None


def rewrite_implicit(items, config):
    """Apply the operator, subscript and attribute passes that ``config`` asks for."""
    handlers = []
    if config.operators:
        handlers.append(_operator)
    if config.subscripts:
        handlers.append(_subscript)
    if config.attributes:
        handlers.append(_attribute)
    if not handlers:
        return items
    out = []
    for item in items:
        if isinstance(item, Instr):
            for handler in handlers:
                replacement = handler(item)
                if replacement is not None:
                    out.extend(replacement)
                    break
            else:
                out.append(item)
        else:
            out.append(item)
    return out


def rewrite_direct(items, handlers):
    """Replace subscripts, iteration and operators with direct calls of the context's handlers.

    ``handlers`` maps ``getitem(o, key)``, ``setitem(o, key, value)`` and ``iterable(x)``
    (given what is about to be iterated or unpacked, returns what to iterate) to functions,
    and may map the name of a binary operator in ``operator`` (``"add"``, ``"iadd"``,
    ``"matmul"``, ...) or ``"neg"`` to a function of its operands that computes it.
    """
    handlers = dict(handlers)
    if not handlers:
        return items
    getitem, setitem, iterable = handlers.get("getitem"), handlers.get("setitem"), handlers.get("iterable")
    neg = handlers.get("neg")
    binary = [handlers.get(op.__name__) for op in BINARY_OPS]
    out = []
    for item in items:
        name = item.name if isinstance(item, Instr) else None
        loc = item.location if name else None
        if name == "BINARY_OP" and binary[int(item.arg)] is not None:
            out += emit.direct_call(binary[int(item.arg)], 2, loc)
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
        elif iterable is not None and name in ("GET_ITER", "UNPACK_SEQUENCE", "UNPACK_EX"):
            out += emit.direct_call(iterable, 1, loc) + [item]
        else:
            out.append(item)
    return out
