"""Random programs for differential tests of AD (``test_ad_differential_programs``): NumPy array
expressions (elementwise functions, broadcasting, reductions with axes, shapes, sorting, linear
algebra), complex intermediates with a real result, and scalar Python (``math``, loops,
branches, lists, derivatives nested inside with closures). Away from singular points: no
constant arrays built from one input (``std`` and norms of equal values have none)."""

import random

ARRAY_UNARY = [
    "np.sin({})", "np.cos({})", "np.tanh({})", "np.exp(-({})**2)", "np.log1p({}**2)", "np.sqrt(1.0 + {}**2)",
    "np.arctan({})", "np.abs({} + 0.05)", "({})**3", "1.0 / (1.5 + np.sin({}))", "np.sinh({}*0.5)", "np.square({})",
    "np.expm1({}*0.3)", "np.cbrt({} + 3.0)", "np.hypot({}, 0.5)", "np.logaddexp({}, 0.3)", "np.maximum({}, 0.1)",
    "np.minimum({}, 0.2)", "np.clip({}, -0.5, 0.5)", "np.where({} > 0, {}, 0.5 * {})", "np.sort({}, axis=-1)",
    "np.cumsum({}, axis=0)", "np.cumprod(1.0 + 0.1 * {}, axis=1)", "np.flip({}, axis=0)", "np.roll({}, 1, axis=1)",
    "np.transpose({}).T", "np.reshape({}, (4, 3)).reshape(3, 4)", "np.diff({}, axis=1, prepend=0.0)", "np.sinc({})",
    "np.arcsinh({})", "np.tan(0.3 * {})", "np.fmax({}, 0.0) + np.fmin({}, 0.0)", "np.heaviside({}, 0.5) * {}",
    "np.real({} + 0j)", "np.angle({} + 1j) * {}", "np.abs(({}) * (1 + 2j))", "np.exp(1j * {}).real",
    "np.multiply.accumulate(1.0 + 0.1 * {}, axis=1)",
]
ARRAY_BINARY = ["({}) + ({})", "({}) * ({})", "({}) - ({})", "({}) / (2.0 + ({})**2)", "np.arctan2({}, 1.5 + ({})**2)",
                "np.hypot({}, {})", "({}) ** 2 * ({})"]
ARRAY_RESULT = [
    "np.sum({})", "np.mean({})", "np.prod(1.0 + 0.1 * {})", "np.max({})", "np.linalg.norm({})",
    "np.sum({}, axis=0) @ np.arange(4.0)", "np.std({})", "np.var({}, axis=1).sum()",
    "np.sum(np.mean({}, axis=1, keepdims=True) * {})", "np.trace(({})[:, :3])",
    "np.linalg.det(({})[:, :3] + 2 * np.eye(3))", "np.sum(np.linalg.inv(({})[:, :3] + 3 * np.eye(3)))",
    "np.sum(np.linalg.solve(({})[:, :3] + 3 * np.eye(3), np.ones(3)))", "np.sum(({}) @ ({}).T)",
    "np.logaddexp.reduce(({}).ravel())", "np.sum(np.concatenate([{}, {}], axis=1)**2)",
    "np.sum(np.stack([{}, {}]) * 0.5)", "np.median({})", "np.percentile({}, 30)", "np.sum(np.sort(({}).ravel())[:5])",
    "np.linalg.norm({}, axis=1).sum()", "np.einsum('ij,ij->', {}, {})", "np.sum(np.outer(({})[0], ({})[1]))",
    "np.average({}, axis=0, weights=np.array([1.0, 2.0, 3.0])).sum()", "np.trapezoid(({}), axis=1).sum()",
    "np.sum(np.tril({}))", "np.sum(np.linalg.eigvalsh(({})[:, :3] @ ({})[:, :3].T + np.eye(3)))",
]


def array_program(seed: int) -> str:
    """``f(x)`` of 12 inputs, seen as a 3 x 4 array ``X``."""
    rng = random.Random(seed)

    def expr(depth):
        if depth > 2 or rng.random() < 0.25:
            return rng.choice(["X", "X", "X * X[0, 1]", "X.T.T"])
        if rng.random() < 0.6:
            return rng.choice(ARRAY_UNARY).replace("{}", "(" + expr(depth + 1) + ")")
        return rng.choice(ARRAY_BINARY).format(expr(depth + 1), expr(depth + 1))

    e = expr(0)
    result = rng.choice(ARRAY_RESULT)
    return "def f(x):\n    X = x.reshape(3, 4)\n    return %s" % result.replace("{}", "(" + e + ")")


