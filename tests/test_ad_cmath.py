"""Forward AD of the ``cmath`` module against central differences, in complex and real directions."""

import cmath

import pytest

import ad
from ad.testing import check_grads

HOLOMORPHIC = [cmath.exp, cmath.log, cmath.log10, cmath.sqrt, cmath.sin, cmath.cos, cmath.tan, cmath.asin,
               cmath.acos, cmath.atan, cmath.sinh, cmath.cosh, cmath.tanh, cmath.asinh, cmath.acosh, cmath.atanh]


@pytest.mark.parametrize("fn", HOLOMORPHIC, ids=lambda fn: fn.__name__)
@pytest.mark.parametrize("z", [0.7 + 0.4j, -0.3 - 1.2j])
def test_holomorphic_functions(fn, z):
    check_grads(fn, [z], order=2)


@pytest.mark.parametrize("fn", [cmath.sqrt, cmath.log, cmath.asin, cmath.acosh], ids=lambda fn: fn.__name__)
def test_real_inputs_off_the_real_domain(fn):
    check_grads(lambda x: fn(x), [-0.4], order=2)  # a real number moved along the real axis
    assert ad.D(lambda x: fn(x).imag, -0.4) == pytest.approx(
        (fn(-0.4 + 1e-7).imag - fn(-0.4 - 1e-7).imag) / 2e-7, rel=1e-6)


def test_phase_polar_rect_and_log_base():
    z = 0.7 + 0.4j
    check_grads(cmath.phase, [z], order=2)
    check_grads(lambda z: cmath.polar(z)[0] + 2 * cmath.polar(z)[1], [z], order=2)
    check_grads(lambda r, p: cmath.rect(r, p), [1.3, 0.4], order=2)
    check_grads(lambda z, b: cmath.log(z, b), [z, 3.0], order=2)
    assert ad.D(cmath.phase, 2.0) == 0.0  # a positive real number moved along the real axis
    assert ad.D(lambda t: cmath.isfinite(t * 1j) + 0.0, 1.0) == 0.0
