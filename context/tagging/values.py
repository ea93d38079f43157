"""Tagged values, and the public functions that make and read them."""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import copy
from typing import Any

from ..base import Context
from .tags import Tag


class _NoMetadataType:
    """The marker ``metadata`` returns for a value that carries no metadata for a context."""

    __slots__ = ()
    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = object.__new__(cls)
        return cls._instance

    def __repr__(self):
        return "NoMetadata"

    def __bool__(self):
        return False

    def __reduce__(self):
        return (_NoMetadataType, ())


NoMetadata = _NoMetadataType()


class Tagged:
    """A value carrying a context's tag and metadata: ``Tagged(value, tag, meta)``.

    Inside its context it behaves like ``value``. ``value`` may itself be tagged by an
    enclosing context (the layers of nested contexts). Operators dispatch to the rules
    of the newest live tag among the operands; see ``context.tagging.dispatch``.
    """

    __slots__ = ("value", "tag", "meta")

    def __init__(self, value: Any, tag: Tag, meta: Any) -> None:
        if not tag.used:
            tag.mark_used()
        self.value = value
        self.tag = tag
        self.meta = meta

    def __repr__(self):
        return "%s(%r, tag=#%d, meta=%r)" % (type(self).__name__, self.value, self.tag.serial, self.meta)

    def __str__(self):
        return str(primal(self))

    def __format__(self, spec):
        return format(primal(self), spec)

    def __copy__(self):
        """A copy of the value with the same tag and metadata (``copy.copy``)."""
        return type(self)(copy.copy(self.value), self.tag, self.meta)

    def __deepcopy__(self, memo):
        """A deep copy of the value with the same tag and metadata: the tag (and through it the
        running context) is never copied, and the metadata is shared, as for any value a deep
        copy reaches that stands for something outside the copied structure."""
        return type(self)(copy.deepcopy(self.value, memo), self.tag, self.meta)

    def __bool__(self):
        return bool(primal(self))

    def __hash__(self):
        return hash(primal(self))


def tag_of(ctx, who):
    if not isinstance(ctx, Context):
        raise TypeError("%s: 'ctx' must be a context.Context instance, got %s" % (who, type(ctx).__name__))
    tag = getattr(ctx, "_tag", None)
    if tag is None:
        raise TypeError(
            "%s: %s has no tag; make a tagging context first: ctx = enabletagging(ctx, f)"
            % (who, type(ctx).__name__)
        )
    return tag


# Whether a value is tagged is read from its type, ``issubclass(type(x), Tagged)``, never
# with ``isinstance(x, Tagged)``: that reads ``x.__class__`` when ``x`` is not tagged,
# through a user-defined ``__getattribute__``, which native code would not call.


def is_tagged(x):
    """Whether ``x`` is a ``Tagged`` (read from its type only: no attribute of ``x`` is read)."""
    return issubclass(type(x), Tagged)


def live(x):
    """``x`` with layers whose context has finished removed (they count as their primal)."""
    while issubclass(type(x), Tagged) and x.tag.finished:
        x = x.value
    return x


def primal(x: Any) -> Any:
    """``x`` with every tag removed."""
    while issubclass(type(x), Tagged):
        x = x.value
    return x


def tag(x: Any, ctx: Context, meta: Any = NoMetadata) -> Tagged:
    """``x`` tagged for ``ctx`` (made by ``enabletagging``) with metadata ``meta``."""
    t = tag_of(ctx, "tag")
    t.mark_used()  # before the value exists (a ``tagged_type`` need not call ``Tagged.__init__``)
    return type(ctx).tagged_type(x, t, meta)


def untag(x: Any, ctx: Context) -> Any:
    """``x`` without ``ctx``'s tag; anything not tagged by ``ctx`` is returned unchanged."""
    t = tag_of(ctx, "untag")
    if issubclass(type(x), Tagged) and x.tag is t:
        return x.value
    return x


def istagged(x: Any, ctx: Context) -> bool:
    """Whether ``x`` carries ``ctx``'s tag."""
    t = tag_of(ctx, "istagged")
    return issubclass(type(x), Tagged) and x.tag is t


def metadata(x: Any, ctx: Context) -> Any:
    """The metadata ``x`` carries for ``ctx``, or ``NoMetadata``."""
    t = tag_of(ctx, "metadata")
    if issubclass(type(x), Tagged) and x.tag is t:
        return x.meta
    return NoMetadata


def hasmetadata(x: Any, ctx: Context) -> bool:
    """Whether ``x`` carries metadata for ``ctx``."""
    return metadata(x, ctx) is not NoMetadata
