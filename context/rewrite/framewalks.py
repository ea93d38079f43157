"""Frame walks: ``obj.f_back`` in rewritten code goes through a function given by the engine.

Code such as ``logging``'s caller lookup or ``traceback.extract_stack`` walks ``f_back``
from its own frame; under a context, the engine's frames and a context's own methods
(its ``overdub``, its hooks) lie between the user's frames. The function answers the
caller the user sees (see ``context.frames.visible_f_back``).
"""

from bytecode import Instr

from .._support import PY311
from . import emit


def _loads_f_back(instr):
    if instr.name != "LOAD_ATTR":
        return False
    if PY311:
        return instr.arg == "f_back"
    return instr.arg == (False, "f_back")


def rewrite_frame_walks(items, f_back):
    """Replace each plain load of the attribute ``f_back`` with a direct call ``f_back(obj)``."""
    out = []
    for item in items:
        if isinstance(item, Instr) and _loads_f_back(item):
            out += emit.direct_call(f_back, 1, item.location)
        else:
            out.append(item)
    return out
