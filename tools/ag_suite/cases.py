"""The cases (``tests/autograd_cases/``): loading, selecting by pattern, and preparing one
(arguments, directions, its function on each namespace)."""

import fnmatch

import numpy as onp

from .trees import axpy, copy_tree, direction_like, leaves, maxabs, scaled


def load_cases():
    """Every case of ``tests/autograd_cases/``."""
    import tests.autograd_cases as cases_mod

    return cases_mod.load()


def select(cases, patterns):
    if not patterns:
        return cases
    pats = [p if any(ch in p for ch in "*?[") else "*%s*" % p for p in patterns]
    return [c for c in cases if any(fnmatch.fnmatchcase(c.name, p) for p in pats)]


class Prepared:
    """A case's arguments, directions, the function on each namespace, and its plain output."""

    def __init__(self, case, namespaces):
        self.case = case
        self.args, self.kwargs = case.make_args()
        rng = onp.random.RandomState(_seed(case.name + "#directions"))
        self.dirs = []
        for _ in range(case.order):
            d = {i: direction_like(self.args[i], rng) for i in case.argnums}
            m = max(maxabs(v) for v in d.values()) or 1.0
            self.dirs.append({i: scaled(v, 1.0 / m) for i, v in d.items()})
        self.namespaces = namespaces
        self.fns = {}
        self.inner_fd = False  # whether the function takes derivatives itself (found by running it)

    def fn(self, kind):
        if kind not in self.fns:
            self.fns[kind] = self.case.build(self.namespaces[kind])
        return self.fns[kind]

    def point(self, coeffs):
        """The arguments at ``x + sum(c_k d_k)`` (copied: functions may write into them)."""
        args = copy_tree(list(self.args))
        for k, c in enumerate(coeffs):
            for i in self.case.argnums:
                args[i] = axpy(args[i], c, self.dirs[k][i])
        return args

    def call(self, kind, coeffs):
        return self.fn(kind)(*self.point(coeffs), **copy_tree(self.kwargs))

    def scale(self):
        return max(1.0, max(maxabs(self.args[i]) for i in self.case.argnums))

    def eps(self):
        eps = 0.0
        for i in self.case.argnums:
            for _, leaf in leaves(self.args[i]):
                dt = onp.asarray(leaf).dtype
                dt = onp.dtype(float) if dt.kind not in "fc" else onp.finfo(dt).dtype
                eps = max(eps, float(onp.finfo(dt).eps))
        return eps or float(onp.finfo(float).eps)

    def direct(self):
        """Whether ad can take the input as it is: one real float array, or one float."""
        if len(self.case.argnums) != 1:
            return False
        x = self.args[self.case.argnums[0]]
        if isinstance(x, onp.ndarray):
            return x.dtype.kind == "f"
        return isinstance(x, float)


def _seed(text):
    import zlib

    return zlib.crc32(text.encode()) & 0x7FFFFFFF
