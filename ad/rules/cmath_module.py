"""Derivative rules for the ``cmath`` module: the complex derivative of each holomorphic
function, and the real differentials of ``phase``, ``polar`` and ``rect``.

A tangent ``g`` may be complex (a direction in the complex plane) or real (a real input
moved along the real axis); holomorphic functions multiply it by ``f'(z)``. ``phase(z)``
is real: its tangent is ``Im(g / z)``, 0 for a real ``z`` moved along the real axis.
Branch cuts are the functions' own (``acosh`` uses ``sqrt(z - 1) sqrt(z + 1)``, as its
value does). Predicates (``isfinite``, ``isinf``, ``isnan``, ``isclose``) have zero
derivative. Reverse mode refuses complex values, so these are forward-mode rules.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import cmath
import math

from ..engine.forward import defjvp, defzero, frule

_LN10 = math.log(10.0)

defjvp(cmath.exp, lambda g, ans, z: g * ans)
defjvp(cmath.log, lambda g, ans, z, base=math.e: g / (z * cmath.log(base)),
       lambda g, ans, z, base: -g * ans / (base * cmath.log(base)))
defjvp(cmath.log10, lambda g, ans, z: g / (z * _LN10))
defjvp(cmath.sqrt, lambda g, ans, z: g / (2 * ans))
defjvp(cmath.sin, lambda g, ans, z: g * cmath.cos(z))
defjvp(cmath.cos, lambda g, ans, z: g * -cmath.sin(z))
defjvp(cmath.tan, lambda g, ans, z: g * (1 + ans * ans))
defjvp(cmath.asin, lambda g, ans, z: g / cmath.sqrt(1 - z * z))
defjvp(cmath.acos, lambda g, ans, z: g * (-1 / cmath.sqrt(1 - z * z)))
defjvp(cmath.atan, lambda g, ans, z: g / (1 + z * z))
defjvp(cmath.sinh, lambda g, ans, z: g * cmath.cosh(z))
defjvp(cmath.cosh, lambda g, ans, z: g * cmath.sinh(z))
defjvp(cmath.tanh, lambda g, ans, z: g * (1 - ans * ans))
defjvp(cmath.asinh, lambda g, ans, z: g / cmath.sqrt(z * z + 1))
defjvp(cmath.acosh, lambda g, ans, z: g / (cmath.sqrt(z - 1) * cmath.sqrt(z + 1)))
defjvp(cmath.atanh, lambda g, ans, z: g / (1 - z * z))
defjvp(cmath.phase, lambda g, ans, z: (g / z).imag)
defzero(cmath.isfinite, cmath.isinf, cmath.isnan, cmath.isclose)


@frule(cmath.polar)
def _polar(primals, tangents):
    (z,), (g,) = primals, tangents
    r, phi = cmath.polar(z)
    if g is None:
        return (r, phi), None
    dz = g / z
    return (r, phi), (r * dz.real, dz.imag)


@frule(cmath.rect)
def _rect(primals, tangents):
    r, phi = primals
    dr, dphi = tangents
    out = cmath.rect(r, phi)
    unit = cmath.rect(1.0, phi)
    d = 0.0
    if dr is not None:
        d = d + dr * unit
    if dphi is not None:
        d = d + dphi * 1j * out
    return out, d
