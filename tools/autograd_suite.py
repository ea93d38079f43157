#!/usr/bin/env python
"""autograd's own test suite, on plain NumPy, as a reference for ``ad``'s coverage.

The cases (``tests/autograd_cases/``) restate every ``check_grads`` of HIPS/autograd's
``tests/`` with ``autograd.numpy`` as ``numpy`` and ``autograd.scipy`` as ``scipy``. For
each, this differentiates the function with ``ad`` (forward mode, ``ad.jvp``, nested for
second and third order) along random directions, and checks the result against
references that are not ad:

* central finite differences of the plain-NumPy function (a Richardson-extrapolated
  estimate and a plain one at another step; mixed stencils for second and third order,
  never differences of ad's own derivatives);
* autograd itself on the ``autograd.numpy`` version of the same function (``make_jvp``,
  nested; autograd's reverse mode where it has no forward rule), when autograd is
  installed.

Each check (a case at one order) is one of: ``correct`` (ad agrees with a reference),
``clear error`` (``ad.NoRuleError``, or a ``TypeError``/``ValueError`` that names the
function), ``wrong`` (ad's numbers disagree with every reference while two references
agree with each other), ``crash`` (any other exception, or a hang past ``--timeout``),
``inconclusive`` (ad disagrees and the references disagree among themselves), ``n/a``
(the plain-NumPy version cannot run: an autograd-only API) or ``skipped`` (needs SciPy).

    python tools/autograd_suite.py                       # everything
    python tools/autograd_suite.py --match linalg --json out.json
    python tools/autograd_suite.py --report out.json     # print a saved run again

Exit status: 0 when no check is wrong or crashes, 1 otherwise, 2 for a bad command line.
docs/autograd_suite.md has the details and the current figures.
"""

import argparse
import collections
import fnmatch
import itertools
import json
import math
import multiprocessing
import numbers
import os
import platform
import re
import sys
import time
import traceback
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import numpy as onp  # noqa: E402

CLASSES = ["correct", "clear error", "wrong", "crash", "inconclusive", "n/a", "skipped"]
# A case's class is the worst of its orders' classes, in this order.
SEVERITY = ["wrong", "crash", "inconclusive", "clear error", "correct", "n/a", "skipped"]
RTOL = {1: 1e-6, 2: 1e-5, 3: 1e-4}
AGREE = 10.0  # references agree when within AGREE * rtol of each other


# --- trees of arguments and results -----------------------------------------------------------

def is_leaf(x):
    return isinstance(x, (numbers.Number, onp.generic, onp.ndarray)) and not isinstance(x, str)


def leaves(tree, path=()):
    """``[(path, leaf)]`` for the numbers and arrays of a tree of lists, tuples and dicts."""
    if isinstance(tree, (list, tuple)):
        out = []
        for i, e in enumerate(tree):
            out += leaves(e, path + (i,))
        return out
    if isinstance(tree, dict):
        out = []
        for k in tree:
            out += leaves(tree[k], path + (k,))
        return out
    return [(path, tree)] if is_leaf(tree) else []


def get(tree, path):
    for p in path:
        tree = tree[p]
    return tree


def tree_map(fn, tree, *others):
    if isinstance(tree, (list, tuple)):
        return type(tree)(tree_map(fn, e, *(o[i] for o in others)) for i, e in enumerate(tree))
    if isinstance(tree, dict):
        return {k: tree_map(fn, v, *(o[k] for o in others)) for k, v in tree.items()}
    return fn(tree, *others) if is_leaf(tree) else tree


def copy_tree(tree):
    return tree_map(lambda x: x.copy() if isinstance(x, onp.ndarray) else x, tree)


def axpy(x, t, d):
    """``x + t * d`` leaf by leaf (``x``'s leaves may be tagged or boxed values already)."""
    if isinstance(x, (list, tuple)):
        return type(x)(axpy(e, t, d[i]) for i, e in enumerate(x))
    if isinstance(x, dict):
        return {k: axpy(v, t, d[k]) for k, v in x.items()}
    if x is None or isinstance(x, (str, bool)):
        return x
    return x + t * d


