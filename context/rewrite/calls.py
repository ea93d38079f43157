"""The call pass: route every call site through the current context.

Method loads are first made plain (``obj.m`` becomes a bound method with an explicit
NULL slot), so that every call site has the callee in a known slot. Then each call
becomes ``STATE.call(callee, args)``, ``STATE.call_kw(callee, args, names)`` or
``STATE.call_ex(callee, args, kwargs)``. ``with`` blocks enter and exit through the
context too.
"""

from bytecode import Instr

from .._support import PY311
from . import emit
from .withblocks import enter_async_with, enter_with

I = emit.I


def _is_none_load(instr):
    return isinstance(instr, Instr) and instr.name == "LOAD_CONST" and instr.arg is None


def _is_with_exit(recent):
    """The compiler's ``__exit__(None, None, None)`` call: three ``None`` loads not after PUSH_NULL."""
    if len(recent) < 3 or not all(_is_none_load(i) for i in recent[-3:]):
        return False
    before = recent[-4] if len(recent) >= 4 else None
    return not (isinstance(before, Instr) and before.name == "PUSH_NULL")


def _method_load(instr):
    """Plain-load replacement for a method-flavoured load, or None if ``instr`` is not one."""
    name, arg, loc = instr.name, instr.arg, instr.location
    if PY311 and name == "LOAD_METHOD":
        return [I("LOAD_ATTR", arg, loc)] + emit.push_null_under_top(loc)
    if not PY311 and name == "LOAD_ATTR" and arg[0]:
        return [I("LOAD_ATTR", (False, arg[1]), loc)] + emit.push_null_under_top(loc)
    if not PY311 and name == "LOAD_SUPER_ATTR" and arg[0]:
        return [I("LOAD_SUPER_ATTR", (False,) + tuple(arg[1:]), loc)] + emit.push_null_under_top(loc)
    return None


def _is_comprehension_call(recent):
    """``[function, iterator]`` called with CALL 0: a comprehension or generator expression."""
    return bool(recent) and recent[-1].name in ("GET_ITER", "GET_AITER")


def _with_enter(helper, loc):
    """``[mgr]`` -> ``[exit, enter_result]`` with ``__enter__`` called through the context."""
    return emit.call_const_with_top(helper, 1, loc) + [I("UNPACK_SEQUENCE", 2, loc)]


def rewrite_calls(items):
    """Return a new instruction list with every call routed through ``STATE``."""
    out = []
    recent = []  # original instructions, PRECALL and KW_NAMES left out
    kwnames = None
    for item in items:
        if not isinstance(item, Instr):
            out.append(item)
            continue
        name, arg, loc = item.name, item.arg, item.location
        if name == "PRECALL":
            continue
        if name == "KW_NAMES":
            kwnames = arg
            continue
        if name == "CALL":
            if kwnames is None and arg == 2 and _is_with_exit(recent):
                out.extend(emit.self_slot_call(2, loc))
            elif kwnames is None and arg == 0 and _is_comprehension_call(recent):
                out.extend(emit.self_slot_call(0, loc))
            elif kwnames is not None:
                out.append(I("BUILD_TUPLE", arg, loc))
                out.extend(emit.dispatch_tuple_call("call_kw", loc, (kwnames,)))
                kwnames = None
            else:
                out.append(I("BUILD_TUPLE", arg, loc))
                out.extend(emit.dispatch_tuple_call("call", loc))
        elif name == "CALL_KW":  # 3.13: names tuple on top of the arguments
            out.append(I("BUILD_TUPLE", arg + 1, loc))
            out.extend(emit.dispatch_tuple_call("call_kw", loc, (None,)))
        elif name == "CALL_FUNCTION_EX":
            if arg & 1:
                out.extend(emit.dispatch_ex_call(loc))
            else:
                out.extend(emit.dispatch_tuple_call("call", loc))
        elif name == "BEFORE_WITH":
            out.extend(_with_enter(enter_with, loc))
        elif name == "BEFORE_ASYNC_WITH":
            out.extend(_with_enter(enter_async_with, loc))
        else:
            replacement = _method_load(item)
            if replacement is None:
                out.append(item)
            else:
                out.extend(replacement)
        recent.append(item)
        if len(recent) > 4:
            del recent[0]
    return out
