"""The talk's first example, simple logging: ``PrintCtx`` prints every call of ``sin(1)``.

``math.sin`` is native code, so the log is one line. The talk's log is long because
Julia's ``sin`` is written in Julia; ``sin_python`` below is written in Python the same way
(range reduction, then a polynomial), so its log shows each call and, with
``operators=True``, each arithmetic operation, as the talk's does.
"""

import math

import context

HALF_PI = math.pi / 2
# Taylor coefficients of sin and cos up to x**15 and x**14: enough for |r| <= pi/4 in double precision.
SIN_COEFFS = [(-1) ** k / math.factorial(2 * k + 1) for k in range(8)]
COS_COEFFS = [(-1) ** k / math.factorial(2 * k) for k in range(8)]


def polynomial(coefficients, y):
    """Horner's rule: sum of coefficients[k] * y**k."""
    total = 0.0
    for c in reversed(coefficients):
        total = total * y + c
    return total


def sin_kernel(r):
    return r * polynomial(SIN_COEFFS, r * r)


def cos_kernel(r):
    return polynomial(COS_COEFFS, r * r)


def sin_python(x):
    """sin(x): reduce x to r = x - k*pi/2 with |r| <= pi/4, then the quadrant picks sin or cos of r."""
    x = float(x)
    k = round(x / HALF_PI)
    r = x - k * HALF_PI
    quadrant = k % 4
    value = sin_kernel(r) if quadrant % 2 == 0 else cos_kernel(r)
    return value if quadrant < 2 else -value


def main(out=print):
    native = context.overdub(context.PrintCtx(out, results=True), math.sin, 1)
    out("")
    written = context.overdub(context.PrintCtx(out, results=True), sin_python, 1)
    out("")
    context.overdub(context.PrintCtx(out, operators=True, include="operator.add"), sin_python, 1)
    out("sin(1) = %r natively, %r from sin_python" % (native, written))
    return native, written


if __name__ == "__main__":
    main()
