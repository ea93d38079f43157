"""Writes during a reverse-mode run: recorded, with the arrays the tape saved kept as they were.

Seen writes: subscript assignment and in-place operators in rewritten code (the handlers
below), and natives that write into an array argument (``out=``, ``np.copyto``,
``ndarray.fill`` and the other mutating methods: the guard, see ``handlers``). Before each,
the runs that saved the array's memory keep copies (``saves``); writes of values being
differentiated into arrays are recorded as versions of the buffer (``reverse_buffers``).
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from context.resolve import declare_engine_code
from context.tagging import Tagged

from . import reverse_buffers
from .handlers import build
from .traced import TracedArray
from .saves import before_write, forget, save, save_all  # noqa: F401 (the rules reach them through this module)

declare_engine_code(__file__)


def assign(target, key, value, newer_done=False) -> None:
    """``target[key] = value`` under reverse mode: the tape's saved arrays of ``target``'s memory are
    copied first, then the write is recorded (``reverse_buffers``; ``newer_done`` as there)."""
    before_write(target.value if isinstance(target, Tagged) else target)
    reverse_buffers.assign(target, key, value, newer_done)


HANDLERS, GUARD = build(reverse_buffers.has_version, reverse_buffers.lift, assign, read=reverse_buffers.read,
                        read_tagged=reverse_buffers.read_traced, held=reverse_buffers.any_version,
                        own_array=TracedArray)


def handlers():
    """The implicit handlers of the reverse-mode context."""
    return dict(HANDLERS)

