"""The methods a context class may override, and which ones a class does override."""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

HOOK_METHODS = ("prehook", "posthook", "overdub", "canrecurse", "fallback")
_DEFAULT = "_pycassette_default_hook"


def default_hook(fn):
    """Mark one of ``Context``'s own hook methods (a class that keeps it does not override it)."""
    setattr(fn, _DEFAULT, True)
    return fn


def overridden_hooks(cls):
    """The names of the hook methods that ``cls`` overrides."""
    return frozenset(n for n in HOOK_METHODS if not getattr(getattr(cls, n, None), _DEFAULT, False))
