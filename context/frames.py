"""Frame-sensitive builtins, answered as if called from the user's own frame.

Under a context, a builtin such as ``locals()`` is called from the engine, not from the
user's function. These replacements find the user's frame (the nearest frame running
rewritten code) and act on it. Walks up the stack see the frames the user sees: the
engine's frames and a context's own methods (``overdub``, hooks) are skipped, both by
``sys._getframe(depth)`` and ``warnings.warn(stacklevel=...)`` and by ``frame.f_back``
read in rewritten code (see ``visible_f_back``).
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import builtins
import inspect
import sys
import typing
import warnings
from types import BuiltinFunctionType, FunctionType

from ._support import WARN_SKIP_FILE_PREFIXES
from .rewrite import rewrite_code
from .stackview import caller_frame, hidden_codes, frame_locals, user_frame, visible_f_back  # noqa: F401

def _locals(act, f, args, kwargs):
    return frame_locals(user_frame())


def _vars(act, f, args, kwargs):
    if args or kwargs:
        return vars(*args, **kwargs)
    return frame_locals(user_frame())


def _dir(act, f, args, kwargs):
    if args or kwargs:
        return dir(*args, **kwargs)
    scope = frame_locals(user_frame())
    names = list(scope if type(scope) is dict else scope.keys())  # (a mapping given to eval: its keys(), as natively)
    names.sort()
    return names


def _globals(act, f, args, kwargs):
    return user_frame().f_globals


def _getframe(act, f, args, kwargs):
    depth = args[0] if args else kwargs.get("depth", 0)
    frame = user_frame()
    hidden = hidden_codes(act) if depth else None
    for _ in range(depth):
        frame = caller_frame(frame, act, hidden)
        if frame is None:
            raise ValueError("call stack is not deep enough")
    return frame


def _getframemodulename(act, f, args, kwargs):
    frame = _getframe(act, f, args, kwargs)
    return frame.f_globals.get("__name__")


def _warn_arguments(message, category=None, stacklevel=1, source=None, *, skip_file_prefixes=()):
    return message, category, stacklevel, source, skip_file_prefixes


def _is_internal(frame):
    """The import machinery's frames, which ``warnings.warn`` passes over."""
    name = frame.f_code.co_filename
    return "importlib" in name and "_bootstrap" in name


def _skipped(frame, prefixes):
    """Whether ``skip_file_prefixes`` names the frame's file. (The native compares the
    prefixes with the file name less its last character: a whole name never matches.)"""
    return frame.f_code.co_filename[:-1].startswith(prefixes)


def _warn(act, f, args, kwargs):
    """``warnings.warn``: ``stacklevel`` counts the frames the user sees, as natively."""
    try:
        message, category, stacklevel, source, skip = _warn_arguments(*args, **kwargs)
    except TypeError:
        return f(*args, **kwargs)  # the native's own error
    if isinstance(message, Warning):
        category = type(message)
    elif category is None:
        category = UserWarning
    valid = (
        isinstance(category, type) and issubclass(category, Warning)
        and type(stacklevel) is int
        and type(skip) is tuple and all(type(p) is str for p in skip)
        and not (not WARN_SKIP_FILE_PREFIXES and "skip_file_prefixes" in kwargs)
    )
    if not valid:
        return f(*args, **kwargs)  # the native's own error
    if skip and stacklevel < 2:
        stacklevel = 2
    frame = user_frame()
    hidden = hidden_codes(act)
    external = stacklevel > 0 and not _is_internal(frame)
    for _ in range(stacklevel - 1):
        frame = caller_frame(frame, act, hidden)
        while external and frame is not None and (_is_internal(frame) or _skipped(frame, skip)):
            frame = caller_frame(frame, act, hidden)
        if frame is None:  # past the outermost frame: the native reports it as from sys
            return f(message, category, sys.maxsize, source)
    module_globals = frame.f_globals
    registry = module_globals.get("__warningregistry__")
    if registry is None:
        registry = module_globals["__warningregistry__"] = {}
    module = module_globals.get("__name__", "<string>")
    if module is not None and not isinstance(module, str):
        module = "<string>"  # None lets warn_explicit derive the module from the file name
    # the warnings module ``f`` belongs to (a copy imported afresh has filters of its own)
    warn_explicit = getattr(getattr(f, "__self__", None), "warn_explicit", None) or warnings.warn_explicit
    return warn_explicit(message, category, frame.f_code.co_filename, frame.f_lineno, module, registry,
                         None, source)


def _from_user_globals(fn, args, kwargs):
    """``fn(*args, **kwargs)`` called from a frame whose globals (and so whose function's
    ``__module__``) are the user's frame's (see ``call_with_user_globals``)."""
    try:
        return fn(*args, **kwargs)
    except BaseException as exc:
        exc.__traceback__ = exc.__traceback__.tb_next  # this frame's own entry
        raise


_FROM_USER_GLOBALS = _from_user_globals.__code__


def call_with_user_globals(fn, args, kwargs):
    """``fn(*args, **kwargs)`` from a function made with the user's frame's globals: a native
    that reads its caller's module (the ``__name__`` of the calling frame's globals, or its
    function's ``__module__``) sees the user's. Outside a context, a plain call."""
    try:
        frame = user_frame()
    except RuntimeError:  # not called from code running under a context
        return fn(*args, **kwargs)
    return FunctionType(_FROM_USER_GLOBALS, frame.f_globals)(fn, args, kwargs)


