"""Keeping the engine's own frames out of the tracebacks users see."""

from . import resolve


def strip_engine_frames(exc):
    """Unlink the engine's frames from ``exc``'s traceback (the first entry stays)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        nxt = tb.tb_next
        if resolve.is_engine_code(nxt.tb_frame.f_code) and nxt.tb_next is not None:
            tb.tb_next = nxt.tb_next
        else:
            tb = nxt
