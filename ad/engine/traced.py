"""The values of reverse mode: tape nodes, and the numbers and arrays that carry them."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from context.resolve import declare_engine_code
from context.tagging import Tagged

from .dual import ScalarArrayMethods
from .dual_array import DualArray, is_array

declare_engine_code(__file__)

ndarray = np.ndarray


_serials = itertools.count()


class Node:
    """One recorded operation: ``parents`` are ``(node, pullback)`` pairs (none for an input).

    ``serial`` grows with each node made, so a node's serial is larger than its parents': the
    backward pass takes nodes in decreasing serial order, each after all its users."""

    __slots__ = ("parents", "serial")

    def __init__(self, parents: tuple = ()) -> None:
        self.parents = parents
        self.serial = next(_serials)


class Traced(ScalarArrayMethods, Tagged):
    """A number being differentiated in reverse mode (primal ``value``, tape node ``meta``)."""

    __slots__ = ()
    reverse_layer = True  # forward mode's buffers refuse to hold it (reverse_buffers does)

    def item(self) -> Traced:
        return self


class TracedArray(DualArray):
    """An array being differentiated in reverse mode: ``DualArray``'s array protocol, a node for meta."""

    __slots__ = ()
    reverse_layer = True

    def __repr__(self):
        return "TracedArray(%r, tag=#%d)" % (self.value, self.tag.serial)


class ComplexValuesError(TypeError):
    """Reverse mode met a complex value, which it does not differentiate (forward mode does)."""


def make_traced(value: Any, tag: Any, node: Node) -> Tagged:
    """The tagged value for primal ``value``: a ``TracedArray`` for arrays, else a ``Traced``."""
    if type(value) is float:
        return Traced(value, tag, node)
    if type(value) is ndarray and value.dtype.kind != "c":  # (the common case, in one look)
        return TracedArray(value, tag, node)
    if np.iscomplexobj(value):
        raise ComplexValuesError(
            "reverse mode: complex values are not supported yet (a result of %r); use ad.ForwardMode()"
            % (type(value).__name__,)
        )
    if type(value) is ndarray or (type(value) is not float and is_array(value)):
        return TracedArray(value, tag, node)
    return Traced(value, tag, node)
