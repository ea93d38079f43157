"""The talk's forward-mode AD examples, on pycassette's tagging: ``D(f, x)`` and friends."""

import math

import ad
from ad import D
from weird_identity import foo_bar_identity  # examples/ is on the path when an example runs


def rosenbrock(xs):
    x, y = xs
    return (1 - x) ** 2 + 100 * (y - x * x) ** 2


def main(out=print):
    d_sin = D(math.sin, 1)
    out("D(sin, 1) = %r  (cos(1) = %r)" % (d_sin, math.cos(1)))

    d_sincos = D(lambda x: math.sin(x) * math.cos(x), 1)
    out("D(x -> sin(x) * cos(x), 1) = %r  (cos(1)^2 - sin(1)^2 = %r)" % (d_sincos, math.cos(1) ** 2 - math.sin(1) ** 2))

    nested = D(lambda x: x * D(lambda y: x * y, 3), 5)
    out("D(x -> x * D(y -> x * y, 3), 5) = %r  (no confusion: 2x = 10)" % nested)

    through_objects = D(lambda x: x * foo_bar_identity(x), 1)
    out("D(x -> x * foo_bar_identity(x), 1) = %r" % through_objects)

    point = [1.5, 2.0]
    grad = ad.gradient(rosenbrock, point)
    hess = ad.hessian(rosenbrock, point)
    out("gradient(rosenbrock, %r) = %r" % (point, grad))
    out("hessian(rosenbrock, %r) = %r" % (point, hess))
    return d_sin, d_sincos, nested, through_objects, grad, hess


if __name__ == "__main__":
    main()