COMPLEX_UNARY = [
    "np.exp(0.5 * {})", "np.log(2.0 + {})", "np.sqrt(3.0 + {})", "np.conj({})", "({}) ** 2", "np.sin({})",
    "np.cosh(0.5 * {})", "1.0 / (2.0 + {})", "np.fft.fft({})", "np.fft.ifft({})", "np.cumsum({})",
    "np.tanh(0.3 * {})", "({}) * (1 - 0.5j)", "np.flip({})", "np.roll({}, 1)", "np.outer({}, {}).sum(axis=0)",
    "({}) @ np.eye(4)", "np.exp(1j * np.real({})) * {}", "np.abs({}) + 0j", "np.real({}) * {}", "np.square({})",
    "np.reciprocal(3.0 + {})", "np.diff({}, prepend=0)", "np.where(np.real({}) > 0, {}, 2 * {})",
]
COMPLEX_BINARY = ["({}) + ({})", "({}) * ({})", "({}) - ({})", "({}) / (3.0 + ({}))"]
COMPLEX_RESULT = [
    "np.sum(np.abs({}) ** 2)", "np.real(np.sum({}))", "np.imag(np.vdot({}, {}))", "np.linalg.norm({})",
    "np.sum(np.angle({} + 0.1))", "np.real(np.prod(1 + 0.1 * {}))", "np.sum(np.abs({}))", "np.real({} @ {})",
    "np.sum(np.real({}) * np.imag({}))", "np.sum(np.fft.rfft(np.real({})).real)", "np.mean(np.abs({}) ** 3)",
]


def complex_program(seed: int) -> str:
    """``f(x)`` of 4 real inputs with complex values inside and a real result."""
    rng = random.Random(seed)

    def expr(depth):
        if depth > 2 or rng.random() < 0.3:
            return rng.choice(["z", "z", "x + 0j", "z * x[0]", "np.conj(z) * 1j"])
        if rng.random() < 0.6:
            return rng.choice(COMPLEX_UNARY).replace("{}", "(" + expr(depth + 1) + ")")
        return rng.choice(COMPLEX_BINARY).format(expr(depth + 1), expr(depth + 1))

    result = rng.choice(COMPLEX_RESULT).replace("{}", "(" + expr(0) + ")")
    return "def f(x):\n    z = x * (1 + 2j) + np.sin(x) * 1j\n    return %s" % result


SCALAR_UNARY = [
    "math.sin({})", "math.cos({})", "math.exp(0.3 * {})", "math.log(1.5 + {} * {})", "math.sqrt(2.0 + {})",
    "math.tanh({})", "math.atan({})", "abs({})", "({}) ** 3", "1.0 / (2.0 + {})", "math.hypot({}, 1.0)",
    "max({}, 0.1)", "min({}, 0.3)", "math.erf({})", "math.lgamma(2.0 + {})", "math.expm1({})", "math.log1p(1.0 + {})",
    "float({})", "math.fsum([{}, {}])", "sum([{}, 1.0, {}])", "np.sin({})", "np.exp(-{})",
]
SCALAR_BINARY = ["({}) + ({})", "({}) * ({})", "({}) - ({})", "({}) / (3.0 + ({}) ** 2)",
                 "math.atan2({}, 2.0 + ({}) ** 2)", "max({}, {})", "math.pow(1.5 + ({}) ** 2, {})"]


def scalar_program(seed: int) -> str:
    """``f(x, y)`` of two Python floats: ``math``, loops, branches, lists, nested derivatives."""
    rng = random.Random(seed)

    def expr(depth, names):
        if depth > 3 or rng.random() < 0.3:
            return rng.choice(names + ["0.7"])
        if rng.random() < 0.55:
            return rng.choice(SCALAR_UNARY).replace("{}", "(" + expr(depth + 1, names) + ")")
        return rng.choice(SCALAR_BINARY).format(expr(depth + 1, names), expr(depth + 1, names))

    lines = ["def f(x, y):", "    acc = 0.0", "    xs = [x, y]"]
    names = ["x", "y", "acc"]
    for _ in range(rng.randint(1, 5)):
        kind = rng.choice(["assign", "loop", "branch", "list", "inner"])
        if kind == "assign":
            lines.append("    acc = acc + %s" % expr(0, names))
        elif kind == "loop":
            lines.append("    for i in range(3):\n        acc = acc * 0.5 + %s" % expr(1, names + ["i"]))
        elif kind == "branch":
            lines.append("    if %s > 0.2:\n        acc = acc + %s\n    else:\n        acc = acc - %s"
                         % (expr(2, names), expr(1, names), expr(1, names)))
        elif kind == "list":
            lines.append("    xs.append(%s)\n    acc = acc + sum(xs) * 0.1" % expr(1, names))
        else:  # a derivative nested inside, closing over x and y
            lines.append("    acc = acc + ad.derivative(lambda t: %s, 0.4)" % expr(1, ["t", "t * x", "y + t"]))
    lines.append("    return acc")
    return "\n".join(lines)
