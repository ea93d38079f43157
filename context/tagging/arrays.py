"""Tagged values stored in NumPy arrays: a side table keyed by element address.

Writing a tagged scalar into a float (or complex) array stores its primal in the
array and remembers the tagged value for that element's memory address, per root
buffer, so views see it too. Reading the element back returns the tagged value again,
as long as the array still holds what was written. Copies made by fancy or boolean
indexing carry the entries along. Native code handed such an array would read bare
floats, so the native guard refuses it (see ``guard``).
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import weakref

import numpy as np

from .values import Tagged, live

_shadows = {}  # id(root buffer) -> {address: (tagged value, stored primal)}


def root_of(a):
    """The ndarray that owns ``a``'s memory (``a`` itself, or the base of its views)."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


_watchers = {}  # (id(store), id(root)) -> a weak reference to root whose callback drops the store's entry


def per_buffer(store, root, create, factory=dict):
    """``store``'s dict for buffer ``root`` (made by ``factory(root)`` when ``create``; dropped when
    ``root`` dies), or None."""
    key = id(root)
    table = store.get(key)
    if table is None and create:
        table = store[key] = {} if factory is dict else factory(root)
        watch = (id(store), key)
        # a bare weak reference with a callback: a third of weakref.finalize's cost, which
        # counts here (every array result of differentiated code makes a table)
        _watchers[watch] = weakref.ref(root, lambda _, store=store, key=key, watch=watch: _dropped(store, key, watch))
    return table


def _dropped(store, key, watch):
    store.pop(key, None)
    _watchers.pop(watch, None)


def _addresses(a, key):
    """Memory addresses of the elements ``a[key]`` selects, shaped like ``a[key]``."""
    flat = np.arange(a.size).reshape(a.shape)[key]
    index = np.unravel_index(flat, a.shape)
    start = a.__array_interface__["data"][0]
    total = start
    for i, stride in zip(index, a.strides):
        total = total + np.asarray(i, dtype=np.int64) * stride
    return np.asarray(total, dtype=np.int64)


def _table(root, create):
    return per_buffer(_shadows, root, create)


def _same(a, b):
    return a == b or (a != a and b != b)


def holds_tagged(a):
    """Whether ndarray ``a`` shares memory holding live tagged values."""
    table = _shadows.get(id(root_of(a)))
    if not table:
        return False
    for address in [k for k, (t, _) in table.items() if not issubclass(type(live(t)), Tagged)]:
        del table[address]
    return bool(table)


def _rebuild(t, value):
    t = live(t)
    if not issubclass(type(t), Tagged):
        return value
    return type(t)(_rebuild(t.value, value), t.tag, t.meta)


def write(a, key, value):
    """``a[key] = value`` for an ndarray ``a``, remembering tagged values."""
    value = live(value)
    root = root_of(a)
    if not issubclass(type(value), Tagged):
        table = _table(root, False)
        a[key] = value
        if table:
            for address in _addresses(a, key).ravel().tolist():
                table.pop(address, None)
        return
    if a.dtype.kind not in "fc":
        raise TypeError(
            "writing a value tagged by %s into an array of dtype %s would drop its metadata; "
            "only float and complex arrays keep it" % (type(value.tag.context).__name__, a.dtype)
        )
    bare = value
    while issubclass(type(bare), Tagged):
        bare = bare.value
    a[key] = bare
    stored = np.asarray(a[key]).ravel().tolist()
    table = _table(root, True)
    for address, primal in zip(_addresses(a, key).ravel().tolist(), stored):
        table[address] = (value, primal)


def read(a, key):
    """``a[key]`` for an ndarray ``a``, with the tagged values written there."""
    out = a[key]
    table = _shadows.get(id(root_of(a)))
    if not table:
        return out
    if isinstance(out, np.ndarray):
        if root_of(out) is not root_of(a):  # a copy (fancy or boolean indexing): carry the entries
            found = [(i, table.get(addr)) for i, addr in enumerate(_addresses(a, key).ravel().tolist())]
            found = [(i, entry) for i, entry in found if entry is not None]
            if found:
                targets = _addresses(out, ...).ravel().tolist()
                flat = out.ravel().tolist()
                mine = _table(out, True)
                for i, (t, primal) in found:
                    if _same(flat[i], primal):
                        mine[targets[i]] = (t, primal)
        return out
    entry = table.get(int(_addresses(a, key)))
    if entry is None:
        return out
    t, primal = entry
    if not _same(out, primal) or not issubclass(type(live(t)), Tagged):
        return out
    return _rebuild(t, out)


def items(a):
    """The items of an ndarray holding tagged values, each read with ``read``, as a list."""
    return [read(a, i) for i in range(len(a))]
