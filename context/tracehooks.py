"""The program's trace and profile functions see the program's frames, not the engine's.

A trace or profile function that the program installs while it runs under a context
(``sys.settrace``, ``sys.setprofile``: a debugger, the ``trace`` and ``profile`` modules,
``doctest``'s debugging, a test of the tracing machinery) is called by CPython for every
frame, the engine's own too: the entries that route a call, the rewriter at a function's
first call, the hooks of a context. Such a function is installed wrapped in a
``ProgramHook``, which passes on every event of the program's frames and none of the
engine's, and ``sys.gettrace()``/``sys.getprofile()`` called from the program give back the
program's own function.

A frame is the engine's when its code is (``resolve.is_engine_code``, and the ``bytecode``
package the rewriter uses), and so is a frame of code that does not run under the context
called from one (the standard library's ``contextlib`` or ``weakref`` working for the
engine); rewritten code is the program's wherever it is called from. The function itself
runs under the context current when CPython calls it, as the program's code it is (the
``profile`` module's dispatcher compares ``frame.f_back`` with the frames it saw called, and
reads it as the program's code reads it there: without the engine's frames); the local
trace function a trace function returns for a frame is the program's as given
(``frame.f_trace`` is it) and runs natively.

What stays visible (``docs/design.md``, known limits): natives called from a context's
frames (contexts that observe results call the callee from a frame of their own) give
their ``c_call`` events there, so they are left out with it; a function installed outside
a run, or from code that runs natively, sees the engine's frames as part of the program;
C-level tools (``cProfile``, coverage's C tracer, ``sys.monitoring`` callbacks) are not
wrapped.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import os
import sys
from _thread import _local as _thread_local
from types import BuiltinFunctionType, MethodDescriptorType

import bytecode

from .resolve import is_engine_code
from .stackview import user_frame
from .state import STATE, call_under
from .tracebacks import context_method_codes

_getprofile = sys.getprofile

_BYTECODE_DIR = os.path.dirname(os.path.abspath(bytecode.__file__)) + os.sep


def engine_frame(frame) -> bool:
    """Whether ``frame`` runs the engine's work (see the module's docstring)."""
    hooks = None
    while frame is not None:
        code = frame.f_code
        if STATE in code.co_consts:  # rewritten: the program's
            return False
        if is_engine_code(code) or code.co_filename.startswith(_BYTECODE_DIR):
            return True
        if hooks is None:
            hooks = context_method_codes()
        if id(code) in hooks:  # a context's own method (``overdub``, a hook)
            return True
        frame = frame.f_back
    return False


class ProgramHook:
    """A trace or profile function of the program, called for the program's frames only."""

    __slots__ = ("hook", "_local")

    def __init__(self, hook):
        self.hook = hook
        self._local = _thread_local()  # per thread: ``busy`` (in the function), ``quiet`` (see ``unreported``)

    def __call__(self, frame, event, arg):
        if engine_frame(frame) or getattr(self._local, "busy", False):
            return None  # (for a trace function's "call": no local tracing in that frame)
        return self._deliver(frame, event, arg)

    def _deliver(self, frame, event, arg):
        local = self._local
        local.busy = True  # its own calls report nothing, as CPython reports none while it runs
        try:
            act = STATE.act
            if act is None:  # (an event after the runs ended)
                return self.hook(frame, event, arg)
            return call_under(act, self.hook, (frame, event, arg), {}, recurse=True)
        finally:
            local.busy = False

    def report(self, frame, event, arg):
        """Give the function an event CPython did not (see ``reported_call``)."""
        if not getattr(self._local, "busy", False):
            self._deliver(frame, event, arg)

    def __repr__(self):
        return "<ProgramHook of %r>" % (self.hook,)


# the natives whose calls a profile function is told of (``c_call``), as CPython tells it
_REPORTED = (BuiltinFunctionType, MethodDescriptorType)


def reported_call(f, call, *args):
    """``call(*args)``, which calls native ``f`` for the program from one of the engine's frames:
    a profile function of the program is told of it as natively, at the program's frame
    (``c_call``, then ``c_return`` or ``c_exception``)."""
    profiler = _getprofile()
    if type(profiler) is not ProgramHook or type(f) not in _REPORTED:
        return call(*args)
    local = profiler._local
    if getattr(local, "quiet", False):  # a native called back by a native (see ``unreported``)
        local.quiet = False
        return call(*args)
    frame = user_frame()
    profiler.report(frame, "c_call", f)
    try:
        out = call(*args)
    except BaseException:
        if _getprofile() is profiler:
            profiler.report(frame, "c_exception", f)
        raise
    if _getprofile() is profiler:  # (not when this call replaced it)
        profiler.report(frame, "c_return", f)
    return out


def apply(f, args, kwargs):
    """``f(*args, **kwargs)`` (a ``call`` for ``reported_call``)."""
    return f(*args, **kwargs)


def unreported(f, call, *args):
    """``call(*args)``, which calls ``f``, a callback a native was given: natively a native
    calling a native is told to no profile function."""
    profiler = _getprofile()
    if type(profiler) is not ProgramHook or type(f) not in _REPORTED:
        return call(*args)
    local = profiler._local
    local.quiet = True
    try:
        return call(*args)
    finally:
        local.quiet = False


def run_special(handler, act, f, args, kwargs):
    """``handler(act, f, args, kwargs)``: a native the engine calls on the program's behalf, from
    its own frame, told to a profile function of the program as natively."""
    if _getprofile() is None:
        return handler(act, f, args, kwargs)
    return reported_call(f, handler, act, f, args, kwargs)


def _setter(native):
    def install(act, f, args, kwargs):
        if len(args) == 1 and not kwargs and args[0] is not None and callable(args[0]):
            hook = args[0]
            return native(hook if type(hook) is ProgramHook else ProgramHook(hook))
        return f(*args, **kwargs)  # (None, or what the native refuses)

    return install


def _program_hook(act, f, args, kwargs):
    """``sys.gettrace()``/``sys.getprofile()``: the program's own function, not its wrapper."""
    out = f(*args, **kwargs)
    return out.hook if type(out) is ProgramHook else out


# native -> handler (act, f, args, kwargs), as ``frames.FRAME_SENSITIVE``
HOOK_NATIVES = {
    sys.settrace: _setter(sys.settrace),
    sys.setprofile: _setter(sys.setprofile),
    sys.gettrace: _program_hook,
    sys.getprofile: _program_hook,
}
for _name in ("_settraceallthreads", "_setprofileallthreads"):  # 3.12+: threading.settrace_all_threads
    _native = getattr(sys, _name, None)
    if _native is not None:
        HOOK_NATIVES[_native] = _setter(_native)
