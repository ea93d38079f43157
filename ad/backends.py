"""Differentiation backends: each provides a pushforward; every derivative follows from it.

``pushforward(f, x, directions)`` returns ``(f(x), [J v for v in directions])`` for an
array ``x`` and a function ``f`` from arrays to arrays. A new backend subclasses
``Backend`` and implements only that (see ``docs/ad.md``). The built-in backends:

* ``ForwardMode(chunk=None, executor=None)``: forward-mode AD on pycassette's contexts,
  ``chunk`` directions per run (``chunk=1``: one plain tangent per run);
* ``ReverseMode(executor=None)``: reverse-mode AD on a tape context, one run and one
  backward pass per element of the result (a gradient costs one of each);
* ``FiniteDifferences(step=None, method="central")``: finite differences, for checks
  and for functions with no derivative rules;
* ``HigherOrder(outer, inner)``: ``inner`` for first derivatives, ``outer`` over
  ``inner`` for second derivatives (a Hessian is the ``outer`` Jacobian of the
  ``inner`` gradient).

With ``executor=`` (any ``concurrent.futures.Executor``) a backend spreads its passes over
it: chunks of directions (forward), shares of the Jacobian's rows or of the seeds
(reverse); see ``ad.scaleout``.

Not engine code: an enclosing derivative differentiates through backends.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import copy
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from context.tagging.values import primal

from . import outputs, scaleout, tape, tasks
from .engine import runs
from .engine.reverse import plain_result
from .engine.traced import ComplexValuesError
from .inputs import Input, UnitBasis
from .outputs import Output

_AUTO_BUDGET = 1 << 21  # chunk=None: numbers per tangent of the input (16 MiB of float64) in one run
_AUTO_SCALAR_LIMIT = 8  # scalar/list inputs: up to this many directions, one plain run each


class Backend:
    """Base of differentiation backends: subclasses implement ``pushforward``."""

    executor = None  # where the passes run: this process, or a concurrent.futures.Executor

    def with_executor(self, executor: Any) -> Backend:
        """A copy of this backend whose passes are spread over ``executor`` (None: run here)."""
        clone = copy.copy(self)
        clone.executor = scaleout.check_executor(executor, type(self).__name__)
        return clone

    def pushforward(self, f: Callable[[Any], Any], x: Any, directions: Sequence[Any]) -> tuple[Any, list[Any]]:
        """``(f(x), [J v for v in directions])`` for array ``x`` and ``f`` from arrays to arrays."""
        raise NotImplementedError("%s must implement pushforward(f, x, directions)" % type(self).__name__)

    def first_order(self) -> Backend:
        """The backend first derivatives use."""
        return self

    def second_order(self) -> tuple[Backend, Backend]:
        """``(outer, inner)``: a Hessian is ``outer``'s Jacobian of ``inner``'s gradient."""
        return self, self

    def run(self, f: Callable[[Any], Any], inp: Input, directions: Any, who: str) -> tuple[Any, Any]:
        """``(output, tangents)`` of ``f`` at ``inp`` along ``directions`` (an array
        ``(m,) + inp.shape``); tangents has shape ``(m,) + output shape``."""
        forms = []

        def on_arrays(a):
            out = f(inp.from_array(a))
            if runs.is_function(out):
                raise TypeError("%s: the function returned a function; only derivative supports that" % who)
            forms.append(outputs.form_of(out, who))
            return np.asarray(out, dtype=float) if isinstance(out, (list, tuple)) else out

        value, tangents = self.pushforward(on_arrays, inp.array(), list(directions))
        shape = np.shape(value)
        tangents = np.stack([np.asarray(t) for t in tangents]) if len(tangents) else np.zeros((0,) + shape)
        if tangents.shape[1:] != shape:
            raise ValueError(
                "%s: the backend's pushforward gave tangents of shape %s for a value of shape %s"
                % (who, tangents.shape[1:], shape)
            )
        return outputs.Plain(forms[-1], outputs.rebuild(forms[-1], np.asarray(value)), shape), tangents


class ForwardMode(Backend):
    """Forward-mode AD: ``chunk`` directions per run of the function.

    ``chunk=None`` picks: for a number or a list of up to 8 numbers one plain run per
    direction (Python floats are fastest alone); otherwise as many directions per run as
    keep each tangent of the input within 2**21 numbers (16 MiB of float64): all of them
    up to 1,448 inputs, then fewer (n = 40,000: 52 per run), as ForwardDiff picks its
    chunk from the input's size.

    ``executor``: the directions are cut into tasks for it, ``chunk`` directions each, or
    (``chunk=None``) an even share for each of its workers, which a worker runs as above.
    """

    def __init__(self, chunk: int | None = None, executor: Any = None) -> None:
        if chunk is not None and (isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1):
            raise ValueError("ForwardMode: chunk must be a positive int or None, got %r" % (chunk,))
        self.chunk = chunk
        self.executor = scaleout.check_executor(executor, "ForwardMode")

    def __repr__(self):
        more = "" if self.executor is None else ", executor=%r" % (self.executor,)
        return "ForwardMode(chunk=%r%s)" % (self.chunk, more)

    def chunk_for(self, inp: Input, m: int) -> int:
        """Directions per run for ``m`` directions at input ``inp``."""
        if self.chunk is not None:
            return min(self.chunk, max(m, 1))
        if inp.kind != "array" and m <= _AUTO_SCALAR_LIMIT:
            return 1
        # as many directions per run as the memory budget allows: each run's fixed cost (the
        # function's Python code, a rule per operation) is paid once for more directions
        return max(1, min(m, _AUTO_BUDGET // max(inp.size, 1)))

    def run(self, f: Callable[[Any], Any], inp: Input, directions: Any, who: str) -> tuple[Any, Any]:
        m = len(directions)
        if scaleout.spreads(self.executor):
            spread = tasks.forward(ForwardMode(self.chunk), self.executor, f, inp, directions, who)
            if spread is not None:
                return spread
        k = self.chunk_for(inp, m)
        output = None
        parts = []
        for start in range(0, max(m, 1), k):
            block = directions.block(start, start + k) if isinstance(directions, UnitBasis) else \
                directions[start:start + k]
            ctx = runs.start(f)
            if k == 1:
                arg = inp.seeded(ctx, block[0] if m else np.zeros(inp.shape))
                output = Output(runs.run(ctx, f, (arg,)), ctx, 0, who)
                parts.append(output.tangents(0))
            else:
                arg = inp.seeded(ctx, block)
                output = Output(runs.run(ctx, f, (arg,)), ctx, len(block), who)
                parts.append(output.tangents(len(block)))
        tangents = parts[0] if len(parts) == 1 else np.concatenate(parts)
        return output, tangents[:m]

    def pushforward(self, f: Callable[[Any], Any], x: Any, directions: Sequence[Any]) -> tuple[Any, list[Any]]:
        inp = Input(x, "pushforward")
        output, tangents = self.run(f, inp, np.asarray(directions).reshape((len(directions),) + inp.shape),
                                    "pushforward")
        return output.value, list(tangents)


class ReverseMode(Backend):
    """Reverse-mode AD: ``f`` runs once and records a tape; each element of the result costs one
    backward pass. A gradient costs one run and one backward pass whatever the number of inputs;
    a Jacobian ``m`` backward passes for ``m`` outputs. Second derivatives are forward over
    reverse (the forward-mode Jacobian of the reverse-mode gradient).

    ``executor``: a Jacobian's rows are shared out over its workers (each records ``f``
    once); second derivatives spread their forward passes over it.
    """

    def __init__(self, executor: Any = None) -> None:
        self.executor = scaleout.check_executor(executor, "ReverseMode")

    def __repr__(self):
        return "ReverseMode()" if self.executor is None else "ReverseMode(executor=%r)" % (self.executor,)

    def second_order(self) -> tuple[Backend, Backend]:
        return ForwardMode(executor=self.executor), self

    def _record(self, f, inp, who):
        """``(output, parts, leaves)`` of ``f`` recorded once: ``parts`` pairs each number or array of the
        result with its node (None where it does not depend on the input)."""
        out, leaves, ctx = tape.record(f, inp)
        if runs.is_function(out):
            raise TypeError("%s: the function returned a function; only derivative supports that" % who)
        parts = []
        value = plain_result(out, ctx, parts)
        form = outputs.form_of(value, who)
        complex_result = any(node is not None and not node.real for _, node in parts)
        shape = tuple(np.shape(np.asarray(value, dtype=complex if complex_result else float)
                               if isinstance(value, (list, tuple)) else value))
        return outputs.Plain(form, value, shape), parts, leaves

    def jacobian(self, f: Callable[[Any], Any], inp: Input, who: str) -> tuple[Any, Any]:
        """``(output, J)``, ``J`` of shape ``output.shape + inp.shape``, one backward pass per output element
        (two for a complex one: its real and imaginary parts)."""
        if scaleout.spreads(self.executor):
            return tasks.reverse_rows(ReverseMode(), self.executor, f, inp, who)
        output, parts, leaves = self._record(f, inp, who)
        J = _precision_kept(self.rows(parts, leaves, inp, 0, math.prod(output.shape)), inp, parts)
        return output, np.reshape(J, tuple(output.shape) + tuple(inp.shape))

    def complex_gradient(self, f: Callable[[Any], Any], inp: Input, who: str) -> tuple[Any, Any]:
        """``(output, g)`` for a complex array input and a real number result: ``f`` recorded once, and
        ``g`` the input's cotangent for the seed 1, which with the pairing ``Re(sum(u * t))`` is
        ``df/dx - i df/dy`` (JAX's ``grad``); None when the result is not a single number."""
        output, parts, leaves = self._record(f, inp, who)
        if any(node is not None and not node.real for _, node in parts):
            raise ComplexValuesError(
                "%s: the function returned a complex value; the gradient of a complex input is defined for a "
                "real result (take its real part or its abs)" % who
            )
        if output.shape:
            return output, None
        (value, node), = parts
        got = tape.backward(node, 1.0, leaves, value)[0] if node is not None else None
        g = np.zeros(inp.shape, dtype=complex) if got is None else np.reshape(np.asarray(got), inp.shape)
        g = g.astype(np.result_type(g, np.asarray(inp.value).dtype), copy=False)
        return output, complex(g) if inp.kind == "scalar" else g

    def rows(self, parts: list, leaves: list, inp: Input, start: int, stop: int) -> np.ndarray:
        """Rows ``start:stop`` of the Jacobian (output elements raveled) of a recorded run, one
        backward pass each (two for a complex output element): an array ``(stop - start, inp.size)``.

        With the pairing ``Re(sum(u * t))``, the seed ``u = 1`` gives the real parts of the derivatives
        along the input's real directions (the real parts of the cotangents), and ``u = -1j`` their
        imaginary parts; a complex input is taken along its real directions, as in forward mode."""
        rows = []
        first = 0
        complex_input = any(not leaf.real for leaf in leaves)
        for v, node in parts:
            size = math.prod(np.shape(v))
            complex_output = node is not None and not node.real
            for i in range(max(start, first), min(stop, first + size)):
                seed = 1.0 if not np.ndim(v) else _unit_seed(np.shape(v), i - first)
                rows.append(_pulled(node, seed, leaves, inp, complex_input, complex_output, v))
            first += size
        return np.array(rows) if rows else np.zeros((0, inp.size))  # (a new array, as np.stack's, in C)

    @staticmethod
    def _complex_rows(parts, leaves, inp):
        """``(J_re, J_im)``: the Jacobian along the real and along the imaginary directions of a complex
        input. The cotangent ``c`` of the seed 1 gives the real part's derivative, ``Re(c)`` along a
        real direction and ``-Im(c)`` along an imaginary one; the seed ``-1j`` the imaginary part's,
        where the output is complex."""
        re, im = [], []
        for v, node in parts:
            for i in range(math.prod(np.shape(v))):
                if node is None:
                    re.append(np.zeros(inp.size, dtype=complex))
                    im.append(np.zeros(inp.size, dtype=complex))
                    continue
                seed = 1.0 if not np.ndim(v) else _unit_seed(np.shape(v), i)
                c = _row(tape.backward(node, seed, leaves, v), inp).astype(complex)
                r, m = np.real(c) + 0j, -np.imag(c) + 0j
                if not node.real:
                    c2 = _row(tape.backward(node, -1j * seed, leaves, v), inp).astype(complex)
                    r, m = r + 1j * np.real(c2), m - 1j * np.imag(c2)
                re.append(r)
                im.append(m)
        empty = np.zeros((0, inp.size), dtype=complex)
        return (np.array(re) if re else empty), (np.array(im) if im else empty)

    def pullback(self, f: Callable[[Any], Any], inp: Input, who: str) -> tuple[Any, Callable[[Any], Any]]:
        """``(output, pull)``: ``f`` recorded once; ``pull(w)`` (``w`` shaped like the output) is ``wᵀ J``,
        raveled, by one backward pass per part of the output (one for an array or a number; two where
        the part or ``w`` is complex). The tape is kept while ``pull`` lives, so it may be called again."""
        output, parts, leaves = self._record(f, inp, who)
        sizes = [math.prod(np.shape(v)) for v, _ in parts]
        complex_input = any(not leaf.real for leaf in leaves)

        def pull(w):
            flat = np.reshape(w, (-1,))
            total = np.zeros(inp.size)
            start = 0
            for (v, node), size in zip(parts, sizes):
                if node is not None:
                    seed = np.reshape(flat[start:start + size], np.shape(v)) if np.ndim(v) else flat[start]
                    total = total + _pulled(node, seed, leaves, inp, complex_input,
                                            not node.real or np.iscomplexobj(seed), v)
                start += size
            return _precision_kept(total, inp, parts, np.result_type(primal(w)))

        return output, pull

    def run(self, f: Callable[[Any], Any], inp: Input, directions: Any, who: str) -> tuple[Any, Any]:
        """``J d`` for each direction ``d``, from the Jacobian. A complex input moved along complex
        directions needs its derivatives along the imaginary directions too (they are ``1j`` times
        those along the real ones only where ``f`` is holomorphic): ``J_re Re(d) + J_im Im(d)``."""
        d = np.reshape(np.asarray(directions), (-1, inp.size))
        if np.iscomplexobj(d) and inp.complex and np.any(np.imag(d)):  # (in this process, executor or not)
            output, parts, leaves = self._record(f, inp, who)
            J_re, J_im = self._complex_rows(parts, leaves, inp)
            tangents = np.real(d) @ J_re.T + np.imag(d) @ J_im.T
            if all(node is None or node.real for _, node in parts):  # a real output has real tangents
                tangents = np.real(tangents)
        else:
            output, J = self.jacobian(f, inp, who)
            tangents = np.tensordot(d, np.reshape(J, (-1, inp.size)), axes=([1], [1]))  # (J's precision kept)
        return output, np.reshape(tangents, (len(d),) + tuple(output.shape))


_NARROW = frozenset(np.dtype(t) for t in (np.float16, np.float32, np.complex64))


def _precision_kept(a, inp, parts, *dtypes):
    """``a`` (rows made in float64 by the backward passes) in the precision forward mode gives: that of
    a ``float32`` (``float16``, ``complex64``) input, unless an output or ``dtypes`` (directions,
    cotangents) are wider."""
    if inp.kind != "array" or type(a) is not np.ndarray or a.dtype.kind not in "fc":
        return a
    given = np.result_type(primal(inp.value))
    if given not in _NARROW:
        return a
    target = np.result_type(given, *[np.result_type(primal(v)) for v, _ in parts], *dtypes)
    if a.dtype.kind == "c":
        target = np.result_type(target, np.complex64)
    return a.astype(target) if np.dtype(target).itemsize < a.dtype.itemsize else a


def _unit_seed(shape, flat_index):
    seed = np.zeros(shape)
    seed.flat[flat_index] = 1.0
    return seed


def _pulled(node, seed, leaves, inp, complex_input, complex_output, value=None):
    """``seedᵀ J`` raveled for the part of the output recorded at ``node`` (None: a zero row): the
    cotangents the seed sends back (their real parts for a complex input), plus ``1j`` times those
    of ``-1j * seed`` when the part or the seed is complex (the imaginary part of ``seedᵀ J``).
    ``value``: the part's value (see ``engine.backward.backward``)."""
    if node is None:
        return _row([None] * len(leaves), inp)
    row = _row(tape.backward(node, seed, leaves, value), inp)
    if complex_input:
        row = np.real(row)
    if complex_output:
        imaginary = _row(tape.backward(node, -1j * seed, leaves, value), inp)
        row = row + 1j * (np.real(imaginary) if complex_input else imaginary)
    return row


def _row(cotangents, inp):
    """One row of the Jacobian, raveled: the cotangents of the input's leaves (zero where none came)."""
    if inp.kind in ("array", "scalar"):
        g = cotangents[0]
        return np.zeros(inp.size) if g is None else np.reshape(g, (inp.size,))
    return np.array([0.0 if g is None else g for g in cotangents]) if cotangents else np.zeros(0)


class FiniteDifferences(Backend):
    """Finite differences: ``method`` ``"central"`` (default, error O(h^2)) or ``"forward"``
    (O(h), one run per direction). ``step`` is the step along a unit direction; by default
    ``eps**(1/3)`` (central) or ``eps**(1/2)`` (forward) times ``max(1, max|x|)``.

    ``executor``: the directions are shared out over its workers, as ``ForwardMode``'s are
    (each task evaluates ``f`` at ``x`` once, and twice per direction, or once when forward).
    """

    chunk = None  # (tasks: an even share of the directions per worker)

    def __init__(self, step: float | None = None, method: str = "central", executor: Any = None) -> None:
        if method not in ("central", "forward"):
            raise ValueError("FiniteDifferences: method must be 'central' or 'forward', got %r" % (method,))
        if step is not None and not (isinstance(step, (int, float)) and step > 0):
            raise ValueError("FiniteDifferences: step must be a positive number or None, got %r" % (step,))
        self.step = step
        self.method = method
        self.executor = scaleout.check_executor(executor, "FiniteDifferences")

    def __repr__(self):
        more = "" if self.executor is None else ", executor=%r" % (self.executor,)
        return "FiniteDifferences(step=%r, method=%r%s)" % (self.step, self.method, more)

    def run(self, f: Callable[[Any], Any], inp: Input, directions: Any, who: str) -> tuple[Any, Any]:
        if scaleout.spreads(self.executor):
            spread = tasks.forward(FiniteDifferences(self.step, self.method), self.executor, f, inp, directions, who)
            if spread is not None:
                return spread
        return Backend.run(self, f, inp, directions, who)

    def pushforward(self, f: Callable[[Any], Any], x: Any, directions: Sequence[Any]) -> tuple[Any, list[Any]]:
        x = _inexact(x)  # (a complex input and its complex directions keep their imaginary parts)
        value = f(x)
        eps = np.finfo(float).eps
        scale = max(1.0, float(np.max(np.abs(x)))) if x.size else 1.0
        base = self.step or (eps ** (1 / 3) if self.method == "central" else eps ** 0.5) * scale
        out = []
        for v in directions:
            v = _inexact(v)
            size = float(np.max(np.abs(v))) if v.size else 0.0
            if size == 0.0:
                out.append(np.zeros(np.shape(value)))
                continue
            h = base / size
            if self.method == "central":
                out.append((np.asarray(f(x + h * v)) - np.asarray(f(x - h * v))) / (2 * h))
            else:
                out.append((np.asarray(f(x + h * v)) - np.asarray(value)) / h)
        return value, out


def _inexact(a):
    """``a`` as a float64 array, or a complex128 one if it is complex (differences need the precision)."""
    a = np.asarray(a)
    return a.astype(complex if a.dtype.kind == "c" else float)


class HigherOrder(Backend):
    """``inner`` for first derivatives; Hessians as ``outer``'s Jacobian of ``inner``'s gradient."""

    def __init__(self, outer: Backend, inner: Backend) -> None:
        for name, b in (("outer", outer), ("inner", inner)):
            if not isinstance(b, Backend):
                raise TypeError("HigherOrder: %s must be a backend (ad.ForwardMode(), ...), got %r" % (name, b))
        self.outer, self.inner = outer, inner

    def __repr__(self):
        return "HigherOrder(%r, %r)" % (self.outer, self.inner)

    def with_executor(self, executor: Any) -> Backend:
        """Both ``outer`` and ``inner`` spreading their passes over ``executor``."""
        return HigherOrder(self.outer.with_executor(executor), self.inner.with_executor(executor))

    def pushforward(self, f: Callable[[Any], Any], x: Any, directions: Sequence[Any]) -> tuple[Any, list[Any]]:
        return self.inner.pushforward(f, x, directions)

    def run(self, f: Callable[[Any], Any], inp: Input, directions: Any, who: str) -> tuple[Any, Any]:
        return self.inner.first_order().run(f, inp, directions, who)

    def first_order(self) -> Backend:
        return self.inner.first_order()

    def second_order(self) -> tuple[Backend, Backend]:
        return self.outer.first_order(), self.inner.first_order()


def check_backend(backend: Backend | None, who: str) -> Backend:
    """``backend``, or the default ``ForwardMode()`` for None; anything else is an error."""
    if backend is None:
        return ForwardMode()
    if not isinstance(backend, Backend):
        raise TypeError(
            "%s: backend must be an ad backend (ad.ForwardMode(), ad.FiniteDifferences(), "
            "ad.HigherOrder(outer, inner)), got %r" % (who, backend)
        )
    return backend
