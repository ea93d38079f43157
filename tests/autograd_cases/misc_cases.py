"""The numeric checks of autograd's tests/test_logic.py, test_core.py, test_direct.py,
test_jacobian.py, test_wrappers.py and test_misc.py."""

import operator as op

import numpy as onp

from ._core import R, Suite, const

LOGIC = Suite("test_logic.py")
CORE = Suite("test_core.py")
DIRECT = Suite("test_direct.py")
JAC = Suite("test_jacobian.py")
WRAP = Suite("test_wrappers.py")
MISC = Suite("test_misc.py")
SUITES = [LOGIC, CORE, DIRECT, JAC, WRAP, MISC]


# --- test_logic.py ---
def _assert(ns):
    def fun(x):
        assert ns.np.allclose(x, (x * 3.0) / 3.0)
        return ns.np.sum(x)
    return fun


LOGIC.check("test_assert", _assert, const(onp.array([1.0, 2.0, 3.0])), func="np.allclose")
# autograd raises TypeError (a boolean result has no gradient); the derivative is zero
LOGIC.check("test_nograd", lambda ns: lambda x: ns.np.allclose(x, (x * 3.0) / 3.0),
            const(onp.array([1.0, 2.0, 3.0])), order=1, func="np.allclose")


def _falsey(ns):
    return lambda x: ns.np.real(x ** 2 if ns.np.iscomplex(x) else ns.np.sum(x))


for _test, _points in [("test_falseyness", [2.0, 2.0 + 1j]), ("test_unimplemented_falseyness", [5.0, 2.0 + 1j])]:
    for _x in _points:
        LOGIC.check(_test, _falsey, const(_x), func="np.iscomplex")

# --- test_core.py: the operators on two floats, each argument in turn ---
for _name, _op in [("add", op.add), ("sub", op.sub), ("div", op.truediv), ("mul", op.mul), ("pow", op.pow),
                   ("mod", op.mod), ("eq", op.eq), ("neq", op.ne), ("leq", op.le), ("geq", op.ge), ("lt", op.lt),
                   ("gt", op.gt)]:
    for _a in (0, 1):
        CORE.check("test_" + _name, (lambda o: lambda ns: o)(_op), const(0.7), const(1.8), argnums=(_a,), order=1,
                   func="operator." + _op.__name__, label="argnum %d" % _a)


# --- test_direct.py ---
def _poly(ns):
    return lambda x: (x + ns.np.sin(x ** 2)) * x


DIRECT.check("test_grad", _poly, const(1.3), order=1, func="np.sin")
DIRECT.check("test_deriv", _poly, const(1.3), order=1, func="np.sin")
# autograd's grad refuses a complex result; the derivative of one is still defined
DIRECT.check("test_grad_complex_output", lambda ns: lambda x: x * (1.0 + 0.2j), const(1.0), order=1, func="mul")
DIRECT.check("test_holomorphic_grad", lambda ns: lambda x: x * (1.0 + 0.2j), const(1.0 + 0.0j), order=1, func="mul")

# --- test_jacobian.py ---
JAC.check("test_jacobian_against_grad", lambda ns: lambda x: ns.np.sum(ns.np.sin(x), axis=1, keepdims=True),
          R(1, 3), order=1, func="np.sum")
JAC.check("test_jacobian_scalar_to_vector", lambda ns: lambda x: ns.np.array([x, x ** 2, x ** 3]), R(), order=1,
          func="np.array")


def _stacked(ns):
    scalar_funs = [
        lambda x: ns.np.sum(x ** 3),
        lambda x: ns.np.prod(ns.np.sin(x) + ns.np.sin(x)),
        lambda x: ns.grad(lambda y: ns.np.exp(y) * ns.np.tanh(x[0]))(x[1]),
    ]
    return lambda x: ns.np.array([f(x) for f in scalar_funs])


JAC.check("test_jacobian_against_stacked_grads", _stacked, R(5), order=1, func="np.array")


def _jfun(ns):
    return lambda x: ns.np.sin(ns.np.outer(x, x)) + ns.np.cos(ns.np.dot(x, x))


JAC.check("test_jacobian_higher_order", lambda ns: lambda x: ns.np.sum(ns.np.sin(ns.jacobian(_jfun(ns))(x))), R(2),
          func="jacobian", label="jacobian")
JAC.check("test_jacobian_higher_order",
          lambda ns: lambda x: ns.np.sum(ns.np.sin(ns.jacobian(ns.jacobian(_jfun(ns)))(x))), R(2), func="jacobian",
          label="jacobian(jacobian)")

