"""The ``Context`` base class: hooks, the per-call ``overdub`` method, primitives."""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import functools
from sys import _getframe  # bound now: a program may delete or replace it (attrs' tests do)
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from . import primitives
from .activation import Activation, entered, run_outermost
from .depth import deeper_recursion
from .native import native_call
from .resolve import is_engine_code, resolve
from .stackview import is_rewritten
from .state import STATE, switch_to
from .stepping import stepped
from .tracebacks import strip_engine_frames

_P = ParamSpec("_P")
_R = TypeVar("_R")
_F = TypeVar("_F", bound=Callable[..., Any])

if TYPE_CHECKING:  # for type checkers: the decorator keeps the method's signature

    def default_hook(fn: _F) -> _F: ...

else:
    from .hooks import default_hook


class Context:
    """Base class of every context.

    Subclasses override any of ``prehook``, ``posthook``, ``overdub``, ``canrecurse``
    and ``fallback``, register primitives with ``@Ctx.primitive(fn)``, and set class
    attributes to ask the rewriter for more: ``passes`` (functions taking and returning
    a ``bytecode.Bytecode``), ``intercept_operators``, ``intercept_subscripts``,
    and ``intercept_attributes`` (operators, subscripts and attribute access seen as
    calls of ``operator.*``, ``getattr``, ``setattr``, ``delattr``). ``implicit_handlers``
    (a dict with keys ``getitem``, ``setitem``, ``iterable``, ``getattr``, and names of
    binary operators such as ``iadd`` or ``neg``) names functions that rewritten code calls
    directly, without a hook, for subscripts, for what it iterates or unpacks, for plain
    attribute loads (``o.name``, not the method loads of calls), and for those operators.
    """

    passes = ()
    intercept_operators = False
    intercept_subscripts = False
    intercept_attributes = False
    implicit_handlers = None
    native_guard = None  # an object with passes(f) and call(f, args, kwargs, run=None): see context.tagging
    _hooks_enabled = True

    def __init__(self, metadata: Any = None) -> None:
        self.metadata = metadata

    def __repr__(self):
        return "%s(metadata=%r)" % (type(self).__name__, self.metadata)

    # --- the forms: ``@ctx`` and ``with ctx:`` -----------------------------------------

    def __call__(self, fn: Callable[_P, _R]) -> Callable[_P, _R]:
        """Decorator: ``fn`` runs under this context whenever it is called (``overdub(self, fn, ...)``).

        For a generator function or a coroutine function, each step of the generator or
        coroutine it returns runs under the context, in one run from its first step to its
        end (see ``context.stepping``), and so for an async generator function."""
        if not callable(fn):
            raise TypeError("@%s: expected a function to decorate, got %s object %r"
                            % (type(self).__name__, type(fn).__name__, fn))
        ctx = self
        wrapper = stepped(ctx, fn)  # a generator, coroutine or async generator function: see ``stepping``
        if wrapper is not None:
            return wrapper

        @functools.wraps(fn)
        def under_context(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            try:
                return run_outermost(ctx, fn, args, kwargs, _getframe(1))
            except BaseException as exc:
                strip_engine_frames(exc)
                raise

        return under_context

    def __enter__(self):
        """``with ctx:`` inside code that runs under a context: the block's calls run under ``ctx``.

        CPython cannot change the code of a frame that is already running, so in code
        that runs natively (a script's top level, a function called outside any context)
        the block's calls could not be rerouted: that raises at once, naming the forms
        that work there (``@ctx``, ``overdub(ctx, f)``).
        """
        frame = _getframe(1)
        while frame is not None and is_engine_code(frame.f_code):  # rewritten code enters through helpers
            frame = frame.f_back
        act = STATE.act
        if act is None or frame is None or not is_rewritten(frame.f_code):
            raise TypeError(
                "with %s: this block runs natively (CPython cannot reroute the calls of a frame that is "
                "already running), so nothing in it would run under the context; decorate the function "
                "instead (@ctx def main(): ...), call context.overdub(ctx, main), or use the command line "
                "(python -m context ...). Inside a function running under a context, 'with ctx:' works."
                % type(self).__name__
            )
        new = Activation(self, act, frame)
        recursion = deeper_recursion(new)
        previous = switch_to(new)
        try:
            recursion.__enter__()
        except BaseException:
            new.finish()
            switch_to(previous)
            raise
        _blocks(self).append((new, previous, recursion))
        return self

    def __exit__(self, *exc_info):
        blocks = _blocks(self)
        new, previous, recursion = blocks.pop()
        if not blocks:
            del _block_stacks.by_context[id(self)]
        resumed_elsewhere = STATE.act is not new
        try:
            recursion.__exit__(*exc_info)
        finally:
            new.finish()
            if not resumed_elsewhere:
                switch_to(previous)
        if resumed_elsewhere and exc_info[0] is not GeneratorExit:  # (not a generator being closed)
            raise RuntimeError(
                "with %s: the block's frame was suspended (at a yield or an await) and resumed under "
                "another context, so the calls it made after that did not run under this one. A with "
                "block of a context must not span an await (other tasks run meanwhile), nor a yield of "
                "a generator resumed from code running under another context or thread: keep the await "
                "or yield outside the block, or run the block's work with context.overdub(ctx, f)"
                % type(self).__name__)
        return False

    @default_hook
    def prehook(self, f: Callable[..., Any], /, *args: Any, **kwargs: Any) -> None:
        """Called before each call ``f(*args, **kwargs)`` made inside overdubbed code."""

    @default_hook
    def posthook(self, out: Any, f: Callable[..., Any], /, *args: Any, **kwargs: Any) -> None:
        """Called after each call made inside overdubbed code returns ``out``."""

    @default_hook
    def overdub(self, f: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        """Run one call: the primitive for ``f`` if any, else ``recurse`` if ``canrecurse``, else ``fallback``."""
        act = STATE.act
        if act is not None and act.ctx is self:
            return act.default_run(f, args, kwargs)
        with entered(self) as act:
            return act.default_run(f, args, kwargs)

    @default_hook
    def canrecurse(self, f: Callable[..., Any], /, *args: Any, **kwargs: Any) -> bool:
        """Whether ``f`` runs Python code that can be rewritten (not native, not the engine's)."""
        return resolve(f, args, kwargs) is not None

    @default_hook
    def fallback(self, f: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        """Call ``f`` natively (under the enclosing context, if this one is nested)."""
        with entered(self) as act:
            return native_call(act, f, args, kwargs)

    @classmethod
    def primitive(cls, fn: Callable[..., Any],
                  argtypes: tuple[type, ...] | None = None) -> Callable[[_F], _F]:
        """Decorator: register ``impl(ctx, *args, **kwargs)`` as this class's primitive for ``fn``.

        With ``argtypes`` (a tuple of types, one per positional argument), the primitive
        applies only to calls whose positional arguments are instances of them.
        Subclasses inherit primitives and can register their own for the same ``fn``.
        """

        def decorator(impl: _F) -> _F:
            primitives.register(cls, fn, argtypes, impl)
            return impl

        return decorator


_block_stacks = threading.local()


def _blocks(ctx):
    """This thread's open ``with ctx:`` blocks of ``ctx``: ``(activation, previous, recursion)``."""
    stacks = getattr(_block_stacks, "by_context", None)
    if stacks is None:
        stacks = _block_stacks.by_context = {}
    return stacks.setdefault(id(ctx), [])
