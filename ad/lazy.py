"""Lazy derivative operators: ``J = lazy_jacobian(f, x)`` computes nothing until used.

``J @ v`` is a jvp (one run), ``w @ J`` a vjp, ``np.asarray(J)`` the dense Jacobian;
``H = lazy_hessian(f, x)`` gives ``H @ v`` and ``v @ H`` as Hessian-vector products.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from collections.abc import Callable
from typing import Any

import numpy as np

from . import api
from .backends import Backend
from .inputs import Input


class LazyJacobian:
    """The Jacobian of ``f`` at ``x`` as an operator."""

    __array_ufunc__ = None  # ``w @ J`` with an ndarray ``w`` comes to __rmatmul__

    def __init__(self, f: Callable[..., Any], x: Any, backend: Backend | None = None) -> None:
        self.f, self.x, self.backend = f, x, backend
        self.input = Input(x, "lazy_jacobian")

    def __repr__(self):
        return "LazyJacobian(%s at an input of shape %s)" % (getattr(self.f, "__name__", self.f), self.input.shape)

    def __matmul__(self, v):
        return api.jvp(self.f, self.x, v, self.backend)[1]

    def __rmatmul__(self, w):
        return api.vjp(self.f, self.x, w, self.backend)[1]

    def __array__(self, dtype=None, copy=None):
        return np.asarray(api.jacobian(self.f, self.x, self.backend), dtype=dtype)


class LazyHessian:
    """The Hessian of a real-valued ``f`` at ``x`` as an operator (symmetric: ``v @ H == H @ v``)."""

    __array_ufunc__ = None

    def __init__(self, f: Callable[..., Any], x: Any, backend: Backend | None = None) -> None:
        self.f, self.x, self.backend = f, x, backend
        self.input = Input(x, "lazy_hessian")

    def __repr__(self):
        return "LazyHessian(%s at an input of shape %s)" % (getattr(self.f, "__name__", self.f), self.input.shape)

    def __matmul__(self, v):
        return api.hvp(self.f, self.x, v, self.backend)

    __rmatmul__ = __matmul__

    def __array__(self, dtype=None, copy=None):
        return np.asarray(api.hessian(self.f, self.x, self.backend), dtype=dtype)


def lazy_jacobian(f: Callable[..., Any], x: Any, backend: Backend | None = None) -> LazyJacobian:
    """The Jacobian of ``f`` at ``x`` as a lazy operator: ``J @ v`` (jvp), ``w @ J`` (vjp)."""
    return LazyJacobian(f, x, backend)


def lazy_hessian(f: Callable[..., Any], x: Any, backend: Backend | None = None) -> LazyHessian:
    """The Hessian of ``f`` at ``x`` as a lazy operator: ``H @ v`` (hvp)."""
    return LazyHessian(f, x, backend)
