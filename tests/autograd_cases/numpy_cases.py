"""autograd's tests/test_numpy.py, on plain NumPy."""

import numpy as onp

from ._core import R, Suite, const, made

S = Suite("test_numpy.py")
SUITES = [S]
c = S.check

# dot, outer
c("test_dot", "np.dot", R(10, 11), R(11))
c("test_dot", "np.dot", R(10, 11), R(10, 11).map(lambda a: a.T, "R(10,11).T"))
c("test_dot", "np.dot", R(10), R(10, 11))
c("test_dot", "np.dot", R(11), R(11))
c("test_dot_with_floats", "np.dot", R(10, 11), R())
c("test_dot_with_floats", "np.dot", R(), R(10, 11))
c("test_dot_with_floats", "np.dot", R(10), R())
c("test_dot_with_floats", "np.dot", R(), R(10))
for a, b in [(R(11), R(11)), (R(11).map(lambda a: a.T, "R(11).T"), R(11)),
             (R(11).map(lambda a: a.T, "R(11).T"), R(11).map(lambda a: a.T, "R(11).T"))]:
    c("test_outer", "np.outer", a, b)

# reductions
c("test_max", lambda ns: lambda x: ns.np.max(x), R(10, 11), func="np.max")
c("test_max_axis", lambda ns: lambda x: ns.np.max(x, axis=1), R(3, 4, 5), func="np.max")
c("test_max_axis_keepdims", lambda ns: lambda x: ns.np.max(x, axis=1, keepdims=True), R(3, 4, 5), func="np.max")
c("test_min", lambda ns: lambda x: ns.np.min(x), R(10, 11), func="np.min")
c("test_min_axis", lambda ns: lambda x: ns.np.min(x, axis=1), R(3, 4, 5), func="np.min")
c("test_min_axis_keepdims", lambda ns: lambda x: ns.np.min(x, axis=1, keepdims=True), R(3, 4, 5), func="np.min")
c("test_sum_1", lambda ns: lambda x: ns.np.sum(x), R(10, 11), func="np.sum")
c("test_sum_2", lambda ns: lambda x: ns.np.sum(x, axis=0), R(10, 11), func="np.sum")
c("test_sum_3", lambda ns: lambda x: ns.np.sum(x, axis=0, keepdims=True), R(10, 11), func="np.sum")
c("test_sum_with_axis_tuple", lambda ns: lambda x: ns.np.sum(x, axis=(1, 2)), R(10, 11, 7), func="np.sum")


def _plain_reduction(name):
    def build(ns, r):
        import numpy as onp

        base = onp.abs(r.randn(5)) + 0.5
        red = getattr(onp, name)  # the *plain* NumPy reduction, in both namespaces
        return lambda a: red(ns.np.exp(a) * base)
    return build


for _name in ["sum", "prod", "max", "min"]:
    c("test_plain_numpy_reductions_on_box", _plain_reduction(_name), const(0.7), func="np." + _name,
      label="numpy.%s" % _name)

c("test_flipud", lambda ns: lambda x: ns.np.flipud(x), R(10, 11), func="np.flipud")
c("test_fliplr", lambda ns: lambda x: ns.np.fliplr(x), R(10, 11), func="np.fliplr")
c("test_rot90", lambda ns: lambda x: ns.np.rot90(x), R(10, 11), func="np.rot90")
c("test_cumsum_axis0", lambda ns: lambda x: ns.np.cumsum(x, axis=0), R(10, 11), func="np.cumsum")
c("test_cumsum_axis1", lambda ns: lambda x: ns.np.cumsum(x, axis=1), R(10, 11), func="np.cumsum")
c("test_cumsum_1d", lambda ns: lambda x: ns.np.cumsum(x), R(10), func="np.cumsum")
c("test_cumsum_no_axis", lambda ns: lambda x: ns.np.cumsum(x), R(10, 11), func="np.cumsum")
c("test_non_numpy_sum", lambda ns: lambda x, y: sum([x, y]), R(10, 11), R(10, 11), func="sum")
c("test_mean_1", lambda ns: lambda x: ns.np.mean(x), R(10, 11), func="np.mean")
c("test_mean_2", lambda ns: lambda x: ns.np.mean(x, axis=0), R(10, 11), func="np.mean")
c("test_mean_3", lambda ns: lambda x: ns.np.mean(x, axis=0, keepdims=True), R(10, 11), func="np.mean")
# grad(...) == value assertions: first order at the point autograd uses
c("test_mean_list_of_boxes", lambda ns: lambda x: ns.np.mean([x, x + 2]), const(0.0), order=1, func="np.mean",
  label="list")
