"""autograd's tests/test_scalar_ops.py: NumPy's functions on one number."""

from ._core import R, Suite, const, rand

S = Suite("test_scalar_ops.py")
SUITES = [S]
c = S.check


def times3(name):
    return lambda ns: (lambda f: lambda x: 3.0 * f(x))(getattr(ns.np, name))


for _name in ["abs", "absolute"]:
    c("test_" + _name, times3(_name), const(1.1), func="np." + _name)
    c("test_" + _name, times3(_name), const(-1.1), func="np." + _name)
    c("test_" + _name, times3(_name), const(0.0), order=1, func="np." + _name)
c("test_sign", times3("sign"), const(1.1), func="np.sign")
c("test_sign", times3("sign"), const(-1.1), func="np.sign")
for _name, _x in [("sin", R()), ("exp", R()), ("log", abs(R())), ("log2", abs(R())), ("log10", abs(R())),
                  ("log1p", abs(R())), ("expm1", abs(R())), ("exp2", abs(R())), ("cos", R()), ("tan", R()),
                  ("cosh", R()), ("sinh", R()), ("tanh", R()), ("arccos", const(0.1)), ("arcsin", const(0.1)),
                  ("arctan", const(0.2)), ("arccosh", R() ** 2 + 1.2), ("arcsinh", R()), ("arctanh", const(0.2)),
                  ("sqrt", 10.0 * rand()), ("rad2deg", 10.0 * rand()), ("deg2rad", 10.0 * rand()),
                  ("radians", 10.0 * rand()), ("degrees", 10.0 * rand()), ("sinc", 10.0 * rand())]:
    c("test_" + _name, times3(_name), _x, func="np." + _name)
c("test_neg", lambda ns: lambda x: 3.0 * -x, R(), func="operator.neg")
c("test_power_arg0", lambda ns, r: (lambda y: lambda x: ns.np.power(x, y))(r.randn() ** 2 + 1.0), rand() ** 2 + 1.0,
  func="np.power")
# grad(power(x, 0.0))(0.0) == 0.0 and grad(grad(...))(0.0) == 0.0 (autograd issue #116)
c("test_power_arg0", lambda ns: lambda x: ns.np.power(x, 0.0), const(0.0), func="np.power", label="y=0, x=0")
c("test_power_arg1", lambda ns, r: (lambda x: lambda y: ns.np.power(x, y))(r.randn() ** 2), rand() ** 2,
  func="np.power")
c("test_power_arg1_zero", lambda ns: lambda y: ns.np.power(0.0, y), rand() ** 2, func="np.power")
for _name in ["mod", "divide", "multiply", "true_divide"]:
    for _test in ["test_%s_arg0" % _name, "test_%s_arg1" % _name]:
        c(_test, "np." + _name, rand(), rand())
c("test_reciprocal", "np.reciprocal", rand())
c("test_negative", "np.negative", rand())
