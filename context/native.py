"""Running a callee natively on behalf of a context (the default ``fallback``).

Some natives need help to stay under the context: frame-sensitive builtins act on the
user's frame, ``__build_class__`` runs the class body rewritten, and callables handed
to higher-order natives are wrapped. Under a nested context, the native call itself
runs under the enclosing context, which then sees it as a call of its own.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import builtins
import gc
import sys
from functools import partial
from sys import getprofile as _getprofile
from types import FunctionType, ModuleType

from .callbacks import wrap_callbacks
from .resumed import resumed_arguments
from .frames import BY_NAME, FRAME_SENSITIVE, call_with_user_globals, makes_a_class
from .tracehooks import HOOK_NATIVES, apply as _apply, reported_call, run_special
from .watch import WATCHED, attribute_changed
from .depth import set_user_recursion_limit, user_recursion_limit
from .functions import drop_cyclic_entries
from .resolve import is_engine_callable
from .rewrite import rewrite_code
from .state import call_under


def _build_class(act, f, args, kwargs):
    if args and type(args[0]) is FunctionType:
        body = args[0]
        code = rewrite_code(body.__code__, act.config)
        body = FunctionType(code, body.__globals__, body.__name__, body.__defaults__, body.__closure__)
        args = (body,) + args[1:]
    return builtins.__build_class__(*args, **kwargs)


SPECIAL_NATIVES = {id(fn): handler for fn, handler in FRAME_SENSITIVE.items()}
SPECIAL_NATIVES.update({id(fn): handler for fn, handler in HOOK_NATIVES.items()})
SPECIAL_NATIVES[id(builtins.__build_class__)] = _build_class
_COPIES = []  # natives of modules imported afresh, given a handler (kept alive: their ids are keys)
COPY_NAMES = frozenset(name for _, name in BY_NAME)  # the only names ``special_copy`` can match


def special_copy(f):
    """Whether native ``f`` is a copy, in a module imported afresh, of a native with a handler
    (``frames.BY_NAME``: its module's and its own name); if so, the handler is registered."""
    owner = getattr(f, "__self__", None)
    if type(owner) is not ModuleType:
        return False
    handler = BY_NAME.get((getattr(owner, "__name__", None), getattr(f, "__name__", None)))
    if handler is None:
        return False
    SPECIAL_NATIVES[id(f)] = handler
    _COPIES.append(f)
    return True


def _attribute_change(act, f, args, kwargs):
    """``setattr``/``delattr``: a function's code, defaults or names changed are seen at its next
    call, a class's ``__init__`` or ``__new__`` at its next instantiation (see ``context.watch``)."""
    out = f(*args, **kwargs)
    if len(args) > 1 and type(args[1]) is str and args[1] in WATCHED:
        attribute_changed(args[0])
    return out


SPECIAL_NATIVES[id(builtins.setattr)] = _attribute_change
# The program reads and sets its own recursion limit, not the one raised for the contexts.
SPECIAL_NATIVES[id(sys.getrecursionlimit)] = lambda act, f, args, kwargs: (
    f(*args, **kwargs) if args or kwargs else user_recursion_limit())
SPECIAL_NATIVES[id(sys.setrecursionlimit)] = lambda act, f, args, kwargs: (
    set_user_recursion_limit(*args, **kwargs) if len(args) == 1 and not kwargs else f(*args, **kwargs))
SPECIAL_NATIVES[id(builtins.delattr)] = _attribute_change


def _collect(act, f, args, kwargs):
    """``gc.collect``: the copies that may keep their function alive are dropped first, so that
    it frees what it frees natively (see ``context.functions``)."""
    drop_cyclic_entries()
    return f(*args, **kwargs)


SPECIAL_NATIVES[id(gc.collect)] = _collect


def native_call(act, f, args, kwargs):
    """Call ``f`` natively for the activation ``act``."""
    try:
        handler = SPECIAL_NATIVES.get(id(f))
        if handler is not None:
            return run_special(handler, act, f, args, kwargs)
        if is_engine_callable(f):
            return f(*args, **kwargs)  # the engine's own functions act on the current context
        args, kwargs = wrap_callbacks(act, f, args, kwargs)
        if act.parent is not None and args:  # run under the enclosing context: its generators resume under act
            args = resumed_arguments(act, f, args)
        guard = act.guard
        if guard is not None and not guard.passes(f):
            if _getprofile() is not None and act.parent is None:  # (told here: the delegate does not tell)
                return reported_call(f, guard.call, f, args, kwargs, partial(_delegate_told, act, f))
            return guard.call(f, args, kwargs, partial(_delegate, act, f))
        return _delegate(act, f, *args, **kwargs)
    finally:
        f = args = kwargs = None  # (a frame a traceback keeps holds nothing of the program's: design.md)


def _delegate_told(act, f, /, *args, **kwargs):
    """``_delegate`` for a call already told to the program's profile function."""
    try:
        if len(args) >= 3 and makes_a_class(f, args):
            return call_with_user_globals(f, args, kwargs)
        return f(*args, **kwargs)
    finally:
        f = args = kwargs = None


def _delegate(act, f, /, *args, **kwargs):
    """Call native ``f``: under the enclosing context if ``act`` is nested, else directly (a
    class made with the module of the user's frame)."""
    try:
        if act.parent is None:
            if len(args) >= 3 and makes_a_class(f, args):
                return call_with_user_globals(f, args, kwargs)
            if _getprofile() is not None:  # (called from here: told to the program's profiler as natively)
                return reported_call(f, _apply, f, args, kwargs)
            return f(*args, **kwargs)
        return call_under(act.parent, f, args, kwargs)
    finally:
        f = args = kwargs = None

