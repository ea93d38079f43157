"""Small instruction sequences, spelled for the running CPython version.

Stack layouts before a call: 3.11/3.12 ``[NULL, callable, args...]``,
3.13 ``[callable, NULL, args...]``.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import dis

from bytecode import UNSET, Instr

from .features import DIRECTIONLESS_JUMPS, HAS_PRECALL, METHOD_BIT_ON_LOAD_ATTR, NULL_AFTER_CALLABLE
from ..state import STATE


_NOARG = object()
JUMP_IF_NONE = "POP_JUMP_IF_NONE" if DIRECTIONLESS_JUMPS else "POP_JUMP_FORWARD_IF_NONE"


_OPMAP = dis.opmap
_trusted = getattr(Instr, "_from_trusted", None)  # bytecode >= 0.19: no argument checks


def I(name, arg=_NOARG, loc=None):
    """One instruction. Its argument is not checked here: ``codec.encode`` (or the bytecode
    package, where the context has passes of its own) refuses one of the wrong kind."""
    if _trusted is not None:
        return _trusted(name, _OPMAP[name], UNSET if arg is _NOARG else arg, loc)
    if arg is _NOARG:
        return Instr(name, location=loc)
    return Instr(name, arg, location=loc)


def load_attr(name, loc):
    """Plain attribute load (no method bit)."""
    return I("LOAD_ATTR", (False, name) if METHOD_BIT_ON_LOAD_ATTR else name, loc)


def load_entry(name, loc):
    """Push the current context's call entry point ``STATE.<name>``."""
    return [I("LOAD_CONST", STATE, loc), load_attr(name, loc)]


def call(n, loc):
    """CALL with ``n`` arguments (3.11 wants a PRECALL first)."""
    if HAS_PRECALL:
        return [I("PRECALL", n, loc), I("CALL", n, loc)]
    return [I("CALL", n, loc)]


def callee_through_context(producer):
    """After ``producer`` pushed a callee: replace it with ``STATE.callee(it)``, what to call instead."""
    loc = producer.location
    swap_null = NULL_AFTER_CALLABLE and producer.name == "LOAD_GLOBAL" and producer.arg[0]  # pushed [callee, NULL]
    out = [I("SWAP", 2, loc)] if swap_null else []
    # [c, e] -> [e, c]: called in the method form, that is e(c)
    out += load_entry("callee", loc) + [I("SWAP", 2, loc)] + call(0, loc)
    if swap_null:
        out.append(I("SWAP", 2, loc))
    return out


def run_beneath_callee(producer):
    """After ``producer`` pushed a callee ``c``: push ``STATE.run`` beneath it.

    The call then passes ``c`` as the first argument (its count grows by one):
    3.11/3.12 ``[NULL, c]`` -> ``[NULL, run, c]``, or ``[c]`` -> ``[run, c]`` when the
    other slot comes next; 3.13 ``[c, NULL]`` (a global) -> ``[run, NULL, c]``, else
    ``[c]`` -> ``[run, c]`` (a NULL pushed next is then swapped beneath ``c``).
    """
    loc = producer.location
    if NULL_AFTER_CALLABLE and producer.name == "LOAD_GLOBAL" and producer.arg[0]:
        return load_entry("run", loc) + [I("SWAP", 3, loc)]
    return load_entry("run", loc) + [I("SWAP", 2, loc)]


def enter_call(loc):
    """``[<callee slots>, T]`` -> ``g = STATE.enter(callee, T)``, then ``g(*T)`` in this frame.

    The entry is called in the method form (both slots hold objects), so the argument
    tuple stays on the stack and the entry returns only what to call.
    """
    if NULL_AFTER_CALLABLE:
        # [c, N, T] -> [c, N, T, T, c, e] -> [c, N, T, e, c, T] -> CALL 1 -> [c, N, T, g]
        out = [I("COPY", 1, loc), I("COPY", 4, loc)] + load_entry("enter", loc) + [I("SWAP", 3, loc)]
        out += call(1, loc)
        out += [I("SWAP", 4, loc), I("POP_TOP", loc=loc)]  # [g, N, T]
    else:
        # [N, c, T] -> [N, T, c, T, e] -> [N, T, e, c, T] -> CALL 1 -> [N, T, g] -> [N, g, T]
        out = [I("SWAP", 2, loc), I("COPY", 2, loc)] + load_entry("enter", loc)
        out += [I("SWAP", 3, loc), I("SWAP", 2, loc)] + call(1, loc) + [I("SWAP", 2, loc)]
    return out + [I("CALL_FUNCTION_EX", 0, loc)]


def _then_call(loc):
    """After ``STATE.enter_kw``/``enter_ex`` returned ``(kwargs, g, args)``: call ``g`` here.

    The callee runs with the user's frame as its caller: no engine frame in between.
    """
    out = [I("UNPACK_SEQUENCE", 3, loc)]  # [args, g, kwargs]
    if NULL_AFTER_CALLABLE:
        out += [I("SWAP", 2, loc), I("SWAP", 3, loc), I("PUSH_NULL", loc=loc), I("SWAP", 3, loc)]
    else:
        out += [I("PUSH_NULL", loc=loc), I("SWAP", 4, loc), I("SWAP", 2, loc)]
    return out + [I("CALL_FUNCTION_EX", 1, loc)]


