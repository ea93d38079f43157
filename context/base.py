"""The ``Context`` base class: hooks, the per-call ``overdub`` method, primitives."""

from . import primitives
from .native import native_call
from .resolve import resolve
from .activation import entered
from .hooks import default_hook
from .state import STATE


class Context:
    """Base class of every context.

    Subclasses override any of ``prehook``, ``posthook``, ``overdub``, ``canrecurse``
    and ``fallback``, register primitives with ``@Ctx.primitive(fn)``, and set class
    attributes to ask the rewriter for more: ``passes`` (functions taking and returning
    a ``bytecode.Bytecode``), ``intercept_operators``, ``intercept_subscripts``,
    and ``intercept_attributes`` (operators, subscripts and attribute access seen as
    calls of ``operator.*``, ``getattr``, ``setattr``, ``delattr``). ``implicit_handlers``
    (a dict with keys ``getitem``, ``setitem``, ``iterable``, and names of binary
    operators such as ``iadd`` or ``neg``) names functions that rewritten code calls
    directly, without a hook, for subscripts, for what it iterates or unpacks, and for
    those operators.
    """

    passes = ()
    intercept_operators = False
    intercept_subscripts = False
    intercept_attributes = False
    implicit_handlers = None
    native_guard = None  # an object with passes(f) and call(f, args, kwargs, run=None): see context.tagging
    _hooks_enabled = True

    def __init__(self, metadata=None):
        self.metadata = metadata

    def __repr__(self):
        return "%s(metadata=%r)" % (type(self).__name__, self.metadata)

    @default_hook
    def prehook(self, f, /, *args, **kwargs):
        """Called before each call ``f(*args, **kwargs)`` made inside overdubbed code."""

    @default_hook
    def posthook(self, out, f, /, *args, **kwargs):
        """Called after each call made inside overdubbed code returns ``out``."""

    @default_hook
    def overdub(self, f, /, *args, **kwargs):
        """Run one call: the primitive for ``f`` if any, else ``recurse`` if ``canrecurse``, else ``fallback``."""
        act = STATE.act
        if act is not None and act.ctx is self:
            return act.default_run(f, args, kwargs)
        with entered(self) as act:
            return act.default_run(f, args, kwargs)

    @default_hook
    def canrecurse(self, f, /, *args, **kwargs):
        """Whether ``f`` runs Python code that can be rewritten (not native, not the engine's)."""
        return resolve(f, args, kwargs) is not None

    @default_hook
    def fallback(self, f, /, *args, **kwargs):
        """Call ``f`` natively (under the enclosing context, if this one is nested)."""
        with entered(self) as act:
            return native_call(act, f, args, kwargs)

    @classmethod
    def primitive(cls, fn, argtypes=None):
        """Decorator: register ``impl(ctx, *args, **kwargs)`` as this class's primitive for ``fn``.

        With ``argtypes`` (a tuple of types, one per positional argument), the primitive
        applies only to calls whose positional arguments are instances of them.
        Subclasses inherit primitives and can register their own for the same ``fn``.
        """

        def decorator(impl):
            primitives.register(cls, fn, argtypes, impl)
            return impl

        return decorator
