"""Every NumPy ufunc with a forward rule, on complex values, against central differences.

Forward mode's tangent of a function of complex arguments is a real-linear map (holomorphic or
not): along a complex direction ``v`` it must equal ``(f(z + h v) - f(z - h v)) / 2h``. Each ufunc
that takes complex values is checked along complex and real directions, one argument at a time,
at points away from branch cuts; a ufunc whose result is not a number (a predicate) is left to
the zero-derivative tests. This is how ``np.sign`` of complex values (``z / |z|`` in NumPy 2) was
found to have a zero derivative, and reverse mode (checked against forward mode on complex
values in ``test_ad_reverse_complex.py``) takes the same answers.
"""

import numpy as np
import pytest

import ad
from ad.engine.forward import ForwardCtx
from context import primitives

POINTS = np.array([0.6 + 0.4j, 0.3 - 0.55j, -0.45 + 0.35j, 1.4 + 0.6j, -1.3 - 0.7j, 0.2 + 1.6j])  # every quadrant,
# inside and outside the unit circle, off the axes (branch cuts) and off the halves (rint)
OTHER = np.array([0.8 - 0.2j, 0.52 + 0.6j, 0.7 + 0.25j, -1.2 + 0.3j, 0.35 - 1.4j, 1.1 + 1.1j])
H = 1e-6
TABLE = primitives.table_for(ForwardCtx)


def _complex_ufuncs():
    found = {}
    for name in sorted(dir(np)):
        fn = getattr(np, name)
        if id(fn) in found or not isinstance(fn, np.ufunc) or id(fn) not in TABLE or fn.nin > 2 or fn.nout != 1 or fn.signature:
            continue
        args = (POINTS, OTHER)[:fn.nin]
        try:
            with np.errstate(all="ignore"):
                out = fn(*args)
        except TypeError:
            continue  # no complex loop
        if np.asarray(out).dtype.kind in "fc":
            found[id(fn)] = fn  # (aliases such as acosh and arccosh once)
    return list(found.values())


UFUNCS = _complex_ufuncs()


def test_the_audit_covers_the_complex_ufuncs():
    names = {f.__name__ for f in UFUNCS}
    assert {"exp", "log", "sqrt", "sign", "absolute", "multiply", "divide", "power", "arctanh"} <= names


@pytest.mark.parametrize("fn", UFUNCS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("direction", [1.0, 1j, 0.7 - 0.3j])
def test_forward_tangent_on_complex_values(fn, direction):
    args = [POINTS, OTHER][:fn.nin]
    for i in range(fn.nin):
        def f(z, i=i):
            return fn(*[z if k == i else a for k, a in enumerate(args)])

        v = np.full(POINTS.shape, direction)
        got = ad.jvp(f, args[i], v)[1]
        with np.errstate(all="ignore"):
            expected = (f(args[i] + H * v) - f(args[i] - H * v)) / (2 * H)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, err_msg="%s, argument %d" % (fn.__name__, i))
