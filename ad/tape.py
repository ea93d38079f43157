"""Reverse mode's runs and backward pass: record ``f`` on a tape, then send cotangents back.

``record(f, inp)`` runs ``f`` once under a fresh ``ReverseCtx`` with the input tagged by a
leaf node; ``backward(node, seed)`` walks the recorded nodes from ``node`` back to the
leaves in reverse topological order, adding up the cotangents each operation's pullbacks
send to its arguments, and returns them by node. The tape is the graph of nodes the result
holds: it is freed with the result.

Not engine code: the backward pass is ordinary code, so that a derivative taken around a
gradient (forward over reverse) differentiates it.
"""

from __future__ import annotations

from typing import Any

from context import overdub
from context.tagging import tag
from context.tagging.tags import Tag

from .engine.reverse import Node, ReverseCtx


def start() -> ReverseCtx:
    """A ``ReverseCtx`` with a fresh tag, for one recorded run."""
    ctx = ReverseCtx()
    ctx._tag = Tag(ctx)
    return ctx


def record(f: Any, inp: Any) -> tuple[Any, list, ReverseCtx]:
    """``(f(x), leaves, ctx)`` for the ``Input`` ``inp``: ``f`` run once with the input carrying leaf
    nodes: one for an array or a number, one per element of a list or tuple."""
    ctx = start()
    if inp.kind in ("array", "scalar"):
        leaves = [Node()]
        x = tag(inp.value, ctx, leaves[0])
    else:
        leaves = [Node() for _ in inp.value]
        items = [tag(e, ctx, leaf) for e, leaf in zip(inp.value, leaves)]
        x = tuple(items) if inp.kind == "tuple" else items
    out = overdub(ctx, f, x)
    return out, leaves, ctx


def _order(top: Node) -> list:
    """The nodes reachable from ``top``, each after every node that uses it (iterative, no recursion)."""
    order, seen = [], set()
    stack = [(top, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for parent, _ in node.parents:
            if id(parent) not in seen:
                stack.append((parent, False))
    order.reverse()
    return order


def backward(top: Node, seed: Any, wanted: list) -> list:
    """The cotangents that reach the nodes ``wanted`` when ``top`` gets ``seed`` (None where none does)."""
    cotangents = {id(top): seed}
    keep = {id(node) for node in wanted}
    for node in _order(top):
        u = cotangents.get(id(node)) if id(node) in keep else cotangents.pop(id(node), None)
        if u is None or not node.parents:
            continue
        for parent, pull in node.parents:
            g = pull(u)
            k = id(parent)
            previous = cotangents.get(k)
            cotangents[k] = g if previous is None else previous + g
    return [cotangents.get(id(node)) for node in wanted]


