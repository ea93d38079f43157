"""The representation of the cases: argument specs, ``Case`` and ``Suite``, and our own
versions of the helpers autograd's suite checks whole families of functions with
(``stat_check``, ``unary_ufunc_check``, ``binary_ufunc_check``, ``combo_check``).

Nothing here imports ad or autograd: a case's function is built from a *namespace*
(``ns.np`` is NumPy or autograd.numpy, ``ns.special`` is scipy.special or
autograd.scipy.special, ``ns.grad`` is a gradient operator, ...) that the runner
(``tools/autograd_suite.py``) provides, once per reference.
"""

import inspect
import itertools
import zlib

import numpy as onp


class Spec:
    """How to make one argument: ``make(rng)`` draws it; ``label`` names it in a case id.

    Arithmetic on specs builds specs (``R(4) ** 2 + 1.1``). A spec with a ``key`` is drawn
    from a generator seeded by the test and the key, so that two arguments with the same
    key are the same array (autograd's ufunc checks pass one array as both arguments).
    """

    def __init__(self, label, make, key=None):
        self.label = label
        self._make = make
        self.key = key

    def make(self, rng, keyed):
        return self._make(keyed(self.key) if self.key is not None else rng)

    def map(self, fn, label):
        return Spec(label, lambda r, s=self: fn(s._make(r)), self.key)

    def _op(self, other, fn, sym, reflected=False):
        if isinstance(other, Spec):
            # both drawn from the same generator, left operand first
            def make(r, a=self, b=other):
                x = a._make(r)
                y = b._make(r)
                return fn(y, x) if reflected else fn(x, y)

            label = "(%s%s%s)" % ((other.label, sym, self.label) if reflected else (self.label, sym, other.label))
            return Spec(label, make, self.key)
        lab = _short(other)
        label = ("%s%s%s" % (lab, sym, self.label)) if reflected else ("%s%s%s" % (self.label, sym, lab))
        return Spec(label, lambda r, s=self: fn(other, s._make(r)) if reflected else fn(s._make(r), other), self.key)

    def __add__(self, o):
        return self._op(o, lambda a, b: a + b, "+")

    def __radd__(self, o):
        return self._op(o, lambda a, b: a + b, "+", True)

    def __sub__(self, o):
        return self._op(o, lambda a, b: a - b, "-")

    def __rsub__(self, o):
        return self._op(o, lambda a, b: a - b, "-", True)

    def __mul__(self, o):
        return self._op(o, lambda a, b: a * b, "*")

    def __rmul__(self, o):
        return self._op(o, lambda a, b: a * b, "*", True)

    def __truediv__(self, o):
        return self._op(o, lambda a, b: a / b, "/")

    def __pow__(self, o):
        return self._op(o, lambda a, b: a ** b, "**")

    def __neg__(self):
        return self.map(lambda a: -a, "-" + self.label)

    def __abs__(self):
        return self.map(abs, "|%s|" % self.label)

    def __gt__(self, o):
        return self._op(o, lambda a, b: a > b, ">")

    def __repr__(self):
        return self.label


def _short(x):
    if isinstance(x, Spec):
        return x.label
    if isinstance(x, float):
        return ("%g" % x) if x == x else "nan"
    if isinstance(x, complex):
        return repr(x)
    if isinstance(x, str):
        return repr(x)
    if isinstance(x, onp.ndarray):
        if x.size <= 4:
            return "array(%s)" % onp.array2string(x, separator=",").replace(" ", "")
        return "array%s" % (x.shape,)
    if isinstance(x, (list, tuple)):
        inner = ",".join(_short(e) for e in x)
        if isinstance(x, list):
            return "[%s]" % inner
        return "(%s%s)" % (inner, "," if len(x) == 1 else "")
    if isinstance(x, dict):
        return "{%s}" % ",".join("%r:%s" % (k, _short(v)) for k, v in x.items())
    return repr(x)


def _shape_label(shape):
    return ",".join(str(s) for s in shape)


def _size(shape):
    return shape if shape else None