def is_complex_leaf(x):
    return isinstance(x, complex) or onp.iscomplexobj(x)


def direction_like(x, rng):
    """A random direction shaped as ``x`` (complex leaves get random real and imaginary parts)."""
    def one(a):
        shape = onp.shape(a)
        d = rng.randn(*shape)
        if is_complex_leaf(a):
            d = d + 1j * rng.randn(*shape)
        if not shape:
            return complex(d) if is_complex_leaf(a) else float(d)
        return d.astype(onp.result_type(a, 1.0)) if onp.asarray(a).dtype.kind in "fc" else d
    return tree_map(one, x)


def scaled(tree, factor):
    return tree_map(lambda a: a * factor, tree)


def maxabs(tree):
    m = 0.0
    for _, leaf in leaves(tree):
        a = onp.abs(onp.asarray(leaf, dtype=complex))
        if a.size:
            m = max(m, float(onp.nanmax(a)))
    return m


def flat(x):
    return onp.asarray(x, dtype=complex).ravel()


# --- the namespaces a case's function is built on ---------------------------------------------

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


# --- one case -----------------------------------------------------------------------------------

class Prepared:
    """A case's arguments, directions, the function on each namespace, and its plain output."""

    def __init__(self, case, namespaces):
        self.case = case
        self.args, self.kwargs = case.make_args()
        rng = onp.random.RandomState(_seed(case.name + "#directions"))
        self.dirs = []
        for _ in range(case.order):
            d = {i: direction_like(self.args[i], rng) for i in case.argnums}
            m = max(maxabs(v) for v in d.values()) or 1.0
            self.dirs.append({i: scaled(v, 1.0 / m) for i, v in d.items()})
        self.namespaces = namespaces
        self.fns = {}
        self.inner_fd = False  # whether the function takes derivatives itself (found by running it)

    def fn(self, kind):
        if kind not in self.fns:
            self.fns[kind] = self.case.build(self.namespaces[kind])
        return self.fns[kind]

    def point(self, coeffs):
        """The arguments at ``x + sum(c_k d_k)`` (copied: functions may write into them)."""
        args = copy_tree(list(self.args))
        for k, c in enumerate(coeffs):
            for i in self.case.argnums:
                args[i] = axpy(args[i], c, self.dirs[k][i])
        return args

    def call(self, kind, coeffs):
        return self.fn(kind)(*self.point(coeffs), **copy_tree(self.kwargs))

    def scale(self):
        return max(1.0, max(maxabs(self.args[i]) for i in self.case.argnums))

    def eps(self):
        eps = 0.0
        for i in self.case.argnums:
            for _, leaf in leaves(self.args[i]):
                dt = onp.asarray(leaf).dtype
                dt = onp.dtype(float) if dt.kind not in "fc" else onp.finfo(dt).dtype
                eps = max(eps, float(onp.finfo(dt).eps))
        return eps or float(onp.finfo(float).eps)

    def direct(self):
        """Whether ad can take the input as it is: one real float array, or one float."""
        if len(self.case.argnums) != 1:
            return False
        x = self.args[self.case.argnums[0]]
        if isinstance(x, onp.ndarray):
            return x.dtype.kind == "f"
        return isinstance(x, float)


def _seed(text):
    import zlib

    return zlib.crc32(text.encode()) & 0x7FFFFFFF


