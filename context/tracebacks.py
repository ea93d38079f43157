"""Keeping the engine's own frames out of the tracebacks users see."""

from .resolve import ENGINE_DIR


def strip_engine_frames(exc):
    """Unlink the engine's frames from ``exc``'s traceback (the first entry stays)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        nxt = tb.tb_next
        if nxt.tb_frame.f_code.co_filename.startswith(ENGINE_DIR) and nxt.tb_next is not None:
            tb.tb_next = nxt.tb_next
        else:
            tb = nxt