def R(*shape, key=None):
    """``npr.randn(*shape)``: a float for no shape, else an array."""
    return Spec("R(%s)" % _shape_label(shape), lambda r: float(r.randn()) if not shape else r.randn(*shape), key)


def C(*shape, key=None):
    """autograd's ``C``: ``randn + 1j * randn``."""
    def make(r):
        if not shape:
            return complex(r.randn(), r.randn())
        return r.randn(*shape) + 1j * r.randn(*shape)

    return Spec("C(%s)" % _shape_label(shape), make, key)


def rand(*shape, key=None):
    """``npr.rand(*shape)``."""
    return Spec("rand(%s)" % _shape_label(shape), lambda r: float(r.rand()) if not shape else r.rand(*shape), key)


def U(low, high, *shape, key=None):
    """``npr.uniform(low, high, shape)``."""
    return Spec("U(%g,%g%s)" % (low, high, (",(%s)" % _shape_label(shape)) if shape else ""),
                lambda r: float(r.uniform(low, high)) if not shape else r.uniform(low, high, shape), key)


def const(value, label=None):
    """A fixed argument (copied afresh for every call)."""
    return Spec(label or _short(value), lambda r: _copy(value))


def made(label, fn, key=None):
    """An argument made by ``fn(rng)`` (an ``npr.RandomState``)."""
    return Spec(label, fn, key)


def _copy(x):
    if isinstance(x, onp.ndarray):
        return x.copy()
    if isinstance(x, list):
        return [_copy(e) for e in x]
    if isinstance(x, tuple):
        return tuple(_copy(e) for e in x)
    if isinstance(x, dict):
        return {k: _copy(v) for k, v in x.items()}
    return x


def make_args(tree, rng, keyed):
    """The argument values for a tree of specs and constants."""
    if isinstance(tree, Spec):
        return tree.make(rng, keyed)
    if isinstance(tree, list):
        return [make_args(e, rng, keyed) for e in tree]
    if isinstance(tree, tuple):
        return tuple(make_args(e, rng, keyed) for e in tree)
    if isinstance(tree, dict):
        return {k: make_args(v, rng, keyed) for k, v in tree.items()}
    return _copy(tree)


def seed_of(text):
    return zlib.crc32(text.encode()) & 0x7FFFFFFF


class Case:
    """One autograd check: ``check_grads(fun, argnum=argnums, order=order)(*args, **kwargs)``.

    ``fn`` builds the function from a namespace: ``fn(ns)`` or ``fn(ns, r)`` (``r`` a seeded
    ``npr.RandomState`` for constants the function closes over; it is seeded alike for every
    namespace), or a dotted name resolved in the namespace (``"np.kron"``). ``func`` names
    what the case tests (for reports, and to tell a clear error from a crash). ``na`` says
    why the case cannot be run on plain NumPy (an autograd-only API), ``needs`` lists
    optional modules (``"scipy"``).
    """

    def __init__(self, file, test, fn, args, argnums=(0,), kwargs=None, order=2, func=None, needs=(),
                 na=None, label=None, modes=("fwd", "rev"), note=None):
        self.file = file
        self.test = test
        self.fn = fn
        self.args = tuple(args)
        self.argnums = tuple(argnums) if isinstance(argnums, (tuple, list)) else (argnums,)
        self.kwargs = dict(kwargs or {})
        self.order = order
        self.func = func or (fn if isinstance(fn, str) else test[5:] if test.startswith("test_") else test)
        self.needs = tuple(needs)
        self.na = na
        self.label = label
        self.modes = tuple(modes)
        self.note = note
        self.name = None  # set by the suite

    @property
    def group(self):
        return "%s::%s" % (self.file, self.test)

    def inputs(self):
        """The arguments and keywords, as text."""
        parts = [_short(a) for a in self.args]
        parts += ["%s=%s" % (k, _short(v)) for k, v in self.kwargs.items()]
        return ", ".join(parts)

    def build(self, ns):
        """The function, built on namespace ``ns``."""
        fn = self.fn
        if isinstance(fn, str):
            obj = ns
            for part in fn.split("."):
                obj = getattr(obj, part)
            return obj
        r = onp.random.RandomState(seed_of(self.name + "#closure"))
        nparams = len(inspect.signature(fn).parameters)
        return fn(ns, r) if nparams >= 2 else fn(ns)

    def make_args(self):
        """``(args, kwargs)``, drawn afresh (the same every time)."""
        rng = onp.random.RandomState(seed_of(self.name))
        keyed = lambda key: onp.random.RandomState(seed_of(self.group + "#" + str(key)))  # noqa: E731
        args = make_args(self.args, rng, keyed)
        kwargs = make_args(self.kwargs, rng, keyed)
        return args, kwargs


