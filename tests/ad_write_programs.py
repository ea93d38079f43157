"""Random programs that write into arrays, for differential tests of AD (``test_ad_writes_differential``).

``program(seed)`` is the source of a function ``f(x)`` of four inputs that builds a 3 x 4 array
(zeros, or computed from ``x``), then reads and writes it a few times in the ways NumPy code
does: elements, rows, columns, transposed and raveled views, ``.flat``, slices with in-place operators,
``out=`` and ``where=``, ``np.copyto``, ``np.add.at``, index-array and mask reads and writes,
values and views kept from before a write, iteration, constants written over derivatives and
over operands the tape saved.
"""

import random


def program(seed: int) -> str:
    rng = random.Random(seed)

    def r(n):
        return rng.randrange(n)

    def span(n):
        i = r(n)
        return "%d:%d" % (i, rng.randrange(i + 1, n + 1))

    init = rng.choice(["np.zeros((3, 4))", "np.outer(np.sin(x[:3]), np.cos(x))", "np.ones((3, 4)) * x[1]"])
    lines = ["def f(x):", "    b = %s" % init]
    kept = []
    for k in range(rng.randint(2, 8)):
        op = rng.choice(["element", "row", "column", "transposed", "out", "where", "copyto", "add_at", "fancy_write",
                         "fancy_read", "mask_read", "view_inplace", "kept_view", "kept_element", "iterate", "constant",
                         "raveled", "ufunc_out_view", "read_modify_write", "operand_then_constant", "flat"])
        xi = r(4)
        if op == "element":
            lines.append("    b[%d, %d] = b[%d, %d] * x[%d] + np.tanh(x[%d])" % (r(3), r(4), r(3), r(4), xi, r(4)))
        elif op == "row":
            lines.append("    b[%d] = x * b[%d] + 0.5" % (r(3), r(3)))
        elif op == "column":
            lines.append("    b[:, %d] = np.sin(b[:, %d]) * x[%d]" % (r(4), r(4), xi))
        elif op == "transposed":
            lines.append("    b.T[%d] += x[:3] * 0.3" % r(4))
        elif op == "out":
            lines.append("    np.multiply(b, x, out=b)")
        elif op == "where":
            lines.append("    np.add(b, x * 0.7, out=b, where=np.array([True, False, True, %s]))"
                         % rng.choice(["True", "False"]))
        elif op == "copyto":
            lines.append("    np.copyto(b[%d], np.exp(-x * b[%d]))" % (r(3), r(3)))
        elif op == "add_at":
            lines.append("    np.add.at(b[%d], [0, 2, 0], x[:3] ** 2)" % r(3))
        elif op == "fancy_write":
            lines.append("    b[[0, 2], [%d, %d]] = x[%d] * b[1, %d]" % (r(4), r(4), xi, r(4)))
        elif op == "fancy_read":
            lines.append("    s%d = np.sum(b[[0, 2, 0], [%d, %d, 1]] ** 2)" % (k, r(4), r(4)))
            kept.append("s%d" % k)
        elif op == "mask_read":
            lines.append("    s%d = np.sum(b[b > 0.1] * 2.0)" % k)
            kept.append("s%d" % k)
        elif op == "view_inplace":
            lines.append("    w = b[%s, %s]\n    w *= x[%d]" % (span(3), span(4), xi))
        elif op == "kept_view":
            lines.append("    v%d = b[%d, %s]" % (k, r(3), span(4)))
            kept.append("np.sum(v%d ** 2)" % k)
        elif op == "kept_element":
            lines.append("    e%d = b[%d, %d]" % (k, r(3), r(4)))
            kept.append("e%d ** 3" % k)
        elif op == "iterate":
            lines.append("    s%d = 0.0\n    for e in b[%d]:\n        s%d = s%d + e * e" % (k, r(3), k, k))
            kept.append("s%d" % k)
        elif op == "constant":
            lines.append("    b[%s, %s] = %s" % (span(3), span(4), rng.choice(["0.0", "2.0"])))
        elif op == "raveled":
            lines.append("    b.reshape(-1)[%d] = x[%d] * x[%d]" % (r(12), xi, r(4)))
        elif op == "ufunc_out_view":
            lines.append("    np.sin(b[%d], out=b[%d])" % (r(3), r(3)))
        elif op == "operand_then_constant":  # an operand the tape saved, then written over
            lines.append("    s%d = np.sum(b[%d] * x * x)\n    b[%d, %s] = 1.5" % (k, r(3), r(3), span(4)))
            kept.append("s%d" % k)
        elif op == "flat":
            lines.append("    b.flat[%d] = x[%d] * b.flat[%d]" % (r(12), xi, r(12)))
        elif op == "read_modify_write":
            lines.append("    b[%d, %s] = b[%d, %s][::-1] * x[%d]" % (r(3), "1:3", r(3), "0:2", xi))
    terms = ["np.sum(b * b)"] + ["(%s) * x[%d]" % (s, r(4)) for s in kept]
    lines.append("    return " + " + ".join(terms))
    return "\n".join(lines)