c("test_mean_list_of_boxes", lambda ns: lambda x: ns.np.mean((x, x + 2)), const(0.0), order=1, func="np.mean",
  label="tuple")
c("test_std_list_of_boxes", lambda ns: lambda x: ns.np.std([x, x + 2]), const(0.0), order=1, func="np.std",
  label="list")
c("test_std_list_of_boxes", lambda ns: lambda x: ns.np.std((x, x + 2)), const(0.0), order=1, func="np.std",
  label="tuple")
c("test_var_list_of_boxes", lambda ns: lambda x: ns.np.var([x, x + 2]), const(0.0), order=1, func="np.var",
  label="list")
c("test_var_list_of_boxes", lambda ns: lambda x: ns.np.var((x, x + 2)), const(0.0), order=1, func="np.var",
  label="tuple")

# indexing
c("test_index_ints", lambda ns: lambda x: x[3, 0, 1], R(5, 6, 4), func="getitem")
c("test_index_slice", lambda ns: lambda x: x[::-1, 2:4, :], R(5, 6, 4), func="getitem")
c("test_index_lists", lambda ns: lambda x: x[[0, 1, 2], :, :], R(5, 6, 4), func="getitem")
c("test_index_mixed", lambda ns: lambda x: x[3, 2:, [1, 3]], R(5, 6, 4), func="getitem")
c("test_vector_slice", lambda ns: lambda x: x[2:4], R(5), func="getitem")
c("test_index_slice_fanout", lambda ns: lambda x: x[::-1, 2:4, :] + x[::-1, 3:5, :], R(5, 6, 4), func="getitem")
c("test_index_multiple_slices", lambda ns: lambda x: x[2:6][1:3], R(7), func="getitem")

# shapes
c("test_reshape_method", lambda ns: lambda x: x.reshape((5 * 4, 6)), R(5, 6, 4), func="reshape")
c("test_reshape_call", lambda ns: lambda x: ns.np.reshape(x, (5 * 4, 6)), R(5, 6, 4), func="np.reshape")
c("test_reshape_method_nolist", lambda ns: lambda x: x.reshape(5 * 4, 6), R(5, 6, 4), func="reshape")
c("test_ravel_method", lambda ns: lambda x: x.ravel(), R(5, 6, 4), func="ravel")
c("test_ravel_call", lambda ns: lambda x: ns.np.ravel(x), R(5, 6, 4), func="np.ravel")
c("test_flatten_method", lambda ns: lambda x: x.flatten(), R(5, 6, 4), func="flatten")
c("test_simple_append_list", "np.append", const([1.0, 2.0, 3.0]), const(4.0), argnums=(0, 1))
c("test_simple_append_arr", "np.append", made("array([1.,2.,3.])", lambda r: onp.array([1.0, 2.0, 3.0])),
  const(4.0), argnums=(0, 1))