class Suite:
    """The cases of one autograd test file."""

    def __init__(self, file):
        self.file = file
        self.cases = []

    def check(self, test, fn, *args, argnums=(0,), order=2, func=None, needs=(), na=None, label=None,
              modes=("fwd", "rev"), note=None, **kwargs):
        """One ``check_grads(fn, argnum=argnums, order=order)(*args, **kwargs)``."""
        case = Case(self.file, test, fn, args, argnums, kwargs, order, func, needs, na, label, modes, note)
        self.cases.append(case)
        return case

    def combo(self, test, fn, *arglists, argnums=(0,), order=2, func=None, needs=(), na=None,
              modes=("fwd", "rev"), note=None, **kwlists):
        """autograd's ``combo_check(fn, argnums)(*arglists, **kwlists)``: every combination."""
        keys = list(kwlists)
        for args in itertools.product(*arglists):
            for values in itertools.product(*(kwlists[k] for k in keys)):
                self.check(test, fn, *args, argnums=argnums, order=order, func=func, needs=needs, na=na,
                           modes=modes, note=note, **dict(zip(keys, values)))

    def finish(self):
        """Give every case its id: ``file::test``, with the inputs in brackets where a test has
        several checks (and a counter where those are alike)."""
        by_test = {}
        for c in self.cases:
            by_test.setdefault(c.test, []).append(c)
        for test, cases in by_test.items():
            seen = {}
            for c in cases:
                base = "%s::%s" % (self.file, test)
                if len(cases) > 1 or c.label:
                    base += "[%s]" % (c.label or c.inputs())
                n = seen.get(base, 0)
                seen[base] = n + 1
                c.name = base if n == 0 else "%s#%d" % (base, n + 1)
        return self.cases


# --- our versions of autograd's tests/numpy_utils.py families -------------------------------------

def transform(lims, spec):
    """``x * (hi - lo) + lo``."""
    lo, hi = lims
    if isinstance(spec, Spec):
        return spec.map(lambda x: x * (hi - lo) + lo, "T[%g,%g](%s)" % (lo, hi, spec.label))
    return spec * (hi - lo) + lo


def stat_check(suite, test, fn, test_complex=True, **kw):
    """A reduction (sum, mean, ...) on scalars, vectors and matrices, with ``axis`` and ``keepdims``."""
    x, A, B, Cm, D = const(3.5), R(key="A"), R(3, key="B"), R(2, 3, key="C"), R(1, 3, key="D")
    suite.combo(test, fn, [x, A], **kw)
    suite.combo(test, fn, [B, Cm, D], axis=[None, 0], keepdims=[True, False], **kw)
    suite.combo(test, fn, [Cm, D], axis=[None, 0, 1], keepdims=[True, False], **kw)
    if test_complex:
        c = made("R()+0.1jR()", lambda r: complex(r.randn(), 0.1 * r.randn()), key="c")
        E = made("R(2,3)+0.1jR(2,3)", lambda r: r.randn(2, 3) + 0.1j * r.randn(2, 3), key="E")
        suite.combo(test, fn, [x, c, A], **kw)
        suite.combo(test, fn, [B, Cm, D, E], axis=[None, 0], keepdims=[True, False], **kw)


