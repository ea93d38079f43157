"""Primitive tables: per context class, keyed by callee, optionally limited by argument types."""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from functools import partial
from types import BuiltinMethodType, MethodType, ModuleType

from .weakcache import IdentityCache

_version = [0]


def register(cls, fn, argtypes, impl):
    """Record ``impl`` as ``cls``'s primitive for ``fn`` (newest registration wins)."""
    if not callable(fn):
        raise TypeError("primitive: the callee must be callable, got %r" % (fn,))
    if argtypes is not None:
        argtypes = tuple(argtypes)
        bad = [t for t in argtypes if not isinstance(t, (type, tuple))]
        if bad:
            raise TypeError("primitive: argtypes must be types (or tuples of types), got %r" % (bad,))
    if not callable(impl):
        raise TypeError("primitive: the implementation must be callable, got %r" % (impl,))
    own = cls.__dict__.get("_own_primitives")
    if own is None:
        own = {}
        type.__setattr__(cls, "_own_primitives", own)
    own.setdefault(id(fn), (fn, []))[1].insert(0, (argtypes, impl))
    _version[0] += 1


def version():
    """A number that changes whenever a primitive is registered."""
    return _version[0]


REGISTRATIONS = _version  # ``[version()]``, for code that reads it on every operation


_merged = IdentityCache()  # (a plain dict read: every tagged operation asks, and WeakKeyDictionary.get is Python code)
TABLES = _merged.values  # id(class) -> (``version()`` when merged, table): ``table_for``'s cache, for hot paths


def table_for(cls):
    """``{id(callee): [(argtypes, impl), ...]}`` for ``cls`` with inherited entries after its own; None if empty."""
    cached = _merged.values.get(id(cls))
    if cached is not None and cached[0] == _version[0]:
        return cached[1]
    table = {}
    for klass in cls.__mro__:
        own = klass.__dict__.get("_own_primitives")
        if own:
            for key, (_fn, entries) in own.items():
                table.setdefault(key, []).extend(entries)
    table = table or None
    _merged.set(cls, (_version[0], table))
    return table


def _matches(argtypes, args):
    if argtypes is None:
        return True
    if len(args) != len(argtypes):
        return False
    for value, kind in zip(args, argtypes):
        if not isinstance(value, kind):
            return False
    return True


def find(table, f, args):
    """``(impl, args)`` of the primitive for calling ``f(*args)``, or ``(None, args)``.

    A bound method also matches a primitive registered on its function, with ``self``
    as the first argument; so does a native's bound method (``np.add.at``), registered on
    its class's method descriptor (``np.ufunc.at``). Only a miss looks there: this is the
    path of calls that already carry a tagged value.
    """
    entries = table.get(id(f))
    if entries is None and type(f) is MethodType:
        entries = table.get(id(f.__func__))
        if entries is not None:
            args = (f.__self__,) + args
    elif entries is None and type(f) is BuiltinMethodType:  # np.add.at: a primitive for np.ufunc.at
        owner = f.__self__
        if owner is not None and type(owner) is not ModuleType:
            entries = table.get(id(getattr(type(owner), f.__name__, None)))
            if entries is not None:
                args = (owner,) + args
    if entries is not None:
        for argtypes, impl in entries:
            if argtypes is None or _matches(argtypes, args):
                return impl, args
    return None, args


def through_partial(table, f, args, kwargs):
    """``(f, args, kwargs)`` with a ``functools.partial`` whose function has primitives in
    ``table`` (``partial(np.sum, axis=0)``) unwrapped into the call it makes; anything else
    as it is."""
    g, a, k = f, args, kwargs
    while type(g) is partial:
        a = g.args + a
        k = {**g.keywords, **k} if g.keywords else k
        g = g.func
    if g is not f and (id(g) in table or (type(g) is MethodType and id(g.__func__) in table)):
        return g, a, k
    return f, args, kwargs


def has_partial_primitives(table, f):
    """Whether ``f`` is a ``functools.partial`` that ``through_partial`` unwraps."""
    return type(f) is partial and through_partial(table, f, (), {})[0] is not f
