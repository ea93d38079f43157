"""The observing strategy: every call goes through ``act.call``/``call_ex``.

For contexts with hooks, primitives, their own ``overdub``, ``canrecurse`` or
``fallback``, and for every nested context. Which emitted call form reaches what:

* ``STATE.enter(f, args)`` returns a bound ``call`` for ``f``; the call site calls it
  with its own arguments; ``enter_kw``/``enter_ex`` return ``call_ex`` with ``(f, args,
  kwargs)`` as its arguments;
* ``STATE.callee(f)`` (a callee swapped where it is loaded) returns a bound
  ``call_ex`` for ``f``;
* ``STATE.run(f, *args, **kwargs)`` and ``STATE.call``/``call_ex`` (the engine's own
  calls, ``with`` blocks) run the call and return its result.

``call`` and ``call_ex`` are built by ``running.build_calls``.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from types import MethodType

from ..depth import FRAMES_PER_CALL

_EMPTY = {}


def build_observing(act):
    """Set ``act``'s call-site entry points for the observing strategy (after ``build_calls``)."""
    call, call_ex = act.call, act.call_ex

    def enter(f, args):
        return MethodType(_call_star, (call, f))

    def enter_ex(f, args, kwargs):
        return _EMPTY, call_ex, (f, args, kwargs)

    def callee(f):
        return MethodType(_call_through, (act, f))

    act.enter, act.enter_ex, act.callee = enter, enter_ex, callee
    act.frames_per_call = FRAMES_PER_CALL


def _call_star(bound, *args):
    """``call(f, args)`` for a call site: the call site's own arguments become ``args``."""
    try:
        call, f = bound
        return call(f, args)
    finally:
        bound = f = args = None  # (a frame a traceback keeps holds nothing of the program's: design.md)


def _call_through(bound, /, *args, **kwargs):
    """A call site's callee under a context that observes calls. The context is still running:
    no callee is swapped where it is loaded if a yield or await comes before its call."""
    try:
        act, f = bound
        return act.call_ex(f, args, kwargs)
    finally:
        bound = f = args = kwargs = None  # (a frame a traceback keeps holds nothing of the program's: design.md)
