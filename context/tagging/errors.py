"""The tagging system's error."""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)


class TaggingError(TypeError):
    """A tagged value reached a function that has no primitive for it."""
