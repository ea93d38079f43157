"""autograd's tests/test_complex.py: real, angle and abs of real and complex numbers, and
their derivatives (``grad``) differentiated again."""

from ._core import Suite, const, rand

S = Suite("test_complex.py")
SUITES = [S]
c = S.check

# test_real_type / test_real_if_close_type assert the dtype of grad's result; here, the
# derivative of sum(real(x)) at those points
for _test in ["test_real_type", "test_real_if_close_type"]:
    for _x in [2.0, 1.0, 1.0j]:
        c(_test, lambda ns: lambda x: ns.np.sum(ns.np.real(x)), const(_x), order=1, func="np.real")


def _d(name):
    return lambda ns: ns.grad(getattr(ns.np, name))


c("test_angle_real", "np.angle", rand())
c("test_angle_real", _d("angle"), rand(), func="np.angle", label="grad(angle)")
c("test_angle_complex", "np.angle", rand() + 1j * rand())
c("test_angle_complex", _d("angle"), rand() + 1j * rand(), func="np.angle", label="grad(angle)")
c("test_abs_real", "np.abs", const(1.1))
c("test_abs_real", _d("abs"), const(2.1), func="np.abs", label="grad(abs)")
c("test_abs_complex", "np.abs", const(1.1 + 1.2j))
c("test_abs_complex", _d("abs"), const(1.1 + 1.3j), func="np.abs", label="grad(abs)")