def ad_derivative(prep, path, n):
    """``(value, tangent)`` from ad: the ``n``-th mixed derivative of output leaf ``path``
    along the case's directions (value: the ``n-1``-th)."""
    import ad

    fn = prep.fn("ad")
    kwargs = prep.kwargs
    case = prep.case
    if prep.direct():
        i = case.argnums[0]

        def F(y):
            args = copy_tree(list(prep.args))
            args[i] = y
            return get(fn(*args, **copy_tree(kwargs)), path)

        dirs = [prep.dirs[k][i] for k in range(n)]

        def level(k, y):
            if k == n - 1:
                return ad.jvp(F, y, dirs[k])
            return ad.jvp(lambda z: level(k + 1, z)[1], y, dirs[k])

        x = prep.args[i]
        return level(0, x.copy() if isinstance(x, onp.ndarray) else x)

    def G(coeffs):
        return get(fn(*prep.point(coeffs), **copy_tree(kwargs)), path)

    def level_line(k, coeffs):
        if k == n - 1:
            return ad.jvp(lambda c: G(coeffs + (c,)), 0.0, 1.0)
        return ad.jvp(lambda c: level_line(k + 1, coeffs + (c,))[1], 0.0, 1.0)

    return level_line(0, ())


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


def compare(a, r, rtol):
    """``(ok, err)``: ``a`` within ``rtol`` of ``r`` (relative to each element and to the
    largest of ``r``, at least 1), and the worst error in those units."""
    if a.shape != r.shape:
        return False, math.inf
    if a.size == 0:
        return True, 0.0
    both_nan = onp.isnan(a) & onp.isnan(r)
    scale = max(1.0, float(onp.nanmax(onp.abs(r))) if onp.isfinite(r).any() else 1.0)
    err = onp.abs(a - r) / (onp.abs(r) + scale)
    err = onp.where(both_nan | (a == r), 0.0, err)
    err = onp.where(onp.isnan(err), onp.inf, err)
    worst = float(onp.max(err))
    return worst <= rtol, worst


_KNOWN = None


def _known_names():
    """The names of the functions of NumPy, SciPy's usual modules, math, operator and builtins."""
    global _KNOWN
    if _KNOWN is None:
        import builtins
        import importlib
        import operator

        names = set(dir(onp)) | set(dir(onp.linalg)) | set(dir(onp.fft)) | set(dir(math)) | set(dir(operator))
        names |= set(dir(builtins))
        for mod in ["scipy.special", "scipy.linalg", "scipy.stats", "scipy.signal", "scipy.integrate"]:
            try:
                names |= set(dir(importlib.import_module(mod)))
            except ImportError:
                pass
        _KNOWN = {n for n in names if not n.startswith("__")}
    return _KNOWN


def deliberate(e):
    """Whether ``ad`` (or the engine) raised ``e`` itself: its last frame is a ``raise``
    statement in ad/ or context/ (not an error of NumPy or Python inside a rule)."""
    tb = traceback.extract_tb(e.__traceback__)
    if not tb:
        return False
    last = tb[-1]
    inside = any(last.filename.startswith(os.path.join(ROOT, d) + os.sep) for d in ("ad", "context"))
    if not inside:
        try:
            import ad
            import context

            inside = any(last.filename.startswith(os.path.dirname(m.__file__) + os.sep) for m in (ad, context))
        except ImportError:
            pass
    return inside and (last.line or "").lstrip().startswith("raise")


def names_function(message, case):
    """Whether an error message names a function: the case's own, a qualified name
    (``numpy.pad``, ``np.linalg.norm``), or, first thing in the message, a function of
    NumPy, SciPy, math, operator or the builtins (``gammaln converted ...``)."""
    short = case.func.split(".")[-1]
    if re.search(r"\b%s\b" % re.escape(short), message):
        return True
    if re.search(r"\b(numpy|scipy|np|math|operator|builtins)\.[A-Za-z_]", message):
        return True
    first = re.match(r"\s*([A-Za-z_][\w.]*)", message)
    return bool(first) and first.group(1).split(".")[-1] in _known_names()


NORULE = re.compile(r"^(\S+) has no derivative rule")


def _summary(x, k=6):
    x = onp.asarray(x).ravel()
    return [_num(v) for v in x[:k]]


def _num(v):
    v = complex(v)
    if v.imag == 0:
        return float(v.real) if math.isfinite(v.real) else str(v.real)
    return [float(v.real), float(v.imag)]


