"""Reverse mode's runs and backward pass: record ``f`` on a tape, then send cotangents back.

``record(f, inp)`` runs ``f`` once under a fresh ``ReverseCtx`` with the input tagged by
leaf nodes; ``backward(node, seed, leaves)`` walks the recorded nodes from ``node`` back to
the leaves, latest first, adding up the cotangents each operation's pullbacks send to its
arguments, and returns the leaves'. The tape is the graph of nodes the result
holds: it is freed with the result.

Not engine code; the backward pass is (``engine/backward.py``), and it calls the pullbacks as
ordinary code, so that a derivative taken around a gradient (forward over reverse)
differentiates them.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from typing import Any

from context import overdub
from context.tagging import tag
from context.tagging.tags import Tag

from .engine import reverse_buffers, reverse_writes
from .engine.backward import backward  # noqa: F401  (the backward pass, engine code)
from .engine.reverse import Node, ReverseCtx
from .engine.traced import COMPLEX_NODES, is_complex


def start() -> ReverseCtx:
    """A ``ReverseCtx`` with a fresh tag, for one recorded run."""
    ctx = ReverseCtx()
    ctx._tag = Tag(ctx)
    return ctx


def record(f: Any, inp: Any) -> tuple[Any, list, ReverseCtx]:
    """``(f(x), leaves, ctx)`` for the ``Input`` ``inp``: ``f`` run once with the input carrying leaf
    nodes: one for an array or a number, one per element of a list or tuple. A complex leaf's
    cotangent keeps its imaginary part (for a gradient it is the gradient, JAX's convention)."""
    ctx = start()
    if inp.kind in ("array", "scalar"):
        leaves = [_leaf(inp.value)]
        x = tag(inp.value, ctx, leaves[0])
    else:
        leaves = [_leaf(e) for e in inp.value]
        items = [tag(e, ctx, leaf) for e, leaf in zip(inp.value, leaves)]
        x = tuple(items) if inp.kind == "tuple" else items
    out = run(ctx, f, x)
    return out, leaves, ctx


def _leaf(value: Any) -> Node:
    node = Node()
    if is_complex(value):
        node.real = False  # its cotangent keeps its imaginary part
        COMPLEX_NODES[0] += 1
    return node


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
        reverse_writes.forget(ctx)
        reverse_buffers.end(ctx)
