"""The values of reverse mode: tape nodes, and the numbers and arrays that carry them."""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import itertools
from typing import Any

import numpy as np

from context.resolve import declare_engine_code
from context.tagging import Tagged, dispatch
from context.tagging.values import primal

from .dual import FloatMethods, ScalarArrayMethods
from .dual_array import DualArray, is_array

declare_engine_code(__file__)

_new = object.__new__

ndarray = np.ndarray


_serials = itertools.count()


class Node:
    """One recorded operation: ``parents`` are ``(node, pullback)`` pairs (none for an input).

    ``serial`` grows with each node made, so a node's serial is larger than its parents': the
    backward pass takes nodes in decreasing serial order, each after all its users."""

    __slots__ = ("parents", "serial", "real")

    def __init__(self, parents: tuple = ()) -> None:
        self.parents = parents
        self.serial = next(_serials)
        self.real = True  # the value is real: a cotangent reaching it keeps its real part (make_traced)


class Traced(ScalarArrayMethods, FloatMethods, Tagged):
    """A number being differentiated in reverse mode (primal ``value``, tape node ``meta``)."""

    __slots__ = ()

    def item(self) -> Traced:
        return self

    # a complex number's parts and conjugate, through the rules (a real number is its own)
    @property
    def real(self) -> Any:
        return dispatch(np.real, (self,)) if is_complex(self.value) else self

    @property
    def imag(self) -> Any:
        return dispatch(np.imag, (self,)) if is_complex(self.value) else 0.0

    def conjugate(self) -> Any:
        return dispatch(np.conjugate, (self,)) if is_complex(self.value) else self


class TracedArray(DualArray):
    """An array being differentiated in reverse mode: ``DualArray``'s array protocol, a node for meta."""

    __slots__ = ()

    def __repr__(self):
        return "TracedArray(%r, tag=#%d)" % (self.value, self.tag.serial)


class ComplexValuesError(TypeError):
    """Reverse mode met a complex value it does not differentiate (forward mode does): a complex
    input or result of the function, or a function whose reverse rule is not checked on complex values."""


COMPLEX_NODES = [0]  # complex nodes made in this process: until there is one, no cotangent is complex


def is_complex(value: Any) -> bool:
    """Whether ``value`` (a plain number or array, or a tuple or list of them) is complex."""
    kind = type(value)
    if kind is float:
        return False
    if kind is ndarray:
        return value.dtype.kind == "c"
    if kind is complex:
        return True
    if kind is tuple or kind is list:
        return any(is_complex(v) for v in value)
    if isinstance(value, Tagged) and type(value.value) is not ndarray:
        # a number an enclosing derivative carries (forward over reverse): its plain value tells
        # (a Dual has no dtype; a complex one once made its node real and dropped imaginary parts)
        return is_complex(primal(value))
    dtype = getattr(value, "dtype", None)
    return getattr(dtype, "kind", None) == "c"


def make_traced(value: Any, tag: Any, node: Node) -> Tagged:
    """The tagged value for primal ``value``: a ``TracedArray`` for arrays, else a ``Traced``.
    A complex value's node is marked: cotangents keep their imaginary part only at complex nodes."""
    if type(value) is float:
        return Traced(value, tag, node)
    if type(value) is ndarray and value.dtype.kind != "c" and tag.used:  # (the common case, in one look,
        d = _new(TracedArray)                                                # without Tagged.__init__'s frame)
        d.value = value
        d.tag = tag
        d.meta = node
        return d
    if is_complex(value):
        node.real = False
        COMPLEX_NODES[0] += 1
    if type(value) is ndarray or (type(value) is not float and is_array(value)):
        return TracedArray(value, tag, node)
    return Traced(value, tag, node)
