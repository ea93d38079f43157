"""The namespaces a case's function is built on: ad's, finite differences' and autograd's
NumPy, SciPy and derivative operators."""

import numpy as onp

from .trees import copy_tree, is_complex_leaf, is_leaf, leaves, maxabs


class Namespace:
    """``np``, ``special``, ``stats``, ``linalg``, ``signal``, ``integrate``, ``mvn`` and the
    derivative operators (``grad``, ``jacobian``, ``elementwise_grad``, ``value_and_grad``)
    for one of the kinds ``ad`` (plain NumPy, ad's operators), ``fd`` (plain NumPy, finite
    differences) and ``autograd`` (autograd.numpy, autograd's operators)."""

    _scipy = {"special": "special", "stats": "stats", "linalg": "linalg", "signal": "signal",
              "integrate": "integrate"}

    def __init__(self, kind):
        self.kind = kind
        if kind == "autograd":
            import autograd
            import autograd.numpy as anp

            self.np = anp
            self.grad = autograd.grad
            self.jacobian = autograd.jacobian
            self.elementwise_grad = autograd.elementwise_grad
            self.value_and_grad = autograd.value_and_grad
        else:
            self.np = onp
            g = ad_grad if kind == "ad" else fd_grad
            jac = ad_jacobian if kind == "ad" else fd_jacobian
            self.calls = 0

            def counted(op):
                def make(*a, **k):
                    self.calls += 1
                    return op(*a, **k)
                return make

            g = counted(g)
            self.grad = g
            self.jacobian = counted(jac)
            self.elementwise_grad = lambda f, argnum=0: elementwise(g, f, argnum)
            self.value_and_grad = lambda f, argnum=0: (lambda *a, **k: (f(*a, **k), g(f, argnum)(*a, **k)))

    def __getattr__(self, name):
        if name in self._scipy:
            import importlib

            base = "autograd.scipy." if self.kind == "autograd" else "scipy."
            mod = importlib.import_module(base + self._scipy[name])
            setattr(self, name, mod)
            return mod
        if name == "mvn":
            return self.stats.multivariate_normal
        raise AttributeError(name)


def _with_arg(args, argnum, value):
    args = list(args)
    args[argnum] = value
    return args


def _grad_tree(leaf_grad, f, argnum):
    """A gradient operator over trees: ``leaf_grad(g, x)`` for each leaf of ``args[argnum]``."""
    def gradfun(*args, **kwargs):
        x = args[argnum]

        def real_out(y):
            out = f(*_with_arg(args, argnum, y), **kwargs)
            return out

        if is_leaf(x) or not isinstance(x, (list, tuple, dict)):
            return leaf_grad(real_out, x)
        result = copy_tree(x)
        for path, leaf in leaves(x):
            def g(y, path=path):
                return real_out(_replace(x, path, y))
            result = _replace(result, path, leaf_grad(g, leaf))
        return result
    return gradfun


def _replace(tree, path, value):
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(tree, dict):
        new = dict(tree)
        new[head] = _replace(tree[head], rest, value)
        return new
    items = list(tree)
    items[head] = _replace(tree[head], rest, value)
    return type(tree)(items)


def ad_grad(f, argnum=0):
    """autograd's ``grad`` with ad: ``d real(f) / d x`` (``d/dx - i d/dy`` for complex ``x``,
    autograd's convention)."""
    import ad

    def leaf_grad(g, x):
        if is_complex_leaf(x):
            re, im = onp.real(x), onp.imag(x)
            gx = ad.gradient(lambda a: _real_part(g(a + 1j * im)), re)
            gy = ad.gradient(lambda b: _real_part(g(re + 1j * b)), im)
            return gx - 1j * gy
        return ad.gradient(lambda a: _real_part(g(a)), x)
    return _grad_tree(leaf_grad, f, argnum)


def _real_part(y):
    """The real part of a one-number result (autograd's grad takes a result of size 1 of any shape)."""
    if onp.ndim(y) and onp.size(y) == 1:
        y = y[(0,) * onp.ndim(y)]
    return onp.real(y) if onp.iscomplexobj(y) else y


def ad_jacobian(f, argnum=0):
    import ad

    def jac(*args, **kwargs):
        return ad.jacobian(lambda y: f(*_with_arg(args, argnum, y), **kwargs), args[argnum])
    return jac


def elementwise(grad, f, argnum):
    def g(*args, **kwargs):
        return grad(lambda *a, **k: onp.sum(f(*a, **k)), argnum)(*args, **kwargs)
    return g


def _fd_scalar_derivative(g, h):
    """``g'(0)`` for ``g`` of one real number: a six-point central stencil (error ``O(h^6)``)."""
    c = (g(h) - g(-h)) * (45.0 / 60) + (g(2 * h) - g(-2 * h)) * (-9.0 / 60) + (g(3 * h) - g(-3 * h)) * (1.0 / 60)
    return c / h


def _fd_step(x, power):
    dt = onp.asarray(x).dtype
    eps = onp.finfo(dt).eps if dt.kind in "fc" else onp.finfo(float).eps
    return float(eps) ** power * max(1.0, maxabs(x))


def fd_grad(f, argnum=0):
    """autograd's ``grad`` by finite differences (six-point stencils, element by element)."""
    def leaf_grad(g, x):
        h = _fd_step(x, 1.0 / 7)
        real = lambda y: float(onp.real(onp.asarray(g(y))).reshape(()))  # noqa: E731
        arr = onp.asarray(x)
        if arr.ndim == 0:
            gx = _fd_scalar_derivative(lambda t: real(x + t), h)
            if is_complex_leaf(x):
                gy = _fd_scalar_derivative(lambda t: real(x + 1j * t), h)
                return complex(gx, -gy)
            return type(x)(gx) if isinstance(x, float) else gx
        out = onp.zeros(arr.shape, dtype=complex if is_complex_leaf(x) else onp.result_type(arr.dtype, float))
        for i in onp.ndindex(arr.shape):
            e = onp.zeros(arr.shape, dtype=arr.dtype)
            e[i] = 1
            gx = _fd_scalar_derivative(lambda t: real(arr + t * e), h)
            if is_complex_leaf(x):
                gy = _fd_scalar_derivative(lambda t: real(arr + 1j * t * e), h)
                gx = gx - 1j * gy
            out[i] = gx
        return out
    return _grad_tree(leaf_grad, f, argnum)


def fd_jacobian(f, argnum=0):
    def jac(*args, **kwargs):
        x = args[argnum]
        arr = onp.asarray(x, dtype=float)
        h = _fd_step(arr, 1.0 / 7)
        call = lambda y: onp.asarray(f(*_with_arg(args, argnum, y), **kwargs))  # noqa: E731
        out0 = call(x)
        J = onp.zeros(out0.shape + arr.shape, dtype=onp.result_type(out0.dtype, float))
        for i in onp.ndindex(arr.shape):
            e = onp.zeros(arr.shape)
            e[i] = 1
            if arr.ndim == 0:
                J[...] = _fd_scalar_derivative(lambda t: call(float(x) + t), h)
            else:
                J[(Ellipsis,) + i] = _fd_scalar_derivative(lambda t: call(arr + t * e), h)
        return J
    return jac
