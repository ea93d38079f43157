"""Options shared by the ready-made contexts: ``operators=`` (see ``a * b`` as a call) and ``max_depth=``."""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import weakref

_variants = weakref.WeakKeyDictionary()  # context class -> its subclass that intercepts operators


def operators_variant(cls):
    """A subclass of ``cls`` (same name) that sees operators as calls of ``operator.*``."""
    variant = _variants.get(cls)
    if variant is None:
        variant = _variants[cls] = type(cls.__name__, (cls,), {"intercept_operators": True, "__module__": cls.__module__})
    return variant


class OperatorsOption:
    """Mixin for a context class: ``Cls(..., operators=True)`` makes an instance of ``operators_variant(Cls)``."""

    def __new__(cls, *args, operators=False, **kwargs):
        if operators and not cls.intercept_operators:
            cls = operators_variant(cls)
        return super().__new__(cls)


def check_max_depth(max_depth, who):
    """``max_depth`` if it is None or an int >= 0, else a ValueError naming ``who``."""
    if max_depth is not None and (type(max_depth) is not int or max_depth < 0):
        raise ValueError("%s: max_depth must be None or an int >= 0 (0 shows only the top call), got %r"
                         % (who, max_depth))
    return max_depth