# --- test_wrappers.py ---
WRAP.check("test_return_both", lambda ns: lambda x: 3.0 * x ** 3.2, const(1.7), order=1, func="pow")
WRAP.check("test_value_and_grad", lambda ns: lambda x: ns.value_and_grad(lambda y: ns.np.sum(ns.np.sin(y) ** 2))(x)[0],
           R(5), func="value_and_grad")
WRAP.check("test_hessian", lambda ns, r: (lambda H: lambda x: ns.np.dot(ns.np.dot(x, H), x))(r.randn(5, 5)), R(5),
           func="np.dot")


def _complicated(ns):
    def complicated_fun(a, b, c, d, e, f=1.1, g=9.0):
        return a + ns.np.sin(b) + ns.np.cosh(c) + ns.np.cos(d) + ns.np.tan(e) + f + g
    return complicated_fun


for _test in ["test_multigrad", "test_value_and_multigrad"]:
    WRAP.check(_test, _complicated, const(0.5), const(-0.3), const(0.2), const(-1.1), const(0.7), argnums=(3, 1),
               order=1, func="np.tan", f=0.6, g=-0.1)
WRAP.check("test_multigrad_onearg", lambda ns: lambda x, y: ns.np.sum(x + ns.np.sin(y)), R(3), R(3), order=1,
           func="np.sin")


def _simple(ns):
    return lambda a: a + ns.np.sin(a) + ns.np.cosh(a)


WRAP.check("test_elementwise_grad", _simple, R(10), order=1, func="np.cosh")
WRAP.check("test_elementwise_grad", lambda ns: ns.elementwise_grad(_simple(ns)), R(10), func="elementwise_grad",
           label="elementwise_grad(fun)")
WRAP.check("test_elementwise_grad_multiple_args", lambda ns: lambda a, b: a + ns.np.sin(a) + ns.np.cosh(b), const(0.9),
           R(10), argnums=(1,), order=1, func="np.cosh")
for _test, _shape in [("test_hessian_tensor_product", (5,)), ("test_hvp", (5,)),
                      ("test_hessian_matrix_product", (5, 4)), ("test_hessian_tensor_product_3d", (5, 4, 3))]:
    WRAP.check(_test, lambda ns: lambda a: ns.np.sum(ns.np.sin(a)), R(*_shape), func="np.sin")
for _test, _shape in [("test_tensor_jacobian_product", (5,)), ("test_matrix_jacobian_product", (5, 4)),
                      ("test_tensor_jacobian_product", (5, 4, 3))]:
    WRAP.check(_test, lambda ns: lambda a: ns.np.roll(ns.np.sin(a), 1), R(*_shape), order=1, func="np.roll")
WRAP.check("test_make_jvp", lambda ns, r: (lambda A: lambda x: ns.np.tanh(ns.np.dot(A, x)))(r.randn(3, 5)), R(5),
           order=1, func="np.tanh")


def _ggn(inner, outer):
    def build(ns, r):
        A = r.randn(5, 4)
        f = (lambda x: ns.np.dot(A, x)) if inner == "linear" else (lambda x: ns.np.tanh(ns.np.dot(A, x)))
        g = (lambda y: 0.5 * ns.np.dot(y, y)) if outer == "default" else (lambda y: ns.np.sum(2.0 * y ** 2 + y ** 4))
        return lambda x: g(f(x))
    return build


# make_ggnvp is J^T H_g J v: the second derivative of g(f(x)) along v (exact for linear f)
for _test, _outer in [("test_make_ggnvp", "default"), ("test_make_ggnvp_nondefault_g", "sum")]:
    for _inner in ["linear", "tanh"]:
        WRAP.check(_test, _ggn(_inner, _outer), R(4), func="np.dot", label="%s f" % _inner)
WRAP.check("test_grad_and_aux",
           lambda ns, r: (lambda A: lambda x: (ns.np.sum(ns.np.dot(A, x)), x ** 2))(r.randn(5, 4)), R(4), order=1,
           func="np.dot")
for _dtype in ["float32", "float16", "longdouble", "clongdouble"]:
    WRAP.check("test_dtypes", lambda ns: lambda x: ns.np.real(ns.np.sum(x ** 2)),
               R(10, 10).map((lambda d: lambda a: a.astype(d))(_dtype), "R(10,10).astype(%s)" % _dtype), order=1,
               func="np.sum")


# --- test_misc.py ---
def _flatten_in_containers(ns):
    if ns.kind == "autograd":
        from autograd.misc import flatten
    else:
        def flatten(value):  # autograd.misc.flatten, for a list of numbers and arrays
            return ns.np.concatenate([ns.np.ravel(v) for v in value]), None

    def f(x, y):
        xy, _ = flatten([x, y])
        return ns.np.sum(xy)
    return f


MISC.check("test_flatten_nodes_in_containers", _flatten_in_containers, const(1.0), const(2.0), argnums=(0, 1),
           order=1, func="np.concatenate")
