"""A cache keyed by object identity that forgets an entry when its key object dies."""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import weakref


class IdentityCache:
    """Maps live objects (by identity) to values; entries vanish with their keys.

    ``values`` is a plain dict keyed by ``id(obj)``, so hot paths can call
    ``cache.values.get(id(obj))`` directly. A weak reference with a callback removes
    the entry before the key's memory (and so its id) can be reused.
    """

    __slots__ = ("values", "_refs", "__weakref__")

    def __init__(self):
        self.values = {}
        self._refs = {}

    def get(self, obj):
        return self.values.get(id(obj))

    def set(self, obj, value):
        key = id(obj)
        selfref = weakref.ref(self)

        def forget(_, key=key, selfref=selfref):
            cache = selfref()
            if cache is not None:
                cache.values.pop(key, None)
                cache._refs.pop(key, None)

        self._refs[key] = weakref.ref(obj, forget)
        self.values[key] = value

    def clear(self):
        self.values.clear()
        self._refs.clear()

    def __len__(self):
        return len(self.values)
