"""autograd's tests/test_binary_ops.py and tests/test_truediv.py: the arithmetic operators,
``arctan2`` and ``hypot`` on every pair of a scalar, a vector and matrices, and the
comparisons (derivative zero). As there, ``check_grads(fun)(a, b)`` differentiates the
first argument only."""

import operator as op

import numpy as onp

from ._core import R, Suite, const

S = Suite("test_binary_ops.py")
T = Suite("test_truediv.py")
SUITES = [S, T]

ARGS = [("scalar", const(2.0)), ("vector", R(4, key="vector")), ("mat", R(3, 4, key="mat")),
        ("mat2", R(1, 4, key="mat2"))]


def pairs():
    for i, (na, a) in enumerate(ARGS):
        for j, (nb, b) in enumerate(ARGS):
            yield i, j, a, b


gap = lambda s: s.map(lambda x: onp.sqrt(x ** 2 + 0.5), "gap(%s)" % s.label)  # noqa: E731
positive = lambda s: s.map(lambda x: onp.abs(x) + 1.1, "|%s|+1.1" % s.label)  # noqa: E731

for i, j, a, b in pairs():
    S.check("test_mul", lambda ns: op.mul, a, b, func="operator.mul")
    S.check("test_add", lambda ns: op.add, a, b, func="operator.add")
    S.check("test_sub", lambda ns: op.sub, a, b, func="operator.sub")
    S.check("test_div", lambda ns: op.truediv, gap(a), gap(b), func="operator.truediv")
    T.check("test_div", lambda ns: op.truediv, gap(a), gap(b), func="operator.truediv")
    if i != j:  # the gradient is undefined where x == y
        S.check("test_mod", lambda ns: op.mod, gap(a), gap(b), func="operator.mod")
    S.check("test_pow", lambda ns: op.pow, positive(a), b, func="operator.pow")
    S.check("test_arctan2", "np.arctan2", a, b)
    S.check("test_hypot", "np.hypot", a, b)

COMPARE = [("lt", op.lt), ("le", op.le), ("gt", op.gt), ("ge", op.ge), ("eq", op.eq), ("ne", op.ne)]
for i, j, a, b in pairs():
    for _name, _op in COMPARE:
        S.check("test_comparison_grads", (lambda o: lambda ns: lambda x, y: ns.np.sum(o(x, y)) + 0.0)(_op), a, b,
                argnums=(0, 1), order=1, func="operator." + _name,
                label="%s, %s, %s" % (_name, ARGS[i][0], ARGS[j][0]))
