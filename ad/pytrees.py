"""Nested lists, tuples, dicts and named tuples of values (pytrees), flattened into leaves.

As in JAX, a tree's containers are lists, tuples, named tuples and dicts (keys in
sorted order); everything else is a leaf. ``None`` is an empty subtree unless
``none_is_leaf`` says otherwise. ``unflatten(tree, leaves)`` rebuilds the same
containers around new leaves.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from typing import Any, NamedTuple


class TreeDef(NamedTuple):
    """The containers of a tree: ``kind`` is ``"leaf"``, ``"none"``, ``"list"``, ``"tuple"``,
    ``"namedtuple"`` or ``"dict"``; ``meta`` the named tuple's class or the dict's keys."""

    kind: str
    meta: Any
    children: tuple

    @property
    def num_leaves(self) -> int:
        if self.kind == "leaf":
            return 1
        return sum(c.num_leaves for c in self.children)


_LEAF = TreeDef("leaf", None, ())
_NONE = TreeDef("none", None, ())


def _sorted_keys(d):
    try:
        return sorted(d)
    except TypeError:  # keys of mixed types: their own order
        return list(d)


def flatten(tree: Any, none_is_leaf: bool = False) -> tuple[list[Any], TreeDef]:
    """``(leaves, treedef)``: the leaves in order, and what ``unflatten`` needs to rebuild ``tree``."""
    leaves: list[Any] = []

    def walk(x):
        t = type(x)
        if t is list or t is tuple:
            return TreeDef(t.__name__, None, tuple(walk(e) for e in x))
        if isinstance(x, tuple) and hasattr(t, "_fields"):
            return TreeDef("namedtuple", t, tuple(walk(e) for e in x))
        if t is dict:
            keys = _sorted_keys(x)
            return TreeDef("dict", tuple(keys), tuple(walk(x[k]) for k in keys))
        if x is None and not none_is_leaf:
            return _NONE
        leaves.append(x)
        return _LEAF

    return leaves, walk(tree)


def unflatten(treedef: TreeDef, leaves: Any) -> Any:
    """The tree with ``treedef``'s containers around ``leaves`` (in ``flatten``'s order)."""
    it = iter(leaves)

    def build(d):
        if d.kind == "leaf":
            return next(it)
        if d.kind == "none":
            return None
        items = [build(c) for c in d.children]
        if d.kind == "list":
            return items
        if d.kind == "tuple":
            return tuple(items)
        if d.kind == "namedtuple":
            return d.meta(*items)
        return dict(zip(d.meta, items))

    out = build(treedef)
    if next(it, it) is not it:
        raise ValueError("unflatten: more leaves than the tree has (%d)" % treedef.num_leaves)
    return out


def leaves_of(tree: Any) -> list[Any]:
    """The leaves of ``tree`` in order."""
    return flatten(tree)[0]
