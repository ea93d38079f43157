"""The tagging system's error."""


class TaggingError(TypeError):
    """A tagged value reached a function that has no primitive for it."""