c("test_simple_append_list_2D", "np.append", const([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), const([[7.0, 8.0, 9.0]]),
  argnums=(0, 1), axis=0)


def _concat_with(shape, where, **kw):
    def build(ns, r):
        B = r.randn(*shape)
        if where == "front":
            return lambda x: ns.np.concatenate((B, x), **kw)
        if where == "unnamed":
            return lambda x: ns.np.concatenate((B, x, B), 1)
        return lambda x: ns.np.concatenate((B, x, B), **kw)
    return build


c("test_simple_concatenate", _concat_with((5, 6, 4), "front"), R(4, 6, 4), func="np.concatenate")
c("test_concatenate_axis_0", _concat_with((5, 6, 4), "both"), R(5, 6, 4), func="np.concatenate")
c("test_concatenate_axis_1", _concat_with((5, 6, 4), "both", axis=1), R(5, 6, 4), func="np.concatenate")
c("test_concatenate_axis_1_unnamed", _concat_with((5, 6, 4), "unnamed"), R(5, 6, 4), func="np.concatenate")


def _trace(lo, hi):
    def build(ns, r):
        offset = int(r.randint(lo, hi))
        return lambda x: ns.np.trace(x, offset=offset)
    return build


c("test_trace", _trace(-9, 11), R(10, 11), func="np.trace")
c("test_trace2", _trace(-9, 11), R(11, 10), func="np.trace")
c("test_trace_extradims", _trace(-5, 6), R(5, 6, 4, 3), func="np.trace")
c("test_diag", lambda ns: lambda x: ns.np.diag(x), R(10, 10), func="np.diag")
c("test_transpose", lambda ns: lambda x: x.T, R(8, 8), func="T")
c("test_roll", lambda ns: lambda x: ns.np.roll(x, 2, axis=1), R(4, 5), func="np.roll")
c("test_roll_no_axis", lambda ns: lambda x: ns.np.roll(x, 2, axis=1), R(4, 5), func="np.roll")
c("test_triu", lambda ns: lambda x: ns.np.triu(x, k=2), R(5, 5), func="np.triu")
c("test_tril", lambda ns: lambda x: ns.np.tril(x, k=2), R(5, 5), func="np.tril")
c("test_clip", lambda ns: lambda x: ns.np.clip(x, a_min=0.1, a_max=1.1), R(5, 5), func="np.clip")
c("test_prod_1", lambda ns: lambda x: ns.np.prod(x), R(2, 3) ** 2 / 10.0 + 0.1, func="np.prod")
c("test_prod_2", lambda ns: lambda x: ns.np.prod(x, axis=0), R(2, 3) ** 2 + 0.1, func="np.prod")
c("test_prod_3", lambda ns: lambda x: ns.np.prod(x, axis=0, keepdims=True), R(2, 3) ** 2 + 0.1, func="np.prod")
c("test_prod_4", lambda ns: lambda x: ns.np.prod(x), R(7) ** 2 + 0.1, func="np.prod")

# np.array of values being differentiated
c("test_1d_array", lambda ns: lambda x: ns.np.array([x, x * 1.0, x + 2.5]), const(3.0), func="np.array")
c("test_2d_array", lambda ns: lambda x: ns.np.array([[x, x * 1.0, x + 2.5], [x ** 2, x, x / 2.0]]), const(3.0),
  func="np.array")


def _fanout(ns):
    def fun(x):
        A = ns.np.array([x, x * 1.0, x + 2.5])
        return A + A
    return fun


def _fanout2(ns):
    def fun(x):
        A = ns.np.array([[x, x * 1.0, x + 2.5], [x ** 2, x, x / 2.0]])
        return A + A
    return fun


c("test_1d_array_fanout", _fanout, const(3.0), func="np.array")
c("test_2d_array_fanout", _fanout2, const(3.0), func="np.array")
c("test_array_from_scalar", lambda ns: lambda x: ns.np.array(x), const(3.0), func="np.array")


def _box_attributes(ns):
    def fun(x):
        assert x.shape == ()
        assert x.ndim == 0
        assert x.size == 1
        assert x.dtype == ns.np.float64
        return x ** 2
    return fun


# autograd boxes a Python float as a 0-d array; plain NumPy needs the 0-d array itself
c("test_scalar_array_box_attributes", _box_attributes,
  made("array(3.0)", lambda r: onp.array(3.0)), order=1, func="shape")
c("test_array_from_arrays", lambda ns: lambda x: ns.np.array([x, x]), R(3, 2), func="np.array")
c("test_array_from_arrays_2", lambda ns: lambda x: ns.np.array([[2 * x, x + 1], [x, x]]), R(3, 2), func="np.array")


def _len(ns):
    def fun(x):
        assert len(x) == 3
        return x
    return fun


c("test_len", _len, R(3, 2), func="len")

# np.r_, np.c_
c("test_r_basic", lambda ns: lambda x: ns.np.r_[x], R(3, 2), func="np.r_")
c("test_r_double", lambda ns: lambda x: ns.np.r_[x, x], R(3, 2), func="np.r_")
c("test_no_relation", lambda ns, r: (lambda C: lambda x: C)(r.randn(3, 2)), R(3, 2), func="constant")
c("test_r_no_relation", lambda ns, r: (lambda C: lambda x: ns.np.r_[C])(r.randn(3, 2)), R(3, 2), func="np.r_")
c("test_r_node_and_const", lambda ns, r: (lambda C: lambda x: ns.np.r_[x, C])(r.randn(3, 2)), R(3, 2), func="np.r_")
c("test_r_mixed", lambda ns, r: (lambda C: lambda x: ns.np.r_[x, C, x])(r.randn(3, 2)), R(3, 2), func="np.r_")
c("test_r_slicing", lambda ns, r: (lambda C: lambda x: ns.np.r_[x, C, 1:10])(r.randn(10)), R(10), func="np.r_")
c("test_c_", lambda ns, r: (lambda C: lambda x: ns.np.c_[x, C, x])(r.randn(3, 2)), R(3, 2), func="np.c_")
c("test_c_mixed", lambda ns, r: (lambda C: lambda x: ns.np.c_[x, C, x])(r.randn(3, 2)), R(3, 2), func="np.c_")

# var, std with ddof
for _f in ["var", "std"]:
    B, Cm, D = R(3, key="B"), R(3, 4, key="C"), R(1, 3, key="D")
    S.combo("test_%s_ddof" % _f, "np." + _f, [B, Cm, D], axis=[None], keepdims=[True, False], ddof=[0, 1])
    S.combo("test_%s_ddof" % _f, "np." + _f, [Cm, D], axis=[None, 1], keepdims=[True, False], ddof=[2])

c("test_where", lambda ns, r: (lambda C: lambda x, y: ns.np.where(C, x, y))(r.randn(4, 5) > 0), R(4, 5), R(4, 5),
  func="np.where")
c("test_squeeze_func", lambda ns: lambda x: ns.np.squeeze(x), R(5, 1, 4), func="np.squeeze")
c("test_squeeze_method", lambda ns: lambda x: x.squeeze(), R(5, 1, 4), func="squeeze")
c("test_repeat", lambda ns: lambda x: ns.np.repeat(x, 2, axis=1), R(5, 3, 4), func="np.repeat")
c("test_repeat_axis1_rep1", lambda ns: lambda x: ns.np.repeat(x, 1, axis=1), R(5, 3, 4), func="np.repeat")
c("test_repeat_axis0", lambda ns: lambda x: ns.np.repeat(x, 2, axis=0), R(5, 3), func="np.repeat")
c("test_repeat_1d_axis0", lambda ns: lambda x: ns.np.repeat(x, 2, axis=0), R(5), func="np.repeat")
c("test_repeat_axis0_rep1", lambda ns: lambda x: ns.np.repeat(x, 1, axis=0), R(5, 1), func="np.repeat")
c("test_expand_dims", lambda ns: lambda x: ns.np.expand_dims(x, 2), R(5, 1, 4), func="np.expand_dims")
c("test_tensordot_kwargs_by_position",
  lambda ns: lambda x: ns.np.tensordot(x * ns.np.ones((2, 2)), x * ns.np.ones((2, 2)), 2), const(1.0), order=1,
  func="np.tensordot")
c("test_multi_index", lambda ns: lambda x: ns.np.sum(x[[0, 0]]), R(3), func="getitem")
c("test_multi_index2", lambda ns: lambda x: ns.np.sum(x[[0, 1, 0]]), R(3), func="getitem")
c("test_index_dot_slices", lambda ns: lambda x: ns.np.dot(x[:2], x[2:]), R(4), func="np.dot")


def _cast_to_int(ns):
    inds = ns.np.ones(5)[:, None]

    def fun(W):
        ns.np.concatenate((W, inds), axis=1)
        new_W = W[:, :-1]
        new_inds = ns.np.int64(W[:, -1])
        assert new_inds.dtype == ns.np.int64
        return new_W[new_inds].sum()
    return fun


c("test_cast_to_int", _cast_to_int, R(5, 10), func="np.int64")


def _make_diagonal(ns):
    if ns.kind == "autograd":
        return lambda D: ns.np.make_diagonal(D, axis1=-1, axis2=-2)
    # np.make_diagonal is autograd's; in NumPy, a diagonal matrix from the last axis
    return lambda D: D[..., :, None] * ns.np.eye(D.shape[-1])


c("test_make_diagonal", _make_diagonal, R(4), func="make_diagonal")
c("test_make_diagonal", _make_diagonal, R(3, 4), func="make_diagonal")
c("test_diagonal", lambda ns: lambda D: ns.np.diagonal(D, axis1=-1, axis2=-2), R(4, 4), func="np.diagonal")
c("test_diagonal", lambda ns: lambda D: ns.np.diagonal(D, axis1=-1, axis2=-2), R(3, 4, 4), func="np.diagonal")


def _nan_to_num(ns):
    y = ns.np.array([0.0, float("nan"), float("inf"), -float("inf")])
    return lambda x: ns.np.sum(ns.np.sin(ns.np.nan_to_num(x + y)))


c("test_nan_to_num", _nan_to_num, R(4), func="np.nan_to_num")
c("test_max_equal_values", lambda ns: lambda x: ns.np.max(ns.np.array([x, x])), const(1.0), func="np.max")
for _x in [1.0, -1.0]:
    c("test_max_equal_values_2d", lambda ns: lambda x: ns.np.max(ns.np.array([[x, x], [x, 0.5]]), axis=1),
      const(_x), func="np.max")
for _x in [1.0, -1.0]:
    c("test_min_3_way_equality",
      lambda ns: lambda x: ns.np.min(ns.np.array([[x, x, x], [x, 0.5, 0.5], [0.5, 0.5, 0.5], [x, x, 0.5]]), axis=0),
      const(_x), func="np.min")
c("test_maximum_equal_values", lambda ns: lambda x: ns.np.maximum(x, x), const(1.0), func="np.maximum")
for _x in [1.0, -1.0, 2.0]:
    c("test_maximum_equal_values_2d",
      lambda ns: lambda x: ns.np.maximum(ns.np.array([x, x, 0.5]), ns.np.array([[x, 0.5, x], [x, x, 0.5]])),
      const(_x), func="np.maximum")
for _num in [0, 1, 5]:
    for _a, _b in [(1.2, 3.4), (1.2, -3.4), (1.2, 1.2)]:
        c("test_linspace", (lambda num: lambda ns: lambda x, y: ns.np.linspace(x, y, num))(_num), const(_a), const(_b),
          func="np.linspace", label="num=%d, %g, %g" % (_num, _a, _b))


def _astype(ns):
    return lambda x: ns.np.sum(ns.np.sin(x.astype("float64")))


c("test_astype", _astype, made("arange(3,float32)", lambda r: onp.arange(3, dtype="float32")),
  order=1, func="astype")
c("test_gradient", "np.gradient", R(10))
c("test_gradient", "np.gradient", R(10, 10))
c("test_gradient", "np.gradient", R(10, 10, 10))
for _a in [None, 0, 1, -1, (0, 1), (0, -1)]:
    c("test_gradient", "np.gradient", R(10, 10, 10), axis=_a)
