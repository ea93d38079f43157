"""The jobs a backend ships to an executor (``ad.scaleout``), and their assembly.

* ``Pushforwards``: forward-mode runs of ``f`` at ``x`` along a range of directions;
* ``Pullbacks``: one recording of ``f`` at ``x`` and backward passes from a range of
  cotangent seeds (rows of the Jacobian, or given seeds).

Each returns the output's form, value and shape with its block, so that the caller can
rebuild the whole result without running ``f`` itself. Jobs hold backends without an
executor: a task never spreads work of its own.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from typing import Any

import numpy as np

from . import outputs, scaleout
from .inputs import Input, UnitBasis


class Pushforwards:
    """``f``'s tangents at ``inp`` along the directions of a part: ``("basis", start, stop)`` (rows of
    the unit basis, made in the worker) or an array of directions."""

    def __init__(self, backend: Any, f: Any, inp: Input, who: str) -> None:
        self.backend, self.f, self.inp, self.who = backend, f, inp, who

    def __call__(self, part: Any) -> tuple[Any, Any, tuple, np.ndarray]:
        if isinstance(part, tuple) and part[0] == "basis":
            directions = self.inp.basis().block(part[1], part[2])
        else:
            directions = part
        output, tangents = self.backend.run(self.f, self.inp, directions, self.who)
        return output.form, output.value, tuple(output.shape), tangents


class Pullbacks:
    """``f`` recorded once at ``inp``, then backward passes: for a part ``("rows", i, k)`` the rows
    of the Jacobian in the ``i``-th of ``k`` even shares of the output's elements (the worker
    learns their number), for an array part one ``wᵀ J`` per seed ``w`` (shaped like the output)."""

    def __init__(self, backend: Any, f: Any, inp: Input, who: str) -> None:
        self.backend, self.f, self.inp, self.who = backend, f, inp, who

    def __call__(self, part: Any) -> tuple[Any, Any, tuple, np.ndarray]:
        backend = self.backend
        if isinstance(part, tuple) and part[0] == "rows":
            output, parts, leaves = backend._record(self.f, self.inp, self.who)
            m = int(np.prod(output.shape))
            start, stop = part[1] * m // part[2], (part[1] + 1) * m // part[2]
            block = backend.rows(parts, leaves, self.inp, start, stop)
        else:
            output, pull = backend.pullback(self.f, self.inp, self.who)
            block = np.stack([pull(w) for w in part]) if len(part) else np.zeros((0, self.inp.size))
        return output.form, output.value, tuple(output.shape), block


def forward(backend: Any, executor: Any, f: Any, inp: Input, directions: Any, who: str):
    """``(output, tangents)`` as ``backend.run`` (a ``ForwardMode`` without executor, run by each task)
    gives them, the directions cut into tasks; None when they make a single task (it runs here)."""
    m = len(directions)
    ranges = scaleout.split(m, backend.chunk, executor)
    if len(ranges) < 2:
        return None
    if isinstance(directions, UnitBasis):
        parts = [("basis", s, e) for s, e in ranges]
    else:
        parts = [directions[s:e] for s, e in ranges]
    names = ["directions %d-%d of %d" % (s, e - 1, m) for s, e in ranges]
    results = scaleout.map_parts(executor, Pushforwards(backend, f, inp, who), parts, names, who)
    return _output(results[0]), np.concatenate([r[3] for r in results])


def reverse_rows(backend: Any, executor: Any, f: Any, inp: Input, who: str):
    """``(output, J)`` as ``backend.jacobian`` (a ``ReverseMode`` without executor) gives them, the rows
    shared out over the workers."""
    k = scaleout.workers(executor)
    parts = [("rows", i, k) for i in range(k)]
    names = ["rows share %d of %d" % (i + 1, k) for i in range(k)]
    results = scaleout.map_parts(executor, Pullbacks(backend, f, inp, who), parts, names, who)
    output = _output(results[0])
    J = np.concatenate([r[3] for r in results]) if results else np.zeros((0, inp.size))
    return output, np.reshape(J, tuple(output.shape) + tuple(inp.shape))


def reverse_seeds(backend: Any, executor: Any, f: Any, inp: Input, seeds: np.ndarray, who: str):
    """``(output, B)`` with ``B[k] = seeds[k]ᵀ J`` raveled, the seeds cut into tasks; None when they
    make a single task."""
    c = len(seeds)
    ranges = scaleout.split(c, None, executor)
    if len(ranges) < 2:
        return None
    names = ["seeds %d-%d of %d" % (s, e - 1, c) for s, e in ranges]
    results = scaleout.map_parts(executor, Pullbacks(backend, f, inp, who), [seeds[s:e] for s, e in ranges], names, who)
    return _output(results[0]), np.concatenate([r[3] for r in results])


def _output(result):
    form, value, shape, _ = result
    return outputs.Plain(form, value, shape)