_TYPE_NEW = type.__new__


def makes_a_class(f, args):
    """Whether native ``f`` called with ``args`` (three or more) makes a class, which takes the
    calling frame's module as its ``__module__``: a metaclass called with ``(name, bases,
    namespace)``, or ``type.__new__(metaclass, name, bases, namespace)``."""
    if f is _TYPE_NEW:
        return len(args) == 4
    return len(args) == 3 and isinstance(f, type) and issubclass(f, type)


def _caller_module(act, f, args, kwargs):
    """A native that reads its caller's module (``TypeVar`` takes it as its ``__module__``)."""
    return call_with_user_globals(f, args, kwargs)


def _super(act, f, args, kwargs):
    if args or kwargs:
        return super(*args, **kwargs)
    frame = user_frame()
    code = frame.f_code
    if code.co_argcount == 0 and not code.co_flags & 0x4:
        raise RuntimeError("super(): no arguments")
    local = frame.f_locals
    first = code.co_varnames[0]
    if first not in local:  # (the native's checks, in its order)
        raise RuntimeError("super(): arg[0] deleted")
    if "__class__" not in code.co_freevars:
        raise RuntimeError("super(): __class__ cell not found")
    if "__class__" not in local:
        raise RuntimeError("super(): empty __class__ cell")
    cls = local["__class__"]
    if not isinstance(cls, type):
        raise RuntimeError("super(): __class__ is not a type (%s)" % type(cls).__name__)
    return super(cls, local[first])


def _compiled(act, source, mode, strip):
    if isinstance(source, (str, bytes, bytearray)):
        if strip:
            source = source.lstrip(b" \t" if not isinstance(source, str) else " \t")
        source = compile(source, "<string>", mode)
    if hasattr(source, "co_code"):
        return rewrite_code(source, act.config)
    return source


def _namespaces(globals_, locals_):
    if globals_ is None:
        frame = user_frame()
        globals_ = frame.f_globals
        if locals_ is None:
            locals_ = frame_locals(frame)
    elif locals_ is None:
        locals_ = globals_
    return globals_, locals_


def _evaluator(builtin, mode, strip):
    """``eval``/``exec``: namespaces default to the user's frame, and the code runs rewritten.
    A call that does not fit the native's signature (of this version) is left to the native,
    which raises its own error."""
    parameters = list(inspect.signature(builtin).parameters.values())
    positional = [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    by_keyword = {p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}

    def run(act, f, args, kwargs):
        if not 1 <= len(args) <= len(positional) or any(
                k not in by_keyword or (k in positional and positional.index(k) < len(args)) for k in kwargs):
            return builtin(*args, **kwargs)  # (raises)
        given = dict(zip(positional, args))
        given.update(kwargs)
        source = given.pop("source")
        globals_, locals_ = _namespaces(given.pop("globals", None), given.pop("locals", None))
        if type(globals_) is dict and "__builtins__" not in globals_:
            globals_["__builtins__"] = user_frame().f_builtins  # what the native puts there: its caller's
        return builtin(_compiled(act, source, mode, strip), globals_, locals_, **given)

    return run


_eval = _evaluator(builtins.eval, "eval", True)
_exec = _evaluator(builtins.exec, "exec", False)


FRAME_SENSITIVE = {
    builtins.locals: _locals,
    builtins.vars: _vars,
    builtins.dir: _dir,
    builtins.globals: _globals,
    builtins.eval: _eval,
    builtins.exec: _exec,
    builtins.super: _super,
    sys._getframe: _getframe,
    warnings.warn: _warn,
}
if hasattr(sys, "_getframemodulename"):
    FRAME_SENSITIVE[sys._getframemodulename] = _getframemodulename
# Natives (C types from 3.12) that name their caller's module as theirs; in Python before.
# A function made with globals that hold no ``__builtins__`` takes its caller's builtins.
FRAME_SENSITIVE[FunctionType] = _caller_module
for _name in ("TypeVar", "ParamSpec", "TypeVarTuple", "TypeAliasType"):
    _native = getattr(typing, _name, None)
    if isinstance(_native, type) and type(vars(_native).get("__new__")) is BuiltinFunctionType:  # in C
        FRAME_SENSITIVE[_native] = _caller_module

# Natives whose callbacks ask for their caller's module: typing's protocol checks let the
# ``abc`` module (whose ``register`` calls ``_abc_register``) call ``issubclass`` on protocols.
try:
    import _abc
except ImportError:  # another implementation: abc is written in Python there
    _abc = None
for _name in ("_abc_register", "_abc_instancecheck", "_abc_subclasscheck"):
    _native = getattr(_abc, _name, None)
    if _native is not None:
        FRAME_SENSITIVE[_native] = _caller_module

# Copies of these natives in modules imported afresh (``test.support.import_fresh_module``
# makes a second ``_warnings``) get the same handler: module name and function name.
BY_NAME = {("_warnings", "warn"): _warn}

# Those that act on the frame that calls them and no other.
CALLING_FRAME_ONLY = (builtins.locals, builtins.vars, builtins.dir, builtins.globals, builtins.super)