def dispatch_tuple_call(entry, loc, extra=()):
    """Turn ``[<callee slots>, T]`` (T the argument tuple) into a call through ``STATE.<entry>``.

    ``extra`` are constants appended as further arguments of the entry (keyword names).
    The entry returns what to call; the call itself then happens in this frame.
    """
    out = load_entry(entry, loc)
    if NULL_AFTER_CALLABLE:
        # [c, NULL, T, e] -> [e, NULL, T, c] -> [e, NULL, c, T]
        out += [I("SWAP", 4, loc), I("SWAP", 2, loc)]
    else:
        # [NULL, c, T, e] -> [NULL, e, T, c] -> [NULL, e, c, T]
        out += [I("SWAP", 3, loc), I("SWAP", 2, loc)]
    for const in extra:
        out.append(I("LOAD_CONST", const, loc))
    return out + call(2 + len(extra), loc) + _then_call(loc)


def dispatch_ex_call(loc):
    """``[<callee slots>, T, kwargs]`` -> a call through ``STATE.enter_ex(callee, T, kwargs)``."""
    out = load_entry("enter_ex", loc)
    if NULL_AFTER_CALLABLE:
        # [c, N, T, K, e] -> [e, N, T, K, c] -> [e, N, c, K, T] -> [e, N, c, T, K]
        out += [I("SWAP", 5, loc), I("SWAP", 3, loc), I("SWAP", 2, loc)]
    else:
        # [N, c, T, K, e] -> [N, e, T, K, c] -> [N, e, c, K, T] -> [N, e, c, T, K]
        out += [I("SWAP", 4, loc), I("SWAP", 3, loc), I("SWAP", 2, loc)]
    return out + call(3, loc) + _then_call(loc)


def self_slot_call(n, loc):
    """``[c, x, args...]`` where both slots hold objects: the call ``c(x, *args)``, dispatched.

    The compiler emits such calls for comprehensions (``[func, iterator]``) and for
    ``__exit__(None, None, None)`` at the end of ``with`` blocks.
    """
    out = [I("BUILD_TUPLE", n + 1, loc), I("PUSH_NULL", loc=loc)]
    out += [I("SWAP", 2, loc)] if NULL_AFTER_CALLABLE else [I("SWAP", 3, loc), I("SWAP", 2, loc)]
    return out + enter_call(loc)


def direct_call(fn, k, loc):
    """Call constant ``fn`` with the top ``k`` stack items, directly (not through the context).

    ``k`` is 1 or 2, or 3 for ``[v, o, key]``, which ``fn`` receives as ``(o, key, v)``.
    """
    out = [I("LOAD_CONST", fn, loc)]
    # [a1..ak, fn] -> [fn, a1..ak]: called in the method form, fn(a1, ..., ak)
    if k == 1:
        out.append(I("SWAP", 2, loc))
    elif k == 2:
        out += [I("SWAP", 3, loc), I("SWAP", 2, loc)]
    else:  # setitem: [v, o, key, fn] -> [fn, o, key, v]
        out.append(I("SWAP", 4, loc))
    return out + call(k - 1, loc)


def push_null_beneath(k, load, loc):
    """``[x1..xk]`` -> ``[NULL, load(x1..xk)]`` (3.11/3.12) or ``[load(x1..xk), NULL]`` (3.13).

    On 3.11/3.12 the NULL goes beneath the operands first, so that it already lies beneath
    the loaded callee, as the compiler's own calls have it.
    """
    if NULL_AFTER_CALLABLE:
        return load + [I("PUSH_NULL", loc=loc)]
    out = [I("PUSH_NULL", loc=loc)]
    for depth in range(k + 1, 1, -1):  # [x1..xk, N] -> [N, x1..xk]
        out.append(I("SWAP", depth, loc))
    return out + load


def push_null_under_top(loc):
    """``[x]`` -> the callee slots for calling ``x``."""
    if NULL_AFTER_CALLABLE:
        return [I("PUSH_NULL", loc=loc)]
    return [I("PUSH_NULL", loc=loc), I("SWAP", 2, loc)]


def call_const_with_top(fn, k, loc):
    """Call constant ``fn`` with the top ``k`` stack items as arguments, in order.

    Emitted as an ordinary call (CALL_FUNCTION_EX): from an earlier pass it is then
    routed through the context like any other call; from the call pass it runs natively.
    """
    out = [I("BUILD_TUPLE", k, loc), I("LOAD_CONST", fn, loc), I("SWAP", 2, loc)]
    # [T, fn] -> [fn, T]; now put NULL in its slot
    if NULL_AFTER_CALLABLE:
        out += [I("PUSH_NULL", loc=loc), I("SWAP", 2, loc)]  # [fn, NULL, T]
    else:
        out += [I("PUSH_NULL", loc=loc), I("SWAP", 3, loc), I("SWAP", 2, loc)]  # [NULL, fn, T]
    return out + [I("CALL_FUNCTION_EX", 0, loc)]

