"""Keeping the engine's own frames out of the tracebacks users see."""

from . import resolve
from .state import STATE

_CONTEXT_METHODS = ("prehook", "posthook", "overdub", "canrecurse", "fallback")


def _context_method_codes():
    """The code of the hook methods of the contexts now running (a context's own frames)."""
    codes = set()
    act = STATE.act
    while act is not None:
        cls = type(act.ctx)
        for name in _CONTEXT_METHODS:
            code = getattr(getattr(cls, name, None), "__code__", None)
            if code is not None:
                codes.add(code)
        act = act.parent
    return codes


def strip_engine_frames(exc):
    """Unlink the engine's frames, and the running contexts' hook methods, from ``exc``'s
    traceback; the first entry and the one where it was raised stay."""
    tb = exc.__traceback__
    methods = None
    while tb is not None and tb.tb_next is not None:
        nxt = tb.tb_next
        code = nxt.tb_frame.f_code
        if nxt.tb_next is not None and not resolve.is_engine_code(code):
            if methods is None:
                methods = _context_method_codes()
            hidden = code in methods
        else:
            hidden = nxt.tb_next is not None
        if hidden:
            tb.tb_next = nxt.tb_next
        else:
            tb = nxt