def check(prep, n, use_autograd):
    """One check: the case at order ``n``. Returns a record (a dict)."""
    import ad

    case = prep.case
    rec = {"order": n, "mode": "direct" if prep.direct() else "line"}
    native = prep.call("fd", ())
    paths = [p for p, leaf in leaves(native)]
    if not paths:
        rec.update(cls="n/a", detail="the function returns no numbers")
        return rec
    eps = prep.eps()
    rtol = RTOL[n] * max(1.0, math.sqrt(eps / 2.2e-16))
    t0 = time.perf_counter()
    try:
        results = [ad_derivative(prep, p, n) for p in paths]
    except ad.NoRuleError as e:
        msg = str(e)
        m = NORULE.match(msg)
        rec.update(cls="clear error", error_type=type(e).__name__, error=msg[:500],
                   norule=m.group(1) if m else None)
        return rec
    except (TypeError, ValueError) as e:
        msg = str(e)
        ok = deliberate(e) and names_function(msg, case)
        rec.update(cls="clear error" if ok else "crash", error_type=type(e).__name__, error=msg[:500],
                   where=_where(e))
        return rec
    except Exception as e:  # noqa: BLE001 (a crash is a result)
        rec.update(cls="crash", error_type=type(e).__name__, error=str(e)[:500], where=_where(e))
        return rec
    rec["time"] = time.perf_counter() - t0
    ad_values = [flat(v) for v, _ in results]
    ad_tangents = [flat(t) if t is not None else onp.zeros(flat(get(native, p)).shape, complex)
                   for (p, (_, t)) in zip(paths, results)]
    # ad's value must be the function's (first order: the value itself). Where the function
    # takes derivatives itself, its plain value is one of finite differences: autograd's is
    # the other reference.
    if n == 1:
        values = {"native": [flat(get(native, p)) for p in paths]}
        if prep.inner_fd:
            values = {"fd": values["native"]}
            if use_autograd:
                try:
                    ag = prep.call("autograd", ())
                    values["autograd"] = [flat(get(ag, p)) for p in paths]
                except Exception as e:  # noqa: BLE001
                    rec["autograd_value_error"] = "%s: %s" % (type(e).__name__, str(e)[:200])
        vtol = RTOL[1] if prep.inner_fd else 1e-9
        good = {k: all(compare(v, r, vtol)[0] for v, r in zip(ad_values, refs_))
                for k, refs_ in values.items()}
        if not any(good.values()):
            if len(values) == 1:  # exact, unless it is finite differences' own
                agree = not prep.inner_fd
            else:
                agree = all(compare(a, b, AGREE * vtol)[0] for a, b in zip(*values.values()))
            errs = [compare(v, r, vtol) for v, r in zip(ad_values, next(iter(values.values())))]
            j = max(range(len(errs)), key=lambda i: errs[i][1])
            rec.update(cls="wrong" if agree else "inconclusive", detail="ad's value differs from the function's",
                       err=errs[j][1], leaf=list(map(str, paths[j])), ad=_summary(ad_values[j]),
                       refs={k: _summary(r[j]) for k, r in values.items()})
            return rec
    # references
    refs = {}
    scale = prep.scale()
    h_plain = eps ** (1.0 / (n + 2)) * scale
    try:
        # from two starting steps (a function with large higher derivatives needs the
        # smaller), keeping the estimate with the smaller error
        ridders = [min((fd_ridders(prep, p, n, h0 * scale) for h0 in (0.05, 0.002)), key=lambda r: r[1])
                   for p in paths]
        refs["fd"] = [r for r, _ in ridders]
        rec["fd_error_estimate"] = max(e for _, e in ridders)
    except Exception as e:  # noqa: BLE001
        rec["fd_error"] = "%s: %s" % (type(e).__name__, str(e)[:200])
    try:
        refs["fd_plain"] = [fd_derivative(prep, p, n, h_plain) for p in paths]
    except Exception as e:  # noqa: BLE001
        rec["fd_plain_error"] = "%s: %s" % (type(e).__name__, str(e)[:200])
    if use_autograd:
        try:
            got = [autograd_derivative(prep, p, n, is_complex_leaf(get(native, p))) for p in paths]
            refs["autograd"] = [g for g, _ in got]
            rec["autograd_mode"] = got[0][1]
        except Exception as e:  # noqa: BLE001
            rec["autograd_error"] = "%s: %s" % (type(e).__name__, str(e)[:200])

    def close(xs, ys, tol):
        worst, ok = 0.0, True
        for a, b in zip(xs, ys):
            good, err = compare(a, b, tol)
            ok, worst = ok and good, max(worst, err)
        return ok, worst

    verdicts = {k: close(ad_tangents, r, rtol) for k, r in refs.items()}
    rec["errors"] = {k: v[1] for k, v in verdicts.items()}
    agreeing = [(a, b) for a, b in itertools.combinations(sorted(refs), 2)
                if close(refs[a], refs[b], AGREE * rtol)[0]]
    rec["agreeing_refs"] = ["%s=%s" % ab for ab in agreeing]
    if any(ok for ok, _ in verdicts.values()):
        rec["cls"] = "correct"
        return rec
    best = min(refs, key=lambda k: verdicts[k][1]) if refs else None
    # where the disagreement is largest, for the report
    if best is not None:
        worst_leaf, worst_i, worst_e = 0, 0, -1.0
        for j, (a, r) in enumerate(zip(ad_tangents, refs[best])):
            if a.shape == r.shape and a.size:
                e = onp.abs(a - r) / (onp.abs(r) + max(1.0, float(onp.nanmax(onp.abs(r)))))
                e = onp.where(onp.isnan(e), onp.inf, e)
                i = int(onp.argmax(e))
                if e[i] > worst_e:
                    worst_leaf, worst_i, worst_e = j, i, float(e[i])
        rec["at"] = {"leaf": list(map(str, paths[worst_leaf])), "index": worst_i,
                     "ad": _num(ad_tangents[worst_leaf][worst_i]) if ad_tangents[worst_leaf].size else None,
                     "refs": {k: _num(r[worst_leaf][worst_i]) for k, r in refs.items()
                              if r[worst_leaf].shape == ad_tangents[worst_leaf].shape and r[worst_leaf].size}}
        rec["ad"] = _summary(ad_tangents[worst_leaf])
        rec["refs"] = {k: _summary(r[worst_leaf]) for k, r in refs.items()}
    rec["cls"] = "wrong" if agreeing else "inconclusive"
    return rec


