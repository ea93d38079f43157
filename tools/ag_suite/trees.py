"""Trees (lists, tuples, dicts) of numbers and arrays: the arguments and results of cases."""

import numbers

import numpy as onp


def is_leaf(x):
    return isinstance(x, (numbers.Number, onp.generic, onp.ndarray)) and not isinstance(x, str)


def leaves(tree, path=()):
    """``[(path, leaf)]`` for the numbers and arrays of a tree of lists, tuples and dicts."""
    if isinstance(tree, (list, tuple)):
        out = []
        for i, e in enumerate(tree):
            out += leaves(e, path + (i,))
        return out
    if isinstance(tree, dict):
        out = []
        for k in tree:
            out += leaves(tree[k], path + (k,))
        return out
    return [(path, tree)] if is_leaf(tree) else []


def get(tree, path):
    for p in path:
        tree = tree[p]
    return tree


def tree_map(fn, tree, *others):
    if isinstance(tree, (list, tuple)):
        return type(tree)(tree_map(fn, e, *(o[i] for o in others)) for i, e in enumerate(tree))
    if isinstance(tree, dict):
        return {k: tree_map(fn, v, *(o[k] for o in others)) for k, v in tree.items()}
    return fn(tree, *others) if is_leaf(tree) else tree


def copy_tree(tree):
    return tree_map(lambda x: x.copy() if isinstance(x, onp.ndarray) else x, tree)


def axpy(x, t, d):
    """``x + t * d`` leaf by leaf (``x``'s leaves may be tagged or boxed values already)."""
    if isinstance(x, (list, tuple)):
        return type(x)(axpy(e, t, d[i]) for i, e in enumerate(x))
    if isinstance(x, dict):
        return {k: axpy(v, t, d[k]) for k, v in x.items()}
    if x is None or isinstance(x, (str, bool)):
        return x
    return x + t * d


def is_complex_leaf(x):
    return isinstance(x, complex) or onp.iscomplexobj(x)


def direction_like(x, rng):
    """A random direction shaped as ``x`` (complex leaves get random real and imaginary parts)."""
    def one(a):
        shape = onp.shape(a)
        d = rng.randn(*shape)
        if is_complex_leaf(a):
            d = d + 1j * rng.randn(*shape)
        if not shape:
            return complex(d) if is_complex_leaf(a) else float(d)
        return d.astype(onp.result_type(a, 1.0)) if onp.asarray(a).dtype.kind in "fc" else d
    return tree_map(one, x)


def scaled(tree, factor):
    return tree_map(lambda a: a * factor, tree)


def maxabs(tree):
    m = 0.0
    for _, leaf in leaves(tree):
        a = onp.abs(onp.asarray(leaf, dtype=complex))
        if a.size:
            m = max(m, float(onp.nanmax(a)))
    return m


def flat(x):
    return onp.asarray(x, dtype=complex).ravel()