def unary_ufunc_check(suite, test, fn, lims=(-2, 2), test_complex=True, **kw):
    """An elementwise function on a scalar, a vector and matrices in ``lims``; complex ones too."""
    scalar = const(transform(lims, 0.4))
    vector = transform(lims, rand(2, key="v"))
    mat = transform(lims, rand(3, 2, key="m"))
    mat2 = transform(lims, rand(1, 2, key="m2"))
    suite.combo(test, fn, [scalar, vector, mat, mat2], **kw)
    if test_complex:
        comp = const(complex(transform(lims, 0.4), 0.1 * transform(lims, 0.3)))
        lo, hi = lims
        matc = made("T[%g,%g](rand(3,2))+0.1j*rand(3,2)" % (lo, hi),
                    lambda r: r.rand(3, 2) * (hi - lo) + lo + 0.1j * r.rand(3, 2), key="mc")
        suite.combo(test, fn, [comp, matc], **kw)


def binary_ufunc_check(suite, test, fn, lims_A=(-2, 2), lims_B=(-2, 2), test_complex=True, **kw):
    """A binary elementwise function on every pair of shapes (broadcasting); the same base
    arrays are used for both arguments, as autograd does."""
    scalar = 0.6
    vector, mat, mat2 = rand(2, key="vector"), rand(3, 2, key="mat"), rand(1, 2, key="mat2")
    TA = lambda s: const(transform(lims_A, s)) if not isinstance(s, Spec) else transform(lims_A, s)  # noqa: E731
    TB = lambda s: const(transform(lims_B, s)) if not isinstance(s, Spec) else transform(lims_B, s)  # noqa: E731
    suite.combo(test, fn, [TA(scalar), TA(vector), TA(mat), TA(mat2)], [TB(scalar), TB(vector), TB(mat), TB(mat2)],
                argnums=(0, 1), **kw)
    if test_complex:
        comp = 0.6 + 0.3j
        matc = made("rand(3,2)+0.1j*rand(3,2)", lambda r: r.rand(3, 2) + 0.1j * r.rand(3, 2), key="matc")
        suite.combo(test, fn, [TA(scalar), TA(comp), TA(vector), TA(matc), TA(mat2)],
                    [TB(scalar), TB(comp), TB(vector), TB(matc), TB(mat2)], argnums=(0, 1), **kw)


def binary_ufunc_check_no_same_args(suite, test, fn, lims_A=(-2, 2), lims_B=(-2, 2), test_complex=True, **kw):
    """As ``binary_ufunc_check``, with different arrays for the two arguments."""
    TA = lambda s: const(transform(lims_A, s)) if not isinstance(s, Spec) else transform(lims_A, s)  # noqa: E731
    TB = lambda s: const(transform(lims_B, s)) if not isinstance(s, Spec) else transform(lims_B, s)  # noqa: E731
    s1, s2 = 0.6, 0.7
    v1, v2 = rand(2, key="v1"), rand(2, key="v2")
    m11, m12 = rand(3, 2, key="m11"), rand(3, 2, key="m12")
    m21, m22 = rand(1, 2, key="m21"), rand(1, 2, key="m22")
    suite.combo(test, fn, [TA(s1), TA(v1), TA(m11), TA(m21)], [TB(s2), TB(v2), TB(m12), TB(m22)],
                argnums=(0, 1), **kw)
    if test_complex:
        c1, c2 = 0.6 + 0.3j, 0.1 + 0.2j
        mc1 = made("rand(3,2)+0.1j*rand(3,2)", lambda r: r.rand(3, 2) + 0.1j * r.rand(3, 2), key="mc1")
        mc2 = made("rand(3,2)+0.1j*rand(3,2)'", lambda r: r.rand(3, 2) + 0.1j * r.rand(3, 2), key="mc2")
        suite.combo(test, fn, [TA(s1), TA(c1), TA(v1), TA(mc1), TA(m21)], [TB(s2), TB(c2), TB(v2), TB(mc2), TB(m22)],
                    argnums=(0, 1), **kw)
