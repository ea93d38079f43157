"""Keeping the engine's own frames out of the tracebacks users see."""

from . import resolve
from .state import STATE


def _context_method_codes():
    """The code of the hook methods of the contexts now running (a context's own frames)."""
    from .activation import HOOK_METHODS  # the activation module imports this one

    codes = set()
    act = STATE.act
    while act is not None:
        cls = type(act.ctx)
        for name in HOOK_METHODS:
            code = getattr(getattr(cls, name, None), "__code__", None)
            if code is not None:
                codes.add(code)
        act = act.parent
    return codes


def strip_engine_frames(exc):
    """Unlink the engine's frames, and the running contexts' hook methods, from ``exc``'s
    traceback; the first entry and the one where it was raised stay."""
    methods = None  # found when first needed: most tracebacks hold engine frames only

    def hidden(code):
        nonlocal methods
        if resolve.is_engine_code(code):
            return True
        if methods is None:
            methods = _context_method_codes()
        return code in methods

    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        nxt = tb.tb_next
        if nxt.tb_next is not None and hidden(nxt.tb_frame.f_code):
            tb.tb_next = nxt.tb_next
        else:
            tb = nxt