def _where(e):
    tb = traceback.extract_tb(e.__traceback__)
    return ["%s:%d %s" % (os.path.relpath(f.filename, ROOT) if f.filename.startswith(ROOT) else f.filename,
                          f.lineno, f.name) for f in tb[-4:]]


def run_case(case, namespaces, use_autograd):
    """Every order of one case: a list of records."""
    base = {"name": case.name, "file": case.file, "test": case.test, "func": case.func, "inputs": case.inputs(),
            "argnums": list(case.argnums), "orders": case.order}
    if case.na:
        return [dict(base, order=1, cls="n/a", detail=case.na)]
    if "scipy" in case.needs:
        try:
            import scipy  # noqa: F401
        except ImportError:
            return [dict(base, order=1, cls="skipped", detail="needs scipy")]
    records = []
    with warnings.catch_warnings(), onp.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            prep = Prepared(case, namespaces)
            before = namespaces["fd"].calls
            prep.call("fd", ())
            prep.inner_fd = namespaces["fd"].calls > before
        except Exception as e:  # noqa: BLE001
            return [dict(base, order=1, cls="n/a",
                         detail="plain NumPy/SciPy cannot run it: %s: %s" % (type(e).__name__, str(e)[:300]))]
        for n in range(1, case.order + 1):
            t0 = time.perf_counter()
            try:
                rec = check(prep, n, use_autograd)
            except Exception as e:  # noqa: BLE001 (the harness itself failed: report it)
                rec = {"order": n, "cls": "crash", "error_type": type(e).__name__,
                       "error": "in the runner: %s" % str(e)[:400], "where": _where(e)}
            rec["seconds"] = round(time.perf_counter() - t0, 3)
            records.append(dict(base, **rec))
            if rec["cls"] in ("clear error", "crash", "n/a"):
                break  # higher orders need the lower ones
    return records


