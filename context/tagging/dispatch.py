"""Dispatch on the newest live tag, and running native work where a context does it.

What a function does to values tagged by a context is that context's *primitive* for
the function (``@Ctx.primitive(fn)``), as for any call made inside it. Operators on
tagged values, and natives reached with tagged arguments, go to ``dispatch(fn, args)``:
it finds the newest live tag among the arguments and runs that tag's context's
primitive, as the context's activation runs primitives (under the enclosing context
when nested, unless marked ``native_primitive``). Primitives of tagging contexts handle
their own tag's layer and leave the rest to ``enclosing_call``.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

from .. import primitives
from ..state import call_under
from .tags import Tag
from .values import Tagged, live

_EMPTY = {}
_TABLES = primitives.TABLES  # id(class) -> (registrations, table): ``primitives.table_for``'s cache
_REGISTRATIONS = primitives.REGISTRATIONS


def qualified_name(fn):
    """``math.sin``, ``operator.add``, ``abs``, ``ndarray.sum``: how error messages name a function."""
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
    if not isinstance(name, str):
        return repr(fn)
    owner = getattr(fn, "__self__", None)
    if owner is not None and not isinstance(owner, (type, ModuleType)):  # a method bound to an object
        return name if "." in name else "%s.%s" % (type(owner).__name__, name)
    module = getattr(fn, "__module__", None)
    if not isinstance(module, str) or module == "builtins":
        return name
    return "%s.%s" % ("operator" if module == "_operator" else module, name)


def newest_tag(args):
    """``(tag, args)``: the newest live tag among ``args`` (None if none), with finished layers removed."""
    best = None
    cleaned = None
    for i, a in enumerate(args):
        if issubclass(type(a), Tagged):
            t = a.tag
            if t.finished:
                if cleaned is None:
                    cleaned = list(args)
                a = cleaned[i] = live(a)
                if not issubclass(type(a), Tagged):
                    continue
                t = a.tag
            if best is None or t.serial > best.serial:
                best = t
    return best, (args if cleaned is None else tuple(cleaned))


def dispatch(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: Mapping[str, Any] = _EMPTY) -> Any:
    """``fn(*args, **kwargs)`` where tagged arguments follow the rules of the newest live tag."""
    tag = None
    for a in args:  # (``newest_tag``'s answer where every tag is live, without its frame)
        if issubclass(type(a), Tagged):
            t = a.tag
            if t.finished:
                tag, args = newest_tag(args)
                break
            if tag is None or t.serial > tag.serial:
                tag = t
    if tag is None:
        if kwargs:
            kw_tag, _ = newest_tag(tuple(kwargs.values()))
            if kw_tag is not None:
                return no_primitive(kw_tag, fn, args, kwargs)
        return fn(*args, **kwargs)
    cls = type(tag.context)
    cached = _TABLES.get(id(cls))  # (``primitives.table_for``'s cache, read without its frame)
    table = cached[1] if cached is not None and cached[0] == _REGISTRATIONS[0] else primitives.table_for(cls)
    impl = None
    if table is not None:
        entries = table.get(id(fn))
        if entries is not None and entries[0][0] is None:  # (``primitives.find``'s commonest answer)
            impl = entries[0][1]
        else:
            impl, args = primitives.find(table, fn, args)
    if impl is None:
        return no_primitive(tag, fn, args, kwargs)
    runs = tag.runs  # (``tag.activation``, without a property's frame: every tagged operation comes here)
    act = runs[-1] if runs else None  # as the activation's run_primitive runs it, in line
    if act is not None and act.alive:
        if getattr(impl, "native_primitive", False):
            return impl(act.ctx, *args, **kwargs)
        return act.run_primitive(impl, args, kwargs)
    return impl(tag.context, *args, **kwargs)


def no_primitive(tag, fn, args, kwargs):
    """``fn`` met values tagged by ``tag``'s context, which has no primitive for it.

    The context class's policy decides (``untag_for_natives``): ``fn`` receives the values
    with that context's layer removed and its result is untagged, as in Cassette, where
    tagged values behave like their untagged selves; or its ``no_rule_error`` is raised
    (AD: a missing rule is never a silent zero tangent). The untagged call is made under
    the enclosing context, which handles its own layers.
    """
    ctx = tag.context
    if not type(ctx).untag_for_natives:
        raise type(ctx).no_rule_error(fn, ctx)
    args = tuple(_without_layer(a, tag) for a in args)
    if kwargs:
        kwargs = {k: _without_layer(v, tag) for k, v in kwargs.items()}
    return enclosing_call(tag, fn, args, kwargs)


def _without_layer(x, tag):
    if issubclass(type(x), Tagged) and x.tag is tag:
        return x.value
    return x


def enclosing_call(tag: Tag, fn: Callable[..., Any], args: tuple[Any, ...],
                   kwargs: Mapping[str, Any] = _EMPTY) -> Any:
    """Call ``fn`` under the context that encloses ``tag``'s: it sees the call as its own.

    With no enclosing context it is a plain call.
    """
    act = tag.activation
    return call_under(act.parent if act is not None else None, fn, args, kwargs)
