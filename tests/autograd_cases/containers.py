"""autograd's tests/test_list.py, tests/test_tuple.py and tests/test_dict.py: functions of
lists, tuples and dicts of arrays (every element differentiated), gradients of them
taken inside a function, and containers built from values being differentiated."""

import operator as op

from ._core import R, Suite, const

L = Suite("test_list.py")
T = Suite("test_tuple.py")
D = Suite("test_dict.py")
SUITES = [L, T, D]


def _getter(ns):
    def fun(xs):
        return ns.np.sum(xs[0]) + ns.np.sum(xs[1]) + ns.np.sum(xs[1])
    return fun


def _grads(ns):
    def fun(xs):
        return ns.np.sum(ns.np.sin(xs[0])) + ns.np.sum(ns.np.cos(xs[1]))
    return fun


def _d_grads(ns):
    fun = _grads(ns)

    def d_fun(xs):
        g = ns.grad(fun)(xs)
        return ns.np.sum(g[0]) + ns.np.sum(ns.np.sin(g[0])) + ns.np.sum(ns.np.sin(g[1]))
    return d_fun


for suite, kind in [(L, list), (T, tuple)]:
    three = kind([R(5, 6), R(4, 3), R(2, 4)])
    # test_getter asserts the values of grad(fun): the derivative of fun at the same point
    suite.check("test_getter", _getter, three, order=1, func="getitem")
    suite.check("test_grads", _grads, three, func="getitem")
    suite.check("test_grads", _d_grads, three, func="grad", label="grad(fun)")

L.check("test_slices", lambda ns: lambda x: x[slice(None, -1, None)][0], const([1.0, 2.0, 3.0]), order=1,
        func="getitem", label="slice(None,-1)")
L.check("test_slices", lambda ns: lambda x: x[1:3][0], const([1.0, 2.0, 3.0]), order=1, func="getitem",
        label="1:3")
L.check("test_nested_list", lambda ns: lambda x: x[1:][0], const([[1.0], 2.0, 1.5]), func="getitem")
L.check("test_make_list", lambda ns: lambda x: list((x, x)), const(1.0), func="list")


def _is_list(kind, key=0):
    def build(ns):
        def fun(x):
            assert isinstance(x, kind)
            return x[key]
        return fun
    return build


L.check("test_isinstance", _is_list(list), const([1.0, 2.0, 3.0]), order=1, func="isinstance")
T.check("test_isinstance", _is_list(tuple), const((1.0, 2.0, 3.0)), order=1, func="isinstance")


def _outer_fun(ns):
    def outer_fun(x):
        def inner_fun(y):
            return y[0] * y[1]
        return ns.np.sum(ns.np.sin(ns.np.array(ns.grad(inner_fun)((x, x)))))
    return outer_fun


T.check("test_nested_higher_order", _outer_fun, const(5.0), func="grad", label="outer_fun")
T.check("test_nested_higher_order", lambda ns: ns.grad(_outer_fun(ns)), const(10.0), func="grad",
        label="grad(outer_fun)")
T.check("test_nested_higher_order", lambda ns: ns.grad(ns.grad(_outer_fun(ns))), const(10.0), func="grad",
        label="grad(grad(outer_fun))")

# dicts
DICT = {"item_1": R(5, 6), "item_2": R(4, 3), "item_X": R(2, 4)}


def _dict_getter(ns):
    def fun(d):
        return ns.np.sum(d["item_1"]) + ns.np.sum(d["item_2"]) + ns.np.sum(d["item_2"])
    return fun


def _dict_grads(ns):
    def fun(d):
        return ns.np.sum(ns.np.sin(d["item_1"])) + ns.np.sum(ns.np.cos(d["item_2"]))
    return fun


def _dict_iter(ns):
    def fun(d):
        A = 0.0
        B = 0.0
        for i, k in enumerate(sorted(d)):
            A = A + ns.np.sum(ns.np.sin(d[k])) * (i + 1.0)
            B = B + ns.np.sum(ns.np.cos(d[k]))
        return A + B
    return fun


def _dict_items(ns):
    def fun(d):
        A = 0.0
        B = 0.0
        for i, (k, v) in enumerate(sorted(d.items(), key=op.itemgetter(0))):
            A = A + ns.np.sum(ns.np.sin(v)) * (i + 1.0)
            B = B + ns.np.sum(ns.np.cos(v))
        for v in d.values():
            A = A + ns.np.sum(ns.np.sin(v))
        for k in sorted(d.keys()):
            A = A + ns.np.sum(ns.np.cos(d[k]))
        return A + B
    return fun


def _d_dict(build):
    def outer(ns):
        fun = build(ns)

        def d_fun(d):
            g = ns.grad(fun)(d)
            return ns.np.sum(g["item_1"]) + ns.np.sum(ns.np.sin(g["item_1"])) + ns.np.sum(ns.np.sin(g["item_2"]))
        return d_fun
    return outer


D.check("test_getter", _dict_getter, DICT, order=1, func="getitem")
for _test, _build in [("test_grads", _dict_grads), ("test_iter", _dict_iter), ("test_items_values_keys", _dict_items)]:
    D.check(_test, _build, DICT, func="getitem", label="fun")
    D.check(_test, _d_dict(_build), DICT, func="grad", label="grad(fun)")
for _d in [{"item_1": 3.0}, {"item_2": 4.0}, {}]:
    D.check("test_get", lambda ns: lambda d, x: d.get("item_1", x) ** 2, const(_d), const(2.0), argnums=(0, 1),
            func="dict.get")
D.check("test_make_dict", lambda ns: lambda x: dict([("a", x)], b=x), const(1.0), func="dict", label="pairs")
D.check("test_make_dict", lambda ns: lambda x: dict({"a": x}), const(1.0), func="dict", label="mapping")
D.check("test_isinstance", _is_list(dict, "x"), const({"x": 1.0}), order=1, func="isinstance")
