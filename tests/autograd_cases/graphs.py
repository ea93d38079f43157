"""autograd's tests/test_graphs.py: fan-out, nested derivatives (to the third), closures over
a variable being differentiated, complex intermediates, singleton outputs, and writing into
an array (which autograd refuses and ad supports)."""

from ._core import R, Suite, const, rand

S = Suite("test_graphs.py")
SUITES = [S]
c = S.check


def _fanout(ns):
    return lambda x: ns.np.sin(ns.np.sin(x) + ns.np.sin(x))


c("test_grad_fanout", _fanout, R(), func="np.sin", label="fun")
c("test_grad_fanout", lambda ns: ns.grad(_fanout(ns)), rand(), func="grad", label="grad(fun)")
c("test_grad_const", lambda ns: lambda x: 1.0, const(2.0), order=1, func="constant")
c("test_grad_identity", lambda ns: lambda x: x, const(2.0), func="identity")


def _hvp(ns, r):
    randv = r.randn(10)

    def fun(x):
        return ns.np.sin(ns.np.dot(x, randv))

    def vector_product(x, v):
        return ns.np.sin(ns.np.dot(v, ns.grad(fun)(x)))
    return fun, vector_product


c("test_hess_vector_prod", lambda ns, r: _hvp(ns, r)[0], R(10, key="A"), func="np.dot", label="fun")
c("test_hess_vector_prod", lambda ns, r: _hvp(ns, r)[1], R(10, key="A"), R(10), func="grad",
  label="vector_product")
c("test_enclosing_scope_ref", lambda ns: lambda x: x * ns.grad(lambda y: x * y)(2.0), const(1.0), func="grad")
c("test_enclosing_scope_ref_2", lambda ns: lambda x: x * ns.grad(lambda y: y * x)(2.0), const(1.0), func="grad")


def _mutating(ns):
    def fun(a):
        b = a + 1.0
        c = b + 1.5
        d = a + b
        return d + c
    return fun


def _mutating_index(ns):
    def fun(a):
        b = a + 1.0
        c = b[0] + 1.5
        d = a + b
        return d + c
    return fun


def _complex_mutating(ns):
    def fun(a):
        b = a + 1.0j
        c = b[0] + 1.5
        d = a + b
        e = d + c
        return ns.np.sum(ns.np.sin(ns.np.real(e)))
    return fun


def _separate(ns):
    def fun(a):
        r, i = ns.np.real(a), ns.np.imag(a)
        a = ns.np.abs(r) ** 1.4 + ns.np.abs(i) ** 1.3
        return ns.np.sum(ns.np.sin(a))
    return fun


c("test_mutating_outgrad", _mutating, R(5), func="add")
c("test_mutating_outgrad_from_indexing", _mutating_index, R(5), func="getitem")
c("test_complex_mutating_outgrad_from_indexing", _complex_mutating, R(5, key="A"), func="np.real", label="fun")
c("test_complex_mutating_outgrad_from_indexing", lambda ns: ns.grad(_complex_mutating(ns)), R(5, key="A"),
  func="grad", label="grad(fun)")
_A = R(5, 3, key="A") + 0.1j * R(5, 3, key="A2")
c("test_complex_separate_real_and_imaginary", _separate, _A, func="np.abs", label="fun")
c("test_complex_separate_real_and_imaginary", lambda ns: ns.grad(_separate(ns)), _A, func="grad",
  label="grad(fun)")

c("test_third_derivative", _fanout, R(), func="np.sin", label="fun")
for _k in ["df", "ddf", "dddf"]:  # autograd's df, ddf and dddf are all grad(fun)
    c("test_third_derivative", lambda ns: ns.grad(_fanout(ns)), rand(), func="grad", label=_k)


def _two(ns):
    return lambda x, y: ns.np.sin(ns.np.sin(x) + ns.np.sin(y))


for _test, _argnums in [("test_third_derivative_other_args", [0, 1, 0]),
                        ("test_third_derivative_other_args2", [1, 0, 1])]:
    c(_test, _two, R(), R(), func="np.sin", label="fun")
    for _k, _a in zip(["df", "ddf", "dddf"], _argnums):
        c(_test, (lambda a: lambda ns: ns.grad(_two(ns), a))(_a), R(), R(), func="grad",
          label="%s=grad(fun, %d)" % (_k, _a))

for _test, _kw, _shape in [("test_singleton_array_output", {"keepdims": True}, (3, 3)),
                           ("test_singleton_array_output_axis0", {"axis": 0, "keepdims": False}, (3, 1)),
                           ("test_singleton_array_output_axis1", {"axis": 1, "keepdims": False}, (1, 3)),
                           ("test_singleton_array_output_axis0_keepdims", {"axis": 0, "keepdims": True}, (3, 1)),
                           ("test_singleton_array_output_axis1_keepdims", {"axis": 1, "keepdims": True}, (1, 3))]:
    _fun = (lambda kw: lambda ns: lambda x: ns.np.sum(ns.np.sin(x), **kw))(_kw)
    c(_test, _fun, R(*_shape), func="np.sum", label="fun")
    c(_test, (lambda f: lambda ns: lambda x: ns.np.sum(ns.grad(f(ns))(x)))(_fun), R(*_shape), func="grad",
      label="sum(grad(fun))")


def _assign(ns):
    def fun(A, b):
        A[1] = b
        return A
    return fun


# autograd raises TypeError here (no assignment into arrays being differentiated); ad
# supports writes, so this is a derivative check
c("test_assignment_raises_error", _assign, R(5), const(3.0), func="setitem")