# --- workers, with a timeout per case ------------------------------------------------------------

def _worker(conn, use_autograd):
    import tests.autograd_cases as cases_mod

    by_name = {c.name: c for c in cases_mod.load()}
    kinds = ["ad", "fd"] + (["autograd"] if use_autograd else [])
    namespaces = {}
    for k in kinds:
        try:
            namespaces[k] = Namespace(k)
        except ImportError:
            pass
    use_autograd = "autograd" in namespaces
    conn.send(("ready", use_autograd))
    while True:
        name = conn.recv()
        if name is None:
            break
        try:
            records = run_case(by_name[name], namespaces, use_autograd)
        except BaseException as e:  # noqa: BLE001
            records = [{"name": name, "order": 1, "cls": "crash", "error_type": type(e).__name__,
                        "error": "in the runner: %s" % e}]
        conn.send(("done", records))


class Worker:
    def __init__(self, use_autograd):
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, use_autograd), daemon=True)
        self.proc.start()
        child.close()
        ok = self.conn.poll(300)
        if not ok:
            self.kill()
            raise RuntimeError("a worker did not start")
        _, self.use_autograd = self.conn.recv()
        self.name = None
        self.started = None

    def give(self, name):
        self.name, self.started = name, time.monotonic()
        self.conn.send(name)

    def kill(self):
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)

    def stop(self):
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.proc.join(5)
        self.kill()


def run(cases, jobs=1, timeout=60.0, use_autograd=True, progress=None):
    """Run ``cases`` (Case objects) in ``jobs`` worker processes; returns the records."""
    pending = collections.deque(c.name for c in cases)
    meta = {c.name: c for c in cases}
    workers = [Worker(use_autograd) for _ in range(max(1, min(jobs, len(pending))))]
    records = []
    busy = []
    try:
        while pending or busy:
            for w in workers:
                if w.name is None and pending:
                    w.give(pending.popleft())
                    busy.append(w)
            for w in list(busy):
                if w.conn.poll(0.02):
                    try:
                        _, recs = w.conn.recv()
                    except (EOFError, OSError):
                        recs = [_died(meta[w.name], "the worker process died (exit code %s)" % w.proc.exitcode)]
                        workers[workers.index(w)] = _replace_worker(w, use_autograd)
                    records.extend(recs)
                    if progress:
                        progress(recs)
                    busy.remove(w)
                    w.name = None
                elif not w.proc.is_alive() or time.monotonic() - w.started > timeout:
                    why = ("timed out after %gs" % timeout) if w.proc.is_alive() else \
                        "the worker process died (exit code %s)" % w.proc.exitcode
                    recs = [_died(meta[w.name], why)]
                    records.extend(recs)
                    if progress:
                        progress(recs)
                    busy.remove(w)
                    workers[workers.index(w)] = _replace_worker(w, use_autograd)
    finally:
        for w in workers:
            w.stop()
    return records, workers[0].use_autograd if workers else False


def _replace_worker(w, use_autograd):
    w.kill()
    return Worker(use_autograd)


def _died(case, why):
    return {"name": case.name, "file": case.file, "test": case.test, "func": case.func, "inputs": case.inputs(),
            "argnums": list(case.argnums), "orders": case.order, "order": 1, "cls": "crash",
            "error_type": "Timeout" if "timed out" in why else "WorkerDied", "error": why}


# --- reports -------------------------------------------------------------------------------------

def case_classes(records):
    """``{case name: class}``: the worst class over the case's orders."""
    out = {}
    for r in records:
        cur = out.get(r["name"])
        if cur is None or SEVERITY.index(r["cls"]) < SEVERITY.index(cur):
            out[r["name"]] = r["cls"]
    return out


