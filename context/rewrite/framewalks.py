"""Frame walks: ``obj.f_back`` in rewritten code goes through a function given by the engine.

Code such as ``logging``'s caller lookup or ``traceback.extract_stack`` walks ``f_back``
from its own frame; under a context, the engine's frames and a context's own methods
(its ``overdub``, its hooks) lie between the user's frames. The function answers the
caller the user sees (see ``context.frames.visible_f_back``).
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from bytecode import Instr

from .features import METHOD_BIT_ON_LOAD_ATTR
from . import emit


_F_BACK = (False, "f_back") if METHOD_BIT_ON_LOAD_ATTR else "f_back"  # LOAD_ATTR's argument


def _loads_f_back(item):
    return isinstance(item, Instr) and item.name == "LOAD_ATTR" and item.arg == _F_BACK


def rewrite_frame_walks(items, f_back):
    """Replace each plain load of the attribute ``f_back`` with a direct call ``f_back(obj)``."""
    if not any(map(_loads_f_back, items)):
        return items
    out = []
    for item in items:
        if _loads_f_back(item):
            out += emit.direct_call(f_back, 1, item.location)
        else:
            out.append(item)
    return out
