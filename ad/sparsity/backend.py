"""``ad.Sparse(backend)``: sparse Jacobians and Hessians in as many passes as there are colours.

The pattern is detected once per function and input shape (the global detector: it
holds for every input), coloured once, and reused by every later call, as a solver
calls its Jacobian hundreds of times. Each call then costs one pass of the wrapped
backend per colour:

* Jacobians, forward mode: columns coloured, ``J @ S`` by one pushforward per colour;
* Jacobians, reverse mode: rows coloured, ``Sᵀ J`` by one backward pass per colour;
* Hessians: a star colouring of the symmetric pattern, ``H @ S`` by one Hessian-vector
  product per colour (the backend's second order: forward over forward, or forward
  over reverse), each entry read directly from the products.

With ``executor=`` (or a wrapped backend that has one) the colours' passes are tasks of
that executor (``ad.scaleout``); the pattern is detected and coloured here, once.

Results are SciPy CSR matrices whose stored entries are the pattern's (a structural
zero is never stored; an entry of the pattern that happens to be 0 at ``x`` is).
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import closures, scaleout, tasks
from ..backends import Backend, ReverseMode
from ..inputs import Input
from . import api


class Sparse(Backend):
    """Sparse derivatives with ``backend`` (``ad.ForwardMode()`` by default) doing the passes.

    ``local=True`` detects the pattern at each input instead of once for all inputs (for
    code whose pattern depends on the branch taken); ``jacobian_pattern`` and
    ``hessian_pattern`` give the pattern instead of detecting it; ``executor`` (a
    ``concurrent.futures.Executor``) spreads the colours' passes over its workers.
    """

    sparse = True  # ad.jacobian and ad.hessian hand the whole computation to it

    def __init__(self, backend: Backend | None = None, *, local: bool = False, jacobian_pattern: Any = None,
                 hessian_pattern: Any = None, executor: Any = None) -> None:
        from ..backends import ForwardMode

        backend = ForwardMode() if backend is None else backend
        if not isinstance(backend, Backend) or isinstance(backend, Sparse):
            raise TypeError("Sparse: backend must be a dense ad backend (ad.ForwardMode(), ad.ReverseMode(), ...), "
                            "got %r" % (backend,))
        self.backend = backend if executor is None else backend.with_executor(executor)
        self.local = bool(local)
        self._given = {"jacobian": jacobian_pattern, "hessian": hessian_pattern}
        self._plans = {}  # (kind, function, input shape) -> (pattern, colours, number of colours)

    def __repr__(self):
        return "Sparse(%r%s)" % (self.backend, ", local=True" if self.local else "")

    def pushforward(self, f: Callable[[Any], Any], x: Any, directions: Any) -> tuple[Any, list[Any]]:
        """The wrapped backend's pushforward (dense directions need no colouring)."""
        return self.backend.pushforward(f, x, directions)

    def first_order(self) -> Backend:
        return self.backend.first_order()

    def second_order(self) -> tuple[Backend, Backend]:
        return self.backend.second_order()

    # ---- plans: pattern and colouring, once per function and shape --------------------

    def plan(self, kind: str, f: Callable[[Any], Any], x: np.ndarray) -> tuple[Any, np.ndarray, int]:
        """``(pattern, colours, number of colours)`` for ``kind`` (``"jacobian"`` or ``"hessian"``)."""
        from . import coloring

        key = (kind, f, np.shape(x))
        found = None if self.local else self._plans.get(key)
        if found is not None:
            return found
        pattern = self._given[kind]
        if pattern is None:
            detect = api.jacobian_sparsity if kind == "jacobian" else api.hessian_sparsity
            pattern = detect(f, x, local=self.local)
        else:
            pattern = api._sparse().csr_matrix(pattern, dtype=bool)
        if kind == "hessian":
            colours = coloring.star_coloring(pattern)
        elif isinstance(self.backend, ReverseMode):
            colours = coloring.row_coloring(pattern)
        else:
            colours = coloring.column_coloring(pattern)
        found = (pattern, colours, int(colours.max()) + 1 if len(colours) else 0)
        if not self.local:
            self._plans[key] = found
        return found

    # ---- derivatives ---------------------------------------------------------------------

    def value_and_jacobian(self, f: Callable[[Any], Any], x: Any) -> tuple[Any, Any]:
        """``(f(x), J)``, ``J`` a SciPy CSR matrix ``f(x).size`` by ``x.size``."""
        from . import coloring

        inp = _array_input(x, "jacobian")
        pattern, colours, c = self.plan("jacobian", f, inp.value)
        m, n = pattern.shape
        if isinstance(self.backend, ReverseMode):
            seeds = coloring.seed_matrix(colours, c)  # (m, c)
            if scaleout.spreads(self.backend.executor):
                spread = tasks.reverse_seeds(ReverseMode(), self.backend.executor, f, inp, seeds.T, "jacobian")
                if spread is not None:
                    output, B = spread
                    _check_size(output.value, m, "jacobian")
                    return output.value, coloring.decompress_rows(pattern, colours, B)
            output, pull = self.backend.pullback(f, inp, "jacobian")
            _check_size(output.value, m, "jacobian")
            B = np.stack([pull(seeds[:, k].reshape(np.shape(output.value))) for k in range(c)]) if c else \
                np.zeros((0, n))
            return output.value, coloring.decompress_rows(pattern, colours, B)
        seeds = coloring.seed_matrix(colours, c)  # (n, c)
        directions = seeds.T.reshape((c,) + inp.shape)
        output, tangents = self.backend.run(f, inp, directions, "jacobian")
        _check_size(output.value, m, "jacobian")
        B = np.reshape(tangents, (c, m)).T
        return output.value, coloring.decompress_columns(pattern, colours, B)

    def jacobian(self, f: Callable[[Any], Any], x: Any) -> Any:
        """The sparse Jacobian of ``f`` at ``x`` (see ``value_and_jacobian``)."""
        return self.value_and_jacobian(f, x)[1]

    def hessian(self, f: Callable[[Any], Any], x: Any) -> Any:
        """The sparse Hessian of scalar ``f`` at ``x``: a symmetric SciPy CSR matrix ``x.size`` by ``x.size``."""
        from . import coloring
        from ..api import gradient

        inp = _array_input(x, "hessian")
        pattern, colours, c = self.plan("hessian", f, inp.value)
        outer, inner = self.backend.second_order()
        seeds = coloring.seed_matrix(colours, c)
        directions = seeds.T.reshape((c,) + inp.shape)
        _, tangents = outer.run(closures.gradient_of(f, gradient, inner), inp, directions, "hessian")
        B = np.reshape(tangents, (c, inp.size)).T
        return coloring.decompress_star(pattern, colours, B)


def _array_input(x, who):
    inp = Input(np.asarray(x, dtype=float) if isinstance(x, (list, tuple)) else x, who)
    if inp.kind != "array":
        raise TypeError("%s with ad.Sparse: x must be a float array, got %s" % (who, type(x).__name__))
    return inp


def _check_size(value, m, who):
    if np.size(value) != m:
        raise ValueError(
            "%s with ad.Sparse: the function returned %d values, but its sparsity pattern was detected for %d; "
            "a function whose output changes shape needs a new ad.Sparse backend (or local=True)"
            % (who, np.size(value), m)
        )
