"""Reverse mode's runs and backward pass: record ``f`` on a tape, then send cotangents back.

``record(f, inp)`` runs ``f`` once under a fresh ``ReverseCtx`` with the input tagged by
leaf nodes; ``backward(node, seed, leaves)`` walks the recorded nodes from ``node`` back to
the leaves, latest first, adding up the cotangents each operation's pullbacks send to its
arguments, and returns the leaves'. The tape is the graph of nodes the result
holds: it is freed with the result.

Not engine code: the backward pass is ordinary code, so that a derivative taken around a
gradient (forward over reverse) differentiates it.
"""

from __future__ import annotations

from typing import Any

from heapq import heappop, heappush

from context import overdub
from context.tagging import tag
from context.tagging.tags import Tag

from .engine import reverse_buffers
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
    out = run(ctx, f, x)
    return out, leaves, ctx


def run(ctx: ReverseCtx, f: Any, *args: Any) -> Any:
    """``f(*args)`` recorded by ``ctx``, a buffer it wrote derivatives into read as the traced
    value it holds. The record of saved arrays (``reverse_writes``) and the buffers' versions
    (``reverse_buffers``) are dropped at the end: writes can no longer reach the run, and the
    context may outlive it until the garbage collector frees its activation, which should not
    keep the arrays."""
    try:
        out = overdub(ctx, f, *args)
        return reverse_buffers.result(out, ctx) if "_buffers" in ctx.__dict__ else out
    finally:
        ctx.__dict__.pop("_saved", None)
        reverse_buffers.end(ctx)


def backward(top: Node, seed: Any, wanted: list) -> list:
    """The cotangents that reach the nodes ``wanted`` when ``top`` gets ``seed`` (None where none does).

    Nodes are taken in decreasing serial order (a heap of the nodes reached so far): a node's users
    were all made after it, so its cotangent is complete when its turn comes. No recursion."""
    cotangents = {top.serial: seed}
    keep = {node.serial for node in wanted}
    heap = [(-top.serial, top)]
    while heap:
        _, node = heappop(heap)
        s = node.serial
        u = cotangents[s] if s in keep else cotangents.pop(s)
        for parent, pull in node.parents:
            g = pull(u)
            k = parent.serial
            previous = cotangents.get(k)
            if previous is None:
                cotangents[k] = g
                heappush(heap, (-k, parent))
            else:
                cotangents[k] = previous + g
    return [cotangents.get(node.serial) for node in wanted]


