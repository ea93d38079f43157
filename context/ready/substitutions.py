"""Which device function replaces which NumPy function: the table ``GPUCtx`` uses.

The table is built once per device namespace, by name: every public callable of
``numpy``, ``numpy.linalg``, ``numpy.fft`` and ``numpy.random`` (functions and ufuncs,
not classes or dtypes) whose name exists and is callable in the matching part of the
device namespace (``cupy.tanh``, ``cupy.linalg.norm``). NumPy functions the namespace
lacks are listed too: ``GPUCtx`` runs them on the host and reports them.

Users extend it with ``register_substitution(np_fn, device_fn_or_name)`` (every context
made afterwards) or ``GPUCtx(substitutions={np_fn: device_fn})`` (one context). A
context's own ``substitutions`` win over registered ones, which win over the table built
by name.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import warnings

import numpy as np

from .display import callee_name

# Where NumPy's public callables are looked up: (module, its path below the namespace).
SCANNED = (("numpy", ()), ("numpy.linalg", ("linalg",)), ("numpy.fft", ("fft",)), ("numpy.random", ("random",)))

# Array-creation routines go to the device even when every argument is a scalar:
# np.zeros(5) is a device array, np.exp(1.0) stays a host scalar. Every numpy.random
# function counts as one (its arrays come from the device's generator).
CREATION_ROUTINES = {
    "numpy." + name for name in (
        "empty", "empty_like", "eye", "identity", "ones", "ones_like", "zeros", "zeros_like", "full",
        "full_like", "array", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray", "copy",
        "frombuffer", "fromfile", "fromfunction", "fromiter", "fromstring", "loadtxt", "arange", "linspace",
        "logspace", "geomspace", "meshgrid", "diag", "diagflat", "tri", "tril", "triu", "vander", "indices",
    )
}

_registered = {}  # id(key) -> (key, device function or name, creation)


class Entry:
    """One callee the context handles: ``fn`` (the NumPy function), ``target`` (its counterpart,
    None for a NumPy function the device lacks), ``name`` (for reports), ``creation``,
    ``native`` (never recursed into: NumPy's own code) and ``operator`` (an operator whose
    operands may mix host and device arrays)."""

    __slots__ = ("fn", "target", "name", "creation", "native", "operator")

    def __init__(self, fn, target, name, creation, native, operator=False):
        self.fn, self.target, self.name, self.creation, self.native = fn, target, name, creation, native
        self.operator = operator

    def __repr__(self):
        return "<%s -> %s>" % (self.name, "host" if self.target is None else callee_name(self.target))


def _public_callables(module):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated aliases warn when read
        for attr in sorted(dir(module)):
            if attr.startswith("_"):
                continue
            try:
                obj = getattr(module, attr)
            except Exception:
                continue
            if callable(obj) and not isinstance(obj, type):
                yield attr, obj


def _lookup(namespace, path, attr):
    obj = namespace
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for part in tuple(path) + (attr,):
            try:
                obj = getattr(obj, part)
            except Exception:
                return None
    return obj if callable(obj) and not isinstance(obj, type) else None


_tables = {}  # id(names namespace), id(call namespace) -> (namespaces, {id(np fn): Entry})


def name_table(namespace, names_from=None):
    """``{id(np_fn): Entry}`` for ``namespace`` (built once per namespace, by name).

    ``names_from`` (default: ``namespace``) decides which NumPy functions have a
    counterpart; the counterpart itself is taken from ``namespace``.
    """
    names_from = namespace if names_from is None else names_from
    key = (id(names_from), id(namespace))
    cached = _tables.get(key)
    if cached is not None:
        return cached[1]
    import importlib

    table = {}
    for modname, path in SCANNED:
        module = importlib.import_module(modname)
        for attr, fn in _public_callables(module):
            if id(fn) in table:
                continue  # an alias (np.abs is np.absolute): the first name found is kept
            fname = getattr(fn, "__name__", attr)
            name = "%s.%s" % (modname, fname if getattr(module, fname, None) is fn else attr)
            has = _lookup(names_from, path, attr)
            if has is fn and names_from is not np:
                continue  # the namespace re-exports NumPy's own function (dtype helpers): left alone
            if has is None:
                target = None
            else:  # the host device's counterparts are NumPy's functions themselves
                target = fn if namespace is np else _lookup(namespace, path, attr)
            creation = modname == "numpy.random" or name in CREATION_ROUTINES or "numpy." + attr in CREATION_ROUTINES
            table[id(fn)] = Entry(fn, target, name, creation, True)
    _tables[key] = ((names_from, namespace), table)
    return table


def _check_key(fn, who):
    if not callable(fn):
        raise TypeError("%s: the key %r is not callable; keys are the NumPy functions to replace" % (who, fn))


def _check_target(target, fn, who):
    if not (isinstance(target, str) or callable(target)):
        raise TypeError(
            "%s: the replacement for %s must be a callable or the name of one in the device namespace, got %s %r"
            % (who, callee_name(fn), type(target).__name__, target)
        )


def _resolve_target(namespace, target, fn, who):
    _check_target(target, fn, who)
    if isinstance(target, str):
        found = _lookup(namespace, target.split(".")[:-1], target.split(".")[-1])
        if found is None:
            raise TypeError("%s: the device namespace %r has no callable %r (for %s)"
                            % (who, getattr(namespace, "__name__", namespace), target, callee_name(fn)))
        return found
    return target


def register_substitution(np_fn, device_fn_or_name, *, creation=False):
    """Replace ``np_fn`` by ``device_fn_or_name`` in every ``GPUCtx`` made from now on.

    ``device_fn_or_name`` is a callable, or a name looked up in each context's device
    namespace (``"cumsum"``, ``"linalg.norm"``; a namespace without it keeps its own
    table). ``creation=True`` sends calls to the device even when every argument is a
    scalar. A context's own ``substitutions=`` win over registered ones. ``np_fn`` may
    be any callable, not only NumPy's.
    """
    _check_key(np_fn, "register_substitution")
    _check_target(device_fn_or_name, np_fn, "register_substitution")
    _registered[id(np_fn)] = (np_fn, device_fn_or_name, bool(creation))


def unregister_substitution(np_fn):
    """Undo ``register_substitution(np_fn, ...)`` (for contexts made afterwards)."""
    _registered.pop(id(np_fn), None)


def _user_entry(base, fn, target, creation):
    old = base.get(id(fn))
    if old is not None:
        return Entry(fn, target, old.name, old.creation or creation, old.native)
    name = callee_name(fn)
    native = name.startswith("numpy.") or not hasattr(fn, "__code__")
    return Entry(fn, target, name, creation, native)


def context_table(device, substitutions=None):
    """The table of one context: built by name, then registered substitutions, then its own."""
    base = name_table(device.namespace, device.names_from)
    if substitutions is not None and not hasattr(substitutions, "items"):
        raise TypeError(
            "GPUCtx: substitutions must be a mapping {numpy_function: device_function}, got %s %r"
            % (type(substitutions).__name__, substitutions)
        )
    if not _registered and not substitutions:
        return base
    table = dict(base)
    layers = [list(_registered.values())]
    if substitutions:
        layers.append([(fn, target, False) for fn, target in substitutions.items()])
    for who, layer in zip(("register_substitution", "GPUCtx substitutions"), layers):
        for fn, target, creation in layer:
            _check_key(fn, who)
            if device.is_host:  # the host fallback runs NumPy's own: a device name need not exist here
                _check_target(target, fn, who)
                target = fn
            elif who == "register_substitution" and isinstance(target, str):
                # registered for some device library: a namespace without that name keeps its table
                target = _lookup(device.namespace, target.split(".")[:-1], target.split(".")[-1])
                if target is None:
                    continue
            else:
                target = _resolve_target(device.namespace, target, fn, who)
            table[id(fn)] = _user_entry(base, fn, target, creation)
    return table
