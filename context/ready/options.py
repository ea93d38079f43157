"""The ``operators=`` option of the ready-made contexts: see ``a * b`` as a call of ``operator.mul``."""

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