def counts(records):
    classes = case_classes(records)
    files = collections.OrderedDict()
    file_of = {r["name"]: r["file"] for r in records}
    for name, cls in classes.items():
        files.setdefault(file_of[name], collections.Counter())[cls] += 1
    return classes, files


def _pct(n, total):
    return "%.1f%%" % (100.0 * n / total) if total else "-"


def report(data, out=sys.stdout, quiet=False, show=None):
    records = data["records"]
    classes, files = counts(records)
    cols = ["correct", "clear error", "wrong", "crash", "inconclusive", "n/a", "skipped"]
    w = max([len(f) for f in files] + [10])
    p = lambda *a: print(*a, file=out)  # noqa: E731
    p("autograd's suite under ad: %s, Python %s, NumPy %s%s" % (
        data.get("when", ""), data.get("python", ""), data.get("numpy", ""),
        (", autograd %s" % data["autograd"]) if data.get("autograd") else ", no autograd reference"))
    p("")
    p("%-*s %6s " % (w, "file", "cases") + " ".join("%12s" % c for c in cols))
    total = collections.Counter()
    for f, c in files.items():
        total.update(c)
        p("%-*s %6d " % (w, f, sum(c.values())) + " ".join("%12d" % c[k] for k in cols))
    p("%-*s %6d " % (w, "total", sum(total.values())) + " ".join("%12d" % total[k] for k in cols))
    applicable = sum(total[k] for k in ("correct", "clear error", "wrong", "crash", "inconclusive"))
    p("%-*s %6s " % (w, "% of run", "") + " ".join(
        "%12s" % (_pct(total[k], applicable) if k not in ("n/a", "skipped") else "") for k in cols))
    p("")
    by_order = collections.defaultdict(collections.Counter)
    for r in records:
        by_order[r["order"]][r["cls"]] += 1
    p("checks by order: " + "; ".join(
        "order %d: %s" % (o, ", ".join("%d %s" % (c[k], k) for k in cols if c[k]))
        for o, c in sorted(by_order.items())))
    if quiet:
        return
    limit = show

    def listing(title, rows, fmt):
        p("")
        p("%s (%d):" % (title, len(rows)))
        for row in rows[:limit] if limit else rows:
            p(fmt(row))
        if limit and len(rows) > limit:
            p("  ... %d more (--json has them all)" % (len(rows) - limit))

    wrong = [r for r in records if r["cls"] == "wrong"]
    listing("WRONG results", wrong, _fmt_wrong)
    crashes = [r for r in records if r["cls"] == "crash"]
    listing("crashes", crashes, lambda r: "  %s @%d [%s]: %s: %s%s" % (
        r["name"], r["order"], r.get("func"), r.get("error_type"), _one_line(r.get("error", "")),
        ("\n      at " + " <- ".join(reversed(r["where"][-2:]))) if r.get("where") else ""))
    inconc = [r for r in records if r["cls"] == "inconclusive"]
    listing("inconclusive (the references disagree)", inconc, _fmt_wrong)
    norules = collections.Counter(r.get("norule") for r in records if r["cls"] == "clear error" and r.get("norule"))
    p("")
    p("NoRuleError, by function (%d checks, %d functions):" % (sum(norules.values()), len(norules)))
    for name, n in norules.most_common(limit or None):
        p("  %4d  %s" % (n, name))
    others = collections.Counter("%s: %s" % (r.get("error_type"), _one_line(r.get("error", ""))[:110])
                                 for r in records if r["cls"] == "clear error" and not r.get("norule"))
    if others:
        p("")
        p("other clear errors (%d):" % sum(others.values()))
        for msg, n in others.most_common(limit or None):
            p("  %4d  %s" % (n, msg))
    na = collections.Counter(r.get("detail", "")[:120] for r in records if r["cls"] == "n/a")
    if na:
        p("")
        p("not applicable (%d):" % sum(na.values()))
        for msg, n in na.most_common():
            p("  %4d  %s" % (n, msg))


def _one_line(s):
    s = s.strip().splitlines()[0] if s.strip() else ""
    return s[:300]


