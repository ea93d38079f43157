"""What a context class asks of the rewriter; rewritten code is cached per config."""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from typing import NamedTuple


class RewriteConfig(NamedTuple):
    """Passes to run and which implicit operations to turn into calls."""

    passes: tuple = ()
    operators: bool = False
    subscripts: bool = False
    attributes: bool = False
    handlers: tuple = ()  # (name, function) pairs called directly for subscripts, iteration, operators
    callees_at_load: bool = True  # swap a callee right after it is pushed, where the analysis allows
    callee_as_argument: bool = False  # there, pass the callee to STATE.run instead of swapping it


def config_for(cls):
    """The rewrite configuration a context class asks for through its class attributes."""
    return RewriteConfig(
        tuple(getattr(cls, "passes", ()) or ()),
        bool(getattr(cls, "intercept_operators", False)),
        bool(getattr(cls, "intercept_subscripts", False)),
        bool(getattr(cls, "intercept_attributes", False)),
        tuple(sorted((getattr(cls, "implicit_handlers", None) or {}).items())),
    )
