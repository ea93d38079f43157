"""The references ad is checked against: mixed central differences (plain and Ridders'
extrapolation) and autograd's own derivatives."""

import itertools
import math

import numpy as onp

from .trees import copy_tree, flat, get


def fd_derivative(prep, path, n, h):
    """The ``n``-th mixed central difference of output leaf ``path`` at step ``h``."""
    total = None
    for signs in itertools.product((1.0, -1.0), repeat=n):
        v = flat(get(prep.call("fd", tuple(s * h for s in signs)), path)) * math.prod(signs)
        total = v if total is None else total + v
    return total / (2 * h) ** n


def fd_ridders(prep, path, n, h0, steps=10, con=1.4):
    """Ridders' extrapolation of the mixed central differences of order ``n`` (Numerical
    Recipes' ``dfridr``, on vectors): differences at steps ``h0 / con**i``, extrapolated to
    step 0 in a Neville tableau, keeping the entry whose error estimate is smallest.
    Returns ``(estimate, error estimate)``. Steps whose difference is not finite (out of
    the function's domain) are skipped, and every entry of the tableau is a candidate (no
    early stop: a first step too large for the function only spoils the first entries)."""
    diffs = []
    h = h0
    for _ in range(steps):
        d = fd_derivative(prep, path, n, h)
        diffs.append(d)
        h /= con
    start = 0
    for i, d in enumerate(diffs):
        if not onp.all(onp.isfinite(d)):
            start = i + 1
    diffs = diffs[start:]
    if not diffs:
        raise FloatingPointError("no finite difference at any step")
    best, err = diffs[-1], math.inf
    prev = [diffs[0]]
    fac0 = con * con
    for i in range(1, len(diffs)):
        row = [diffs[i]]
        fac = fac0
        for j in range(1, i + 1):
            row.append((row[j - 1] * fac - prev[j - 1]) / (fac - 1.0))
            fac *= fac0
            errt = max(_norm(row[j] - row[j - 1]), _norm(row[j] - prev[j - 1]))
            if errt <= err:
                err, best = errt, row[j]
        prev = row
    return best, err


def _norm(x):
    return float(onp.max(onp.abs(x))) if x.size else 0.0


def autograd_derivative(prep, path, n, complex_out):
    """autograd's ``n``-th mixed derivative of output leaf ``path``: forward mode
    (``make_jvp``, nested), else reverse mode (``jacobian``, nested) on the real and
    imaginary parts."""
    import autograd
    import autograd.numpy as anp
    from autograd import make_jvp

    fn = prep.fn("autograd")

    def G(coeffs):
        return get(fn(*prep.point(coeffs), **copy_tree(prep.kwargs)), path)

    def level(k, coeffs):
        if k == n - 1:
            return make_jvp(lambda c: G(coeffs + (c,)))(0.0)(1.0)
        return make_jvp(lambda c: level(k + 1, coeffs + (c,))[1])(0.0)(1.0)

    try:
        return flat(level(0, ())[1]), "fwd"
    except Exception:
        pass

    def real_flat(coeffs):
        out = anp.ravel(G(coeffs))
        if complex_out:
            return anp.concatenate([anp.real(out), anp.imag(out)])
        return out + 0.0

    if n == 1:
        r = onp.asarray(autograd.jacobian(lambda c: real_flat((c,)))(0.0), dtype=float).ravel()
    else:
        # one scalar output at a time: n nested gradients each (a nested jacobian would
        # cost the square of the output's size)
        m = onp.size(real_flat((0.0,) * n))

        def component(i):
            def glevel(k, coeffs):
                if k == n - 1:
                    return autograd.grad(lambda c: real_flat(coeffs + (c,))[i])(0.0)
                return autograd.grad(lambda c: glevel(k + 1, coeffs + (c,)))(0.0)
            return glevel(0, ())

        r = onp.array([float(component(i)) for i in range(m)])
    if complex_out:
        m = r.size // 2
        r = r[:m] + 1j * r[m:]
    return flat(r), "rev"