def _fmt_wrong(r):
    s = "  %s @%d [%s] (%s)\n      inputs: %s" % (r["name"], r["order"], r.get("func"), r.get("mode"), r.get("inputs"))
    if r.get("detail"):
        s += "\n      " + r["detail"]
    at = r.get("at")
    if at:
        s += "\n      worst at output %s element %d: ad %s; %s" % (
            "/".join(at["leaf"]) or "-", at["index"], at["ad"], ", ".join("%s %s" % kv for kv in at["refs"].items()))
    if "ad" in r:
        s += "\n      ad: %s\n      refs: %s" % (r["ad"], r.get("refs"))
    if r.get("errors"):
        s += "\n      relative errors: %s; references agreeing: %s" % (
            ", ".join("%s %.3g" % kv for kv in r["errors"].items()), ", ".join(r.get("agreeing_refs", [])) or "none")
    return s


# --- command line --------------------------------------------------------------------------------

def select(cases, patterns):
    if not patterns:
        return cases
    pats = [p if any(ch in p for ch in "*?[") else "*%s*" % p for p in patterns]
    return [c for c in cases if any(fnmatch.fnmatchcase(c.name, p) for p in pats)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-m", "--match", action="append", default=[],
                        help="run the cases whose id matches *PAT* (an fnmatch pattern; repeatable)")
    parser.add_argument("--json", metavar="FILE", help="save every record")
    parser.add_argument("--report", metavar="FILE", help="print a saved run again")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per case (default 60)")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--no-autograd", action="store_true", help="finite differences only")
    parser.add_argument("--list", action="store_true", help="list the selected case ids and stop")
    parser.add_argument("--show", type=int, default=0, help="rows per list (default all)")
    parser.add_argument("-q", "--quiet", action="store_true", help="only the tables")
    opts = parser.parse_args(argv)
    if opts.timeout <= 0 or opts.jobs <= 0:
        parser.error("--timeout and --jobs must be positive")
    if opts.report:
        with open(opts.report) as fh:
            data = json.load(fh)
        report(data, quiet=opts.quiet, show=opts.show or None)
        return 0 if not any(r["cls"] in ("wrong", "crash") for r in data["records"]) else 1
    import tests.autograd_cases as cases_mod

    cases = select(cases_mod.load(), opts.match)
    if opts.list:
        for c in cases:
            print(c.name)
        return 0
    if not cases:
        print("no case matches", file=sys.stderr)
        return 2
    t0 = time.time()
    done = [0]

    def progress(recs):
        done[0] += 1
        if sys.stderr.isatty():
            print("\r%d/%d" % (done[0], len(cases)), end="", file=sys.stderr, flush=True)

    records, used_autograd = run(cases, jobs=opts.jobs, timeout=opts.timeout,
                                 use_autograd=not opts.no_autograd, progress=progress)
    if sys.stderr.isatty():
        print("\r", end="", file=sys.stderr)
    order = {c.name: i for i, c in enumerate(cases)}
    records.sort(key=lambda r: (order.get(r["name"], 0), r["order"]))
    ag_version = None
    if used_autograd:
        try:
            from importlib.metadata import version

            ag_version = version("autograd")
        except Exception:  # noqa: BLE001
            ag_version = "?"
    data = {"when": time.strftime("%Y-%m-%d"), "python": platform.python_version(), "numpy": onp.__version__,
            "autograd": ag_version, "seconds": round(time.time() - t0, 1), "patterns": opts.match,
            "records": records}
    try:
        import scipy

        data["scipy"] = scipy.__version__
    except ImportError:
        data["scipy"] = None
    if opts.json:
        with open(opts.json, "w") as fh:
            json.dump(data, fh, indent=1, default=str)
    report(data, quiet=opts.quiet, show=opts.show or None)
    print("\n%d cases, %d checks in %.0f s" % (len(cases), len(records), time.time() - t0))
    return 0 if not any(r["cls"] in ("wrong", "crash") for r in records) else 1


if __name__ == "__main__":
    sys.exit(main())
