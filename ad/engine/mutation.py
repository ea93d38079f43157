"""Writes into arrays during differentiation: ``a[key] = value`` with its tangent.

The target is a ``DualArray`` (its value and tangent are written in place, so its views
see the change) or a plain buffer (the tangent goes to shadow memory, see ``buffers``);
an array of an enclosing reverse-mode run is written by that run (``reverse_buffers``).
A constant written over part of an array makes that part's tangent exactly zero.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)


import operator

import numpy as np

from context.resolve import declare_engine_code
from context.state import call_under
from context.tagging import Tagged
from context.tagging.arrays import root_of
from context.tagging.values import live, primal

from . import buffers
from .dual_array import DualArray
from ..rules.tangents import lead, lead_axes

declare_engine_code(__file__)

ndarray = np.ndarray


def _lifted(x, below):
    x = live(x)
    if type(x) is ndarray and buffers.has_shadow(x):
        return buffers.lift(x, below)
    return x


def _buffer_behind(target, below):
    """The plain buffer view that ``target`` (a value of a reverse-mode run this derivative is nested
    in) reads, if that run holds versions of its buffer (see ``buffers.lift``), else None."""
    if not buffers.REVERSE_VERSIONS or type(target.value) is not ndarray:
        return None
    memory = target.value
    root = root_of(memory)
    entry = buffers.REVERSE_VERSIONS.get(id(root), {}).get(target.tag)
    if entry is None or entry[1] is not None or buffers.reverse_layer(root, below) is not target.tag:
        return None
    return memory


def assign(target, key, value, below=None):
    """``target[key] = value`` where ``target`` is an ndarray or a ``DualArray``.

    With ``below`` (a tag), ``value``'s layers of that tag and newer are left to the caller.
    """
    target = live(target)
    value = _lifted(value, below)
    if type(target) is ndarray:
        return buffers.write(target, key, value, below)
    if not isinstance(target, DualArray):
        target[key] = value
        return None
    t = target.tag
    if getattr(type(t.context), "records_writes", False):
        memory = _buffer_behind(target, below)
        if memory is not None:  # a view of a plain buffer as that run reads it: written as the buffer
            return buffers.write(memory, key, value, below)
        # an array of a reverse-mode run enclosing this derivative: the write is that run's to record
        call_under(t.activation, operator.setitem, (target, key, value), {})
        return None
    if isinstance(value, Tagged) and value.tag is not t and value.tag.serial > t.serial:
        raise TypeError(
            "writing a value of an inner derivative into an array of an outer one: the array cannot "
            "take the inner tangent; create the array inside the inner function"
        )
    mine = isinstance(value, Tagged) and value.tag is t
    assign(target.value, key, value.value if mine else value, below=t)
    n = lead(target.meta, target.value)
    where = lead_axes(n) + buffers.key_tuple(key)
    if not mine:
        assign(target.meta, where, 0.0)
        return None
    meta = value.meta
    if n:
        meta = buffers.fit(meta, np.ndim(primal(target.value)[key]) + n, n)
    assign(target.meta, where, meta)
    return None
