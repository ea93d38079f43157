"""The call pass: route every call site through the current context.

Method loads are first made plain (``obj.m`` becomes a bound method with an explicit
NULL slot), so that every call site has the callee in a known slot. Where the stack
analysis proves a pushed callee is only called, it is swapped right after it is pushed
for ``STATE.callee(it)`` and the call stays as compiled; or, for contexts whose config
asks for it (``callee_as_argument``), ``STATE.run`` is pushed beneath it and called with
the callee as its first argument: ``f(x)`` becomes ``STATE.run(f, x)``. Every other call
asks ``STATE.enter(callee, args)`` (``enter_kw``, ``enter_ex``) what to call, then calls it.
``with`` blocks enter and exit through the context too.
"""

from bytecode import Instr

from .._support import PY311
from ..errors import RewriteError
from ..tracebacks import strip_engine_frames
from . import emit
from .stackflow import CallSites
from .withblocks import enter_async_with, enter_with, exit_with_exception

I = emit.I


def _method_load(instr):
    """Plain-load replacement for a method-flavoured load, or None if ``instr`` is not one."""
    name, arg, loc = instr.name, instr.arg, instr.location
    if PY311 and name == "LOAD_METHOD":
        return emit.push_null_beneath(1, [I("LOAD_ATTR", arg, loc)], loc)
    if not PY311 and name == "LOAD_ATTR" and arg[0]:
        return emit.push_null_beneath(1, [I("LOAD_ATTR", (False, arg[1]), loc)], loc)
    if not PY311 and name == "LOAD_SUPER_ATTR" and arg[0]:
        return emit.push_null_beneath(3, [I("LOAD_SUPER_ATTR", (False,) + tuple(arg[1:]), loc)], loc)
    return None


def _unexpected(item):
    return RewriteError(
        "call instruction %s (line %s) has an object in its NULL slot; this form is not supported"
        % (item.name, item.lineno)
    )


def _with_enter(helper, loc):
    """``[mgr]`` -> ``[exit, enter_result]`` with ``__enter__`` called through the context."""
    return emit.call_const_with_top(helper, 1, loc) + [I("UNPACK_SEQUENCE", 2, loc)]


def rewrite_calls(items, callees_at_load=True, callee_as_argument=False):
    """Return a new instruction list with every call routed through ``STATE``.

    ``callees_at_load``: handle a callee where it is pushed, where the analysis allows;
    ``callee_as_argument``: there, pass it to ``STATE.run`` rather than swap it.
    """
    plain = []
    for item in items:
        replacement = _method_load(item) if isinstance(item, Instr) else None
        if replacement is None:
            plain.append(item)
        else:
            plain.extend(replacement)
    sites = CallSites(plain)
    direct_calls = sites.direct_calls if callees_at_load else set()
    direct_producers = sites.direct_producers if callees_at_load else set()
    as_argument = sites.argument_producers if callees_at_load and callee_as_argument else set()
    argument_calls = sites.argument_calls if as_argument else set()
    null_swaps = sites.null_swaps if as_argument else set()
    out = []
    kwnames = None
    for index, item in enumerate(plain):
        if not isinstance(item, Instr):
            out.append(item)
            continue
        _rewrite_one(item, out, sites, direct_calls, argument_calls, kwnames)
        if item.name == "KW_NAMES":
            kwnames = item.arg
        elif item.name in _CALLS:
            kwnames = None
        if index in as_argument:
            out.extend(emit.run_beneath_callee(item))
        elif index in direct_producers:
            out.extend(emit.callee_through_context(item))
        elif index in null_swaps:  # [run, c, NULL] -> [run, NULL, c]
            out.append(I("SWAP", 2, item.location))
    return out


_CALLS = ("CALL", "CALL_KW", "CALL_FUNCTION_EX")


def _rewrite_one(item, out, sites, direct_calls, argument_calls, kwnames):
    """Append the rewritten form of one instruction to ``out``."""
    name, arg, loc = item.name, item.arg, item.location
    if name in ("PRECALL", "KW_NAMES"):
        return  # re-emitted with their CALL where it stays a call
    if id(item) in direct_calls:
        # the callee was already swapped for what the context says to call, or lies
        # beneath the arguments as the first argument of ``STATE.run``
        if kwnames is not None:
            out.append(I("KW_NAMES", kwnames, loc))
        if id(item) in argument_calls:
            arg += 1
            item = I(name, arg, loc)
        out.extend(emit.call(arg, loc) if name == "CALL" else [item])
        return
    if name == "CALL":
        if not sites.null_slot(item):
            if kwnames is not None:
                raise _unexpected(item)
            out.extend(emit.self_slot_call(arg, loc))
        elif kwnames is not None:
            out.append(I("BUILD_TUPLE", arg, loc))
            out.extend(emit.dispatch_tuple_call("enter_kw", loc, (kwnames,)))
        else:
            out.append(I("BUILD_TUPLE", arg, loc))
            out.extend(emit.enter_call(loc))
    elif name in ("CALL_KW", "CALL_FUNCTION_EX") and not sites.null_slot(item):
        raise _unexpected(item)
    elif name == "CALL_KW":  # 3.13: names tuple on top of the arguments
        out.append(I("BUILD_TUPLE", arg + 1, loc))
        out.extend(emit.dispatch_tuple_call("enter_kw", loc, (None,)))
    elif name == "CALL_FUNCTION_EX":
        if not arg & 1:
            out.append(I("BUILD_MAP", 0, loc))  # not a constant: code holding a dict can't be hashed
        out.extend(emit.dispatch_ex_call(loc))
    elif name == "BEFORE_WITH":
        out.extend(_with_enter(enter_with, loc))
    elif name == "PUSH_EXC_INFO":  # entering an except block: hide engine frames from the handler
        out += [item, I("COPY", 1, loc)]
        out.extend(emit.call_const_with_top(strip_engine_frames, 1, loc))
        out.append(I("POP_TOP", loc=loc))
    elif name == "WITH_EXCEPT_START":  # [exit, lasti, prev_exc, exc] -> push exit(type, exc, tb)
        out += [I("COPY", 4, loc), I("COPY", 2, loc)]
        out.extend(emit.call_const_with_top(exit_with_exception, 2, loc))
    elif name == "BEFORE_ASYNC_WITH":
        out.extend(_with_enter(enter_async_with, loc))
    else:
        out.append(item)
