"""Reverse-mode rules for the scaled Bessel functions of ``scipy.special`` that are not holomorphic.

``ive(v, z) = iv(v, z) exp(-|Re z|)``, ``jve(v, z) = jv(v, z) exp(-|Im z|)`` and ``yve`` alike:
the tangent of the real factor takes the real (or imaginary) part of the argument's tangent,
``t_out = a t + b Re(t)`` (or ``a t + b Im(t)``) with ``a`` the holomorphic part's derivative
and ``b = -sign(Re z) ans`` (``-sign(Im z) ans``), as the forward rules in ``scipy_special``
say. Their transposes under the pairing ``Re(sum(u t))`` (see ``vjps_complex``) are
``u a + Re(u b)`` and ``u a - 1j Re(u b)``: not the forward rule applied to ``u``, which is
what the rules derived from forward rules would compute, so these replace them. The order
``v`` carries no derivative. ``tests/test_ad_reverse_complex.py`` checks each against forward
mode with the dot-product test, on complex and on real arguments.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import numpy as np
import scipy.special as sc
from scipy.special import _ufuncs as scu

from ..engine.forward import NOT_DIFFERENTIABLE
from ..engine.reverse import complex_checked, defvjp
from .pullbacks import unbroadcast


def _ive_z(u, ans, v, z):
    a = 0.5 * (sc.ive(v - 1, z) + sc.ive(v + 1, z))
    return unbroadcast(u * a + np.real(u * (-np.sign(np.real(z)) * ans)), z)


def _jve_z(u, ans, v, z):
    a = 0.5 * (sc.jve(v - 1, z) - sc.jve(v + 1, z))
    return unbroadcast(u * a - 1j * np.real(u * (-np.sign(np.imag(z)) * ans)), z)


def _yve_z(u, ans, v, z):
    a = 0.5 * (sc.yve(v - 1, z) - sc.yve(v + 1, z))
    return unbroadcast(u * a - 1j * np.real(u * (-np.sign(np.imag(z)) * ans)), z)


defvjp(sc.ive, NOT_DIFFERENTIABLE, _ive_z)
defvjp(sc.jve, NOT_DIFFERENTIABLE, _jve_z)
defvjp(sc.yve, NOT_DIFFERENTIABLE, _yve_z)

# holomorphic ones whose rules derived from their forward rules hold on complex values: the scaled
# forms hankel1e = hankel1 exp(-i z) and hankel2e = hankel2 exp(i z), and lambertw (in z)
COMPLEX = (sc.ive, sc.jve, sc.yve, sc.hankel1e, sc.hankel2e, scu._lambertw)
complex_checked(*COMPLEX)
