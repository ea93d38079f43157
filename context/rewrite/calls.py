"""The call pass: route every call site through the current context.

Method loads are first made plain (``obj.m`` becomes a bound method with an explicit
NULL slot: ``METHOD_LOADS``), so that every call site has the callee in a known slot.
Where the stack analysis proves a pushed callee is only called, it is swapped right
after it is pushed for ``STATE.callee(it)`` and the call stays as compiled; or, for
contexts whose config asks for it (``callee_as_argument``), ``STATE.run`` is pushed
beneath it and called with the callee as its first argument: ``f(x)`` becomes
``STATE.run(f, x)``. Every other call asks ``STATE.enter(callee, args)`` (``enter_kw``,
``enter_ex``) what to call, then calls it. ``with`` blocks enter and exit through the
context too.

Instructions are rewritten by the handlers of ``HANDLERS``, a table built from
``ENTRIES``: each entry names the instruction, the feature of ``features`` it needs, and
its handler. Which call form reaches which ``STATE`` entry point:

* a call whose callee was swapped at its load (``direct_calls``): ``STATE.callee``, or
  ``STATE.run`` with the callee as first argument (``argument_calls``);
* ``CALL`` with NULL in its slot: ``STATE.enter``; with ``KW_NAMES`` before it (3.11,
  3.12): ``STATE.enter_kw(callee, args, names)``;
* ``CALL_KW`` (3.13): ``STATE.enter_kw(callee, args + (names,), None)``;
* ``CALL_FUNCTION_EX``: ``STATE.enter_ex(callee, args, kwargs)``;
* ``CALL`` with objects in both slots: ``STATE.enter(slot0, (slot1,) + args)``;
* ``BEFORE_WITH``/``BEFORE_ASYNC_WITH``/``WITH_EXCEPT_START``: the helpers of
  ``withblocks``, whose ``__enter__``/``__exit__`` calls go through ``STATE.call``.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from bytecode import Instr, Label

from ..errors import RewriteError
from ..tracebacks import strip_engine_frames
from . import emit
from .features import Entry, table
from .stackflow import CallSites
from .withblocks import enter_async_with, enter_with, exit_with_exception

I = emit.I


# ----------------------------------------------------------------------------- method loads


def _load_method(instr):  # 3.11: LOAD_METHOD name
    return emit.push_null_beneath(1, [I("LOAD_ATTR", instr.arg, instr.location)], instr.location)


def _load_attr_method(instr):  # 3.12+: LOAD_ATTR (True, name)
    if not instr.arg[0]:
        return None
    loc = instr.location
    return emit.push_null_beneath(1, [I("LOAD_ATTR", (False, instr.arg[1]), loc)], loc)


def _load_super_attr_method(instr):  # 3.12+: LOAD_SUPER_ATTR (True, zero-arg bit, name)
    arg = instr.arg
    if not arg[0]:
        return None
    loc = instr.location
    return emit.push_null_beneath(3, [I("LOAD_SUPER_ATTR", (False,) + tuple(arg[1:]), loc)], loc)


METHOD_LOAD_ENTRIES = (
    Entry("LOAD_METHOD", "LOAD_METHOD_INSTRUCTION", _load_method),
    Entry("LOAD_ATTR", "METHOD_BIT_ON_LOAD_ATTR", _load_attr_method),
    Entry("LOAD_SUPER_ATTR", "LOAD_SUPER_ATTR", _load_super_attr_method),
)
# name -> function(instr) giving the plain-load replacement, or None where the load is plain
METHOD_LOADS = table(*METHOD_LOAD_ENTRIES)


# ----------------------------------------------------------------------------- call sites


class _Pass:
    """What the handlers share while one instruction list is rewritten."""

    __slots__ = ("sites", "direct_calls", "argument_calls", "kwnames")

    def __init__(self, sites, direct_calls, argument_calls):
        self.sites = sites
        self.direct_calls = direct_calls
        self.argument_calls = argument_calls
        self.kwnames = None  # names of the pending KW_NAMES (3.11, 3.12)


def _unexpected(item):
    return RewriteError(
        "call instruction %s (line %s) has an object in its NULL slot; this form is not supported"
        % (item.name, item.lineno)
    )


def _direct(item, out, p, kwnames):
    """A call whose callee was swapped at its load, or lies beneath the arguments as the
    first argument of ``STATE.run``: stays an ordinary call."""
    name, arg, loc = item.name, item.arg, item.location
    if kwnames is not None:
        out.append(I("KW_NAMES", kwnames, loc))
    if id(item) in p.argument_calls:
        arg += 1
        item = I(name, arg, loc)
    out.extend(emit.call(arg, loc) if name == "CALL" else [item])


def _call(item, out, p):
    """``CALL``: ``STATE.enter`` (``enter_kw`` after ``KW_NAMES``), or both slots objects."""
    kwnames, p.kwnames = p.kwnames, None
    if id(item) in p.direct_calls:
        return _direct(item, out, p, kwnames)
    arg, loc = item.arg, item.location
    if not p.sites.null_slot(item):
        if kwnames is not None:
            raise _unexpected(item)
        out.extend(emit.self_slot_call(arg, loc))
    elif kwnames is not None:
        out.append(I("BUILD_TUPLE", arg, loc))
        out.extend(emit.dispatch_tuple_call("enter_kw", loc, (kwnames,)))
    else:
        out.append(I("BUILD_TUPLE", arg, loc))
        out.extend(emit.enter_call(loc))


def _done_directly(item, out, p):
    """For a call whose callee was handled where it was loaded: emit it as it is, True.
    Otherwise check that its NULL slot holds NULL, False."""
    kwnames, p.kwnames = p.kwnames, None
    if id(item) in p.direct_calls:
        _direct(item, out, p, kwnames)
        return True
    if not p.sites.null_slot(item):
        raise _unexpected(item)
    return False


def _call_kw(item, out, p):
    """``CALL_KW`` (3.13), names tuple on top of the arguments: ``STATE.enter_kw``."""
    if _done_directly(item, out, p):
        return
    loc = item.location
    out.append(I("BUILD_TUPLE", item.arg + 1, loc))
    out.extend(emit.dispatch_tuple_call("enter_kw", loc, (None,)))


def _call_ex(item, out, p):
    """``CALL_FUNCTION_EX``: ``STATE.enter_ex(callee, args, kwargs)``."""
    if _done_directly(item, out, p):
        return
    loc = item.location
    if not item.arg & 1:
        out.append(I("BUILD_MAP", 0, loc))  # not a constant: code holding a dict can't be hashed
    out.extend(emit.dispatch_ex_call(loc))


def _kw_names(item, out, p):
    """``KW_NAMES`` (3.11, 3.12): remembered, and re-emitted with its CALL where it stays a call."""
    p.kwnames = item.arg


def _drop(item, out, p):
    """``PRECALL`` (3.11): re-emitted with its CALL where it stays a call."""


def _with_enter(helper, loc):
    """``[mgr]`` -> ``[exit, enter_result]`` with ``__enter__`` called through the context."""
    return emit.call_const_with_top(helper, 1, loc) + [I("UNPACK_SEQUENCE", 2, loc)]


def _before_with(item, out, p):
    out.extend(_with_enter(enter_with, item.location))


def _before_async_with(item, out, p):
    out.extend(_with_enter(enter_async_with, item.location))


def _with_except_start(item, out, p):
    """``[exit, lasti, prev_exc, exc]`` -> push ``exit(type, exc, tb)`` through the context."""
    loc = item.location
    out += [I("COPY", 4, loc), I("COPY", 2, loc)]
    out.extend(emit.call_const_with_top(exit_with_exception, 2, loc))


def _push_exc_info(item, out, p):
    """Entering an except or finally block: hide engine frames from the handler.

    Only when the exception came from a frame below this one (``tb_next`` set): raised in
    this frame, its traceback holds no engine frame. That is also the case at the
    recursion limit, where the exception is the failed push of a callee's frame and a call
    of ``strip_engine_frames`` would fail the same way, replacing the exception and
    skipping the block (a ``finally`` body would not run). A deeper frame existed, so
    there is room for the call.
    """
    loc = item.location
    skip, none = Label(), Label()
    # [prev, exc] -> [prev, exc, tb]: None only for an exception no frame raised
    out += [item, I("COPY", 1, loc), emit.load_attr("__traceback__", loc), I("COPY", 1, loc),
            I(emit.JUMP_IF_NONE, none, loc), emit.load_attr("tb_next", loc), I(emit.JUMP_IF_NONE, skip, loc)]
    out += [I("COPY", 1, loc)]
    out.extend(emit.call_const_with_top(strip_engine_frames, 1, loc))
    out += [I("POP_TOP", loc=loc), I("JUMP_FORWARD", skip, loc), none, I("POP_TOP", loc=loc), skip]


ENTRIES = (
    Entry("PRECALL", "HAS_PRECALL", _drop),
    Entry("KW_NAMES", "KW_NAMES_INSTRUCTION", _kw_names),
    Entry("CALL", None, _call),
    Entry("CALL_KW", "CALL_KW_INSTRUCTION", _call_kw),
    Entry("CALL_FUNCTION_EX", None, _call_ex),
    Entry("BEFORE_WITH", None, _before_with),
    Entry("BEFORE_ASYNC_WITH", None, _before_async_with),
    Entry("WITH_EXCEPT_START", None, _with_except_start),
    Entry("PUSH_EXC_INFO", None, _push_exc_info),
)
# name -> function(instr, out, pass) appending the rewritten form; other instructions are kept
HANDLERS = table(*ENTRIES)


def rewrite_calls(items, callees_at_load=True, callee_as_argument=False):
    """Return a new instruction list with every call routed through ``STATE``.

    ``callees_at_load``: handle a callee where it is pushed, where the analysis allows;
    ``callee_as_argument``: there, pass it to ``STATE.run`` rather than swap it.
    """
    plain = []
    for item in items:
        load = METHOD_LOADS.get(item.name) if isinstance(item, Instr) else None
        replacement = load(item) if load is not None else None
        if replacement is None:
            plain.append(item)
        else:
            plain.extend(replacement)
    sites = CallSites(plain)
    direct_calls = sites.direct_calls if callees_at_load else set()
    direct_producers = sites.direct_producers if callees_at_load else set()
    as_argument, argument_calls, null_swaps = set(), set(), set()
    if callees_at_load and callee_as_argument:
        as_argument, argument_calls, null_swaps = sites.argument_form()
        if not as_argument:
            argument_calls, null_swaps = set(), set()
    p = _Pass(sites, direct_calls, argument_calls)
    after = as_argument or direct_producers or null_swaps
    handlers = HANDLERS
    out = []
    for index, item in enumerate(plain):
        if not isinstance(item, Instr):
            out.append(item)
            continue
        handler = handlers.get(item.name)
        if handler is None:
            out.append(item)
        else:
            handler(item, out, p)
        if after:
            if index in as_argument:
                out.extend(emit.run_beneath_callee(item))
            elif index in direct_producers:
                out.extend(emit.callee_through_context(item))
            elif index in null_swaps:  # [run, c, NULL] -> [run, NULL, c]
                out.append(I("SWAP", 2, item.location))
    return out
