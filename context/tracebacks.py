"""Keeping the engine's own frames out of the tracebacks users see."""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import dis

from . import resolve
from .hooks import HOOK_METHODS
from .state import STATE


def context_method_codes():
    """The code of the hook methods of the contexts now running (a context's own frames)."""
    codes = set()
    act = STATE.act
    while act is not None:
        cls = type(act.ctx)
        for name in HOOK_METHODS:
            code = getattr(getattr(cls, name, None), "__code__", None)
            if code is not None:
                codes.add(id(code))  # by identity: hashing a code object hashes its constants
        act = act.parent
    return codes


_last = [0, 0, 0, -1]  # the exception stripped last, its first entry then: ids, the entry's code id and lasti
# what an engine frame does for the user: a call, or an operation of an implicit handler
# (``x[i]``, ``x + y``, ``iter(x)``, ``o.name`` run by ``getitem``, ``add``, ...)
_OPERATIONS = frozenset(dis.opmap[name] for name in (
    "CALL", "CALL_FUNCTION_EX", "CALL_KW", "PRECALL", "BINARY_SUBSCR", "STORE_SUBSCR",
    "DELETE_SUBSCR", "BINARY_SLICE", "STORE_SLICE", "BINARY_OP", "COMPARE_OP", "CONTAINS_OP",
    "UNARY_NEGATIVE", "UNARY_INVERT", "UNARY_NOT", "GET_ITER", "FOR_ITER", "UNPACK_SEQUENCE",
    "UNPACK_EX", "LOAD_ATTR", "LOAD_METHOD", "STORE_ATTR", "DELETE_ATTR", "TO_BOOL", "POP_JUMP_IF_TRUE",
    "POP_JUMP_IF_FALSE", "CALL_INTRINSIC_1",
) if name in dis.opmap)


def _raised_for_the_user(entry):
    """Whether the traceback entry is an engine frame where an operation it did on the
    user's behalf raised (a native it called, a subscript or operator of an implicit
    handler): natively, the user's frame that asked for it is where it was raised. An
    engine frame that raised an error of its own (``raise``) stays."""
    code = entry.tb_frame.f_code
    if not resolve.is_engine_code(code):
        return False
    lasti = entry.tb_lasti
    return 0 <= lasti < len(code.co_code) and code.co_code[lasti] in _OPERATIONS


def strip_engine_frames(exc):
    """``_strip`` that never raises: it runs as the program's ``except`` and ``finally`` blocks
    are entered, and an error of its own there would replace the program's exception and keep
    its handler from running; the traceback is then left as it is."""
    try:
        _strip(exc)
    except Exception:
        pass


def _strip(exc):
    """Unlink the engine's frames, and the running contexts' hook methods, from ``exc``'s
    traceback; the first entry and the one where it was raised stay.

    Linear in depth as an exception unwinds through handlers: the entries below the
    first one of the previous call for the same exception were already stripped, so
    the walk stops there; and kept entries are relinked top-down after being cut, so
    that ``tb_next``'s loop check walks one entry per link, except for the last.
    """
    tb = exc.__traceback__
    if tb is None or tb.tb_next is None:
        return
    stop = _last[1] if _last[0] == id(exc) and _last[1] != id(tb) else 0
    stop_code, stop_lasti = _last[2], _last[3]
    # (the ids may belong to objects that died since, reused by this exception and its
    # first entry: a first entry is never one already stripped below, so that is ignored)
    _last[:] = [id(exc), id(tb), id(tb.tb_frame.f_code), tb.tb_lasti]
    # (ids are checked with the entry's code and instruction: objects that died may have
    # left their ids to this exception and its entries)
    methods = None  # found when first needed: most tracebacks hold engine frames only
    kept, changed = [tb], False
    node = tb.tb_next
    while node is not None:
        below = node.tb_next
        code = node.tb_frame.f_code
        if below is not None and resolve.is_engine_code(code):
            changed = True
        elif below is not None and id(code) in (methods if methods is not None else (
                methods := context_method_codes())):
            changed = True
        else:
            kept.append(node)
        if id(node) == stop and id(code) == stop_code and node.tb_lasti == stop_lasti:  # stripped before
            node = below
            break
        node = below
    tail = node
    if tail is None and len(kept) > 1 and _raised_for_the_user(kept[-1]):
        kept.pop()  # natively, the frame that called the native is where it was raised
        changed = True
    if tail is None and type(exc) is RecursionError:
        # the limit was reached in the engine's or a hook's work for a call: natively the
        # frame that made the call is where it was raised
        while len(kept) > 1 and (resolve.is_engine_code(kept[-1].tb_frame.f_code) or id(
                kept[-1].tb_frame.f_code) in (methods if methods is not None else context_method_codes())):
            kept.pop()
            changed = True
    if not changed:
        return
    for entry in kept:
        entry.tb_next = None
    for upper, lower in zip(kept, kept[1:]):
        upper.tb_next = lower
    if tail is not None:
        kept[-1].tb_next = tail
