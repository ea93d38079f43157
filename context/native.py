"""Running a callee natively on behalf of a context (the default ``fallback``).

Some natives need help to stay under the context: frame-sensitive builtins act on the
user's frame, ``__build_class__`` runs the class body rewritten, and callables handed
to higher-order natives are wrapped. Under a nested context, the native call itself
runs under the enclosing context, which then sees it as a call of its own.
"""

import builtins
from functools import partial
from types import FunctionType

from .callbacks import wrap_callbacks
from .frames import FRAME_SENSITIVE
from .resolve import is_engine_callable
from .rewrite import rewrite_code
from .state import switch_to


def _build_class(act, f, args, kwargs):
    if args and type(args[0]) is FunctionType:
        body = args[0]
        code = rewrite_code(body.__code__, act.config)
        body = FunctionType(code, body.__globals__, body.__name__, body.__defaults__, body.__closure__)
        args = (body,) + args[1:]
    return builtins.__build_class__(*args, **kwargs)


SPECIAL_NATIVES = {id(fn): handler for fn, handler in FRAME_SENSITIVE.items()}
SPECIAL_NATIVES[id(builtins.__build_class__)] = _build_class


def native_call(act, f, args, kwargs):
    """Call ``f`` natively for the activation ``act``."""
    handler = SPECIAL_NATIVES.get(id(f))
    if handler is not None:
        return handler(act, f, args, kwargs)
    if is_engine_callable(f):
        return f(*args, **kwargs)  # the engine's own functions act on the current context
    args, kwargs = wrap_callbacks(act, f, args, kwargs)
    guard = act.guard
    if guard is not None and not guard.passes(f):
        return guard.call(f, args, kwargs, partial(_delegate, act, f))
    return _delegate(act, f, *args, **kwargs)


def _delegate(act, f, *args, **kwargs):
    """Call native ``f``: under the enclosing context if ``act`` is nested, else directly."""
    parent = act.parent
    if parent is not None and parent.alive:
        previous = switch_to(parent)
        try:
            return parent.call_ex(f, args, kwargs)
        finally:
            switch_to(previous)
    return f(*args, **kwargs)
