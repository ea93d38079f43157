"""Tagging: values carrying per-context metadata, safe under nested contexts.

``enabletagging(ctx, f)`` gives a context a fresh tag; ``tag(x, ctx, meta)`` attaches
metadata; inside the context a tagged value behaves like its untagged self.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from . import operators as _operators  # noqa: F401  (gives Tagged its operators)
from . import numpy_protocols as _numpy_protocols  # noqa: F401  (and NumPy's override protocols)
from .contexts import TaggingContext, TaggingError, enabletagging, native_primitive
from .dispatch import dispatch, enclosing_call
from .values import NoMetadata, Tagged, hasmetadata, istagged, metadata, primal, tag, untag

__all__ = [
    "NoMetadata",
    "Tagged",
    "TaggingContext",
    "TaggingError",
    "dispatch",
    "enabletagging",
    "hasmetadata",
    "enclosing_call",
    "istagged",
    "metadata",
    "native_primitive",
    "primal",
    "tag",
    "untag",
]
