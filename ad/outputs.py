"""What a function being differentiated returns: a number, an array, or a (nested) list or
tuple of them, read as one value array and one tangent array.

Not engine code: an enclosing derivative differentiates through it.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numbers

import numpy as np

from context.tagging import Tagged

from .engine import runs
from .engine.dual_array import is_array


class Output:
    """A result's value in its own form, its shape, and its tangents: ``(k,) + shape`` for a
    chunk of ``k`` directions, ``shape`` for a single one."""

    def __init__(self, out, ctx, chunk, who):
        self.who = who
        self.value, self.tangent, self.form = _read(out, ctx, chunk, who)
        self.shape = self.tangent.shape[1:] if chunk else self.tangent.shape  # (``_read`` gives an ndarray)

    def tangents(self, chunk):
        """The tangents as an array with one leading axis of directions."""
        return self.tangent if chunk else self.tangent[None]

    def like(self, a):
        """An array of the output's shape in the output's form (lists stay lists)."""
        return rebuild(self.form, a)


def _read(out, ctx, chunk, who):
    if runs.is_object_array(out):  # NumPy kept the values (tagged ones among them) as objects
        out = list(out)
    if isinstance(out, (list, tuple)) and not runs.is_tagged(out):
        parts = [_read(o, ctx, chunk, who) for o in out]
        if not parts:
            return out, np.zeros((chunk, 0) if chunk else (0,)), ("seq", type(out), [])
        shapes = {np.shape(p[1]) for p in parts}
        if len(shapes) != 1:
            raise TypeError(
                "%s: the function returned a %s of values of different shapes; return an array or "
                "numbers of one shape" % (who, type(out).__name__)
            )
        tangent = np.stack([p[1] for p in parts], axis=1 if chunk else 0)
        value = type(out)(p[0] for p in parts)
        return value, tangent, ("seq", type(out), [p[2] for p in parts])
    if runs.is_function(out):
        raise TypeError("%s: the function returned a function; only derivative supports that" % who)
    value, tangent = runs.leaf(out, ctx)
    if isinstance(value, Tagged):
        raise TypeError(
            "%s: the function returned a value being differentiated by an enclosing derivative, which "
            "this derivative cannot see: it was taken in code that runs natively (a property, "
            "__getitem__, __next__ or another special method the interpreter calls by itself, or a "
            "function run natively) while the enclosing derivative was running; take the inner "
            "derivative in a plain function or method called by name" % who
        )
    if is_array(value):  # (first: ``numbers.Number`` is an ABC, whose check is Python code)
        form = ("array",)
    elif isinstance(value, (numbers.Number, np.generic)):
        value = number(value)
        form = ("number",)
    else:
        raise TypeError(
            "%s: the function returned %s; expected a number, an array, or a list or tuple of them"
            % (who, type(value).__name__)
        )
    if tangent is None:  # the result does not depend on the inputs: any dependence would be tagged
        tangent = np.zeros(((chunk,) if chunk else ()) + np.shape(value))
    else:
        tangent = np.asarray(tangent)
    return value, tangent, form


def number(x):
    """A plain element as a Python float (complex if it is one); tagged ones (nested derivatives) stay."""
    if runs.is_tagged(x):
        return x
    return complex(x) if isinstance(x, complex) or np.iscomplexobj(x) else float(x)


def rebuild(form, a):
    """Array ``a`` (the output's shape) in the output's form: nested lists, a number, an array."""
    if form[0] == "seq":
        kind, parts = form[1], form[2]
        return kind(rebuild(p, a[i]) for i, p in enumerate(parts))
    if form[0] == "number":
        return number(a[()]) if is_array(a) else number(a)
    return a


def form_of(out, who):
    """The form of a plain result (for backends that work on arrays)."""
    if isinstance(out, (list, tuple)):
        return ("seq", type(out), [form_of(o, who) for o in out])
    if is_array(out):
        return ("array",)
    if isinstance(out, numbers.Number) or isinstance(out, np.generic):
        return ("number",)
    raise TypeError(
        "%s: the function returned %s; expected a number, an array, or a list or tuple of them"
        % (who, type(out).__name__)
    )


class Plain:
    """The output of a backend that works on arrays: its form, value and shape."""

    def __init__(self, form, value, shape):
        self.form, self.value, self.shape = form, value, shape

    def like(self, a):
        return rebuild(self.form, a)
