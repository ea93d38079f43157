"""autograd's tests/test_systematic.py: the sweeps over statistics, unary and binary ufuncs,
shape functions, products, einsum, splits and stacks."""

import operator as op

import numpy as onp

from ._core import (
    C, R, Suite, binary_ufunc_check, binary_ufunc_check_no_same_args, const, stat_check, unary_ufunc_check,
)

S = Suite("test_systematic.py")
SUITES = [S]

# statistics
for _name in ["max", "mean", "min", "sum", "prod", "var", "std"]:
    stat_check(S, "test_" + _name, "np." + _name)

# unary ufuncs: (name, lims, complex too)
UNARY = [
    ("sin", None, True), ("abs", (0.1, 4.0), True), ("absolute", (0.1, 4.0), True), ("arccosh", (1.1, 4.0), True),
    ("arcsinh", (-0.9, 0.9), True), ("arctanh", (-0.9, 0.9), True), ("ceil", (-1.5, 1.5), False), ("cos", None, True),
    ("cosh", None, True), ("deg2rad", None, False), ("exp", None, True), ("exp2", None, True), ("expm1", None, True),
    ("fabs", None, False), ("floor", (-1.5, 1.5), False), ("log", (0.2, 2.0), True), ("log10", (0.2, 2.0), True),
    ("log1p", (0.2, 2.0), True), ("log2", (0.2, 2.0), True), ("radians", None, False), ("sign", None, False),
    ("sinh", None, True), ("sqrt", (1.0, 3.0), True), ("square", None, False), ("tan", (-1.1, 1.1), True),
    ("tanh", None, True), ("real", None, True), ("real_if_close", None, True), ("imag", None, True),
    ("conj", None, True), ("conjugate", None, True), ("angle", None, True),
]
for _name, _lims, _cplx in UNARY:
    unary_ufunc_check(S, "test_" + ("real_ic" if _name == "real_if_close" else _name), "np." + _name,
                      lims=_lims or (-2, 2), test_complex=_cplx)
unary_ufunc_check(S, "test_degrees", lambda ns: lambda x: ns.np.degrees(x) / 50.0, test_complex=False,
                  func="np.degrees")
unary_ufunc_check(S, "test_rad2deg", lambda ns: lambda x: ns.np.rad2deg(x) / 50.0, test_complex=False,
                  func="np.rad2deg")

# binary ufuncs
binary_ufunc_check(S, "test_add", "np.add")
binary_ufunc_check(S, "test_logaddexp", "np.logaddexp", test_complex=False)
binary_ufunc_check(S, "test_logaddexp2", "np.logaddexp2", test_complex=False)
binary_ufunc_check_no_same_args(S, "test_remainder", "np.remainder", lims_A=(-0.9, 0.9), lims_B=(0.7, 1.9),
                                test_complex=False)
binary_ufunc_check(S, "test_true_divide", "np.true_divide", lims_B=(0.8, 1.2), test_complex=False)
binary_ufunc_check_no_same_args(S, "test_mod", "np.mod", lims_B=(0.8, 2.1), test_complex=False)
binary_ufunc_check(S, "test_true_divide_neg", "np.true_divide", lims_B=(-0.3, -2.0), test_complex=False)
binary_ufunc_check_no_same_args(S, "test_mod_neg", "np.mod", lims_B=(-0.3, -2.0), test_complex=False)
binary_ufunc_check(S, "test_op_mul", lambda ns: op.mul, func="operator.mul")
binary_ufunc_check(S, "test_op_add", lambda ns: op.add, func="operator.add")
binary_ufunc_check(S, "test_op_sub", lambda ns: op.sub, func="operator.sub")
binary_ufunc_check_no_same_args(S, "test_op_mod", lambda ns: op.mod, lims_B=(0.3, 2.0), test_complex=False,
                                func="operator.mod")
binary_ufunc_check_no_same_args(S, "test_op_mod_neg", lambda ns: op.mod, lims_B=(-0.3, -2.0), test_complex=False,
                                func="operator.mod")

# shapes and products
S.combo("test_transpose", "np.transpose", [R(2, 3, 4)],
        axes=[None, [0, 1, 2], [0, 2, 1], [2, 0, 1], [2, 1, 0], [1, 0, 2], [1, 2, 0]])
S.combo("test_moveaxis", "np.moveaxis", [R(2, 3, 4)], source=[0, 1, 2], destination=[0, 1, 2])
S.combo("test_repeat", "np.repeat", [R(2, 3, 4), R(3, 1)], repeats=[0, 1, 2], axis=[None, 0, 1])
S.combo("test_diff", "np.diff", [R(5, 5), R(5, 5, 5)], n=[1, 2], axis=[0, 1])
S.combo("test_diff", "np.diff", [R(1), R(1, 1)], axis=[0])
S.combo("test_diff", "np.diff", [R(1, 1), R(3, 1)], axis=[1])
S.combo("test_gradient", "np.gradient", [R(5, 5), R(5, 5, 5)], axis=[None, 0, 1, -1])
S.combo("test_gradient", "np.gradient", [R(5, 5, 5)], axis=[(0, 1), (0, -1)])
S.combo("test_tile", "np.tile", [R(2, 1, 3, 1)], reps=[(1, 4, 1, 2)])
S.combo("test_tile", "np.tile", [R(1, 2)], reps=[(1, 2), (2, 3), (3, 2, 1)])
S.combo("test_tile", "np.tile", [R(1)], reps=[(2,), 2])
S.combo("test_kron", "np.kron", [R(5, 5), R(4, 4), R(5), R(5, 1), R(1, 5), R(), C(5, 5)],
        [R(3, 3), R(2, 2), R(3), R(1, 3), R(3, 1), R(), C(3, 3)], argnums=(0, 1))
S.combo("test_inner", "np.inner", [const(1.5), R(3), R(2, 3)],
        [const(0.3), R(3), R(4, 3)], argnums=(0, 1))
S.combo("test_dot", "np.dot", [const(1.5), R(3), R(2, 3), R(2, 2, 3), C(3), C(2, 3)],
        [const(0.3), R(3), R(3, 4), R(2, 3, 4), C(3)], argnums=(0, 1), order=3)
S.combo("test_outer", "np.outer", [R(3), C(3)], [R(3), C(3)], argnums=(0, 1), order=3)
S.combo("test_matmul", "np.matmul", [R(3), R(2, 3), R(2, 2, 3), C(3), C(2, 3)],
        [R(3), R(3, 4), R(2, 3, 4), C(3), C(3, 4)], argnums=(0, 1))
S.combo("test_matmul_broadcast", "np.matmul", [R(1, 2, 2)], [R(3, 2, 1)], argnums=(0, 1))
S.combo("test_tensordot_1", "np.tensordot", [R(1, 3), R(2, 3, 2), C(1, 3)], [R(3), R(3, 1), R(3, 4, 2), C(3)],
        axes=[[(1,), (0,)]], argnums=(0, 1), order=3)
S.combo("test_tensordot_2", "np.tensordot", [R(3), R(3, 1), R(3, 4, 2)], [R(1, 3), R(2, 3, 2)],
        axes=[[(0,), (1,)]], argnums=(0, 1), order=3)
S.combo("test_tensordot_3", "np.tensordot", [R(2, 3), R(2, 3, 4)], [R(1, 2, 3), R(2, 2, 3, 4)],
        axes=[[(0, 1), (1, 2)], [(1, 0), (2, 1)]], argnums=(0, 1), order=3)
S.combo("test_tensordot_4", "np.tensordot", [R(2, 2), R(4, 2, 2)], [R(2, 2), R(2, 2, 4)], axes=[1, 2],
        argnums=(0, 1), order=3)
S.combo("test_tensordot_5", "np.tensordot", [R(4)], [R()], axes=[0], argnums=(0, 1), order=3)
S.combo("test_tensordot_6", "np.tensordot", [R(2, 6)], [R(6, 3)], axes=[[[-1], [0]]], argnums=(0, 1), order=3)
S.combo("test_tensordot_7", "np.tensordot", [R(2, 6)], [R(6, 3)], axes=[[-1, 0]], argnums=(0, 1), order=3)
S.combo("test_tensordot_8", "np.tensordot", [R(2)], [R(2, 2)], axes=[[0, 1]], argnums=(0, 1), order=3)
for _name in ["maximum", "fmax", "minimum", "fmin"]:
    S.combo("test_" + _name, "np." + _name, [R(1), R(1, 4), R(3, 4)], [R(1), R(1, 4), R(3, 4)], argnums=(0, 1))
S.combo("test_sort", "np.sort", [R(1), R(7)])
if onp.lib.NumpyVersion(onp.__version__) < "2.0.0":
    S.combo("test_msort", "np.msort", [R(1), R(7)])
S.combo("test_partition", "np.partition", [R(7), R(14)], kth=[0, 3, 6])
S.combo("test_atleast_1d", "np.atleast_1d", [const(1.2), R(1), R(7), R(1, 4), R(2, 4),
                                              R(2, 4, 5)])
S.combo("test_atleast_2d", "np.atleast_2d", [const(1.2), R(1), R(7), R(1, 4), R(2, 4),
                                              R(2, 4, 5)])
S.combo("test_atleast_3d", "np.atleast_3d", [const(1.2), R(1), R(7), R(1, 4), R(2, 4),
                                              R(2, 4, 5), R(2, 4, 3, 5)])

# einsum, with subscripts
E = "np.einsum"
S.combo("test_einsum_transpose", E, ["ij->ji"], [R(1, 1), R(4, 4), R(3, 4)], argnums=(1,))
S.combo("test_einsum_matmult", E, ["ij,jk->ik"], [R(2, 3), C(2, 3)], [R(3, 4), C(3, 4)], argnums=(1, 2))
S.combo("test_einsum_matmult_broadcast", E, ["...ij,...jk->...ik"], [R(2, 3), R(2, 2, 3)], [R(3, 4), R(2, 3, 4)],
        argnums=(1, 2))
S.combo("test_einsum_matmult_broadcast_leadzero", E, ["...ij,...jk->...ik"], [R(0, 2, 3)], [R(0, 3, 4)],
        argnums=(1, 2))
S.combo("test_einsum_covsum", E, ["ijk,lji->lki"], [R(3, 4, 4)], [R(4, 4, 3)], argnums=(1, 2))
S.combo("test_einsum_ellipses", E, ["...jk,...lj->...lk", "...,...->..."], [R(4, 4), R(3, 4, 4)], [R(4, 4), R(3, 4, 4)],
        argnums=(1, 2))
S.combo("test_einsum_ellipses_tail", E, ["jk...,lj...->lk..."], [R(3, 2), R(3, 2, 4)], [R(2, 3), R(2, 3, 4)],
        argnums=(1, 2))
S.combo("test_einsum_ellipses_center", E, ["j...k,lj...->lk..."], [R(2, 2), R(2, 2, 2)], [R(2, 2), R(2, 2, 2)],
        argnums=(1, 2))
S.combo("test_einsum_three_args", E, ["ijk,lji,lli->lki"], [R(3, 4, 4)], [R(4, 4, 3)], [R(4, 4, 3)], argnums=(1, 2))
# einsum, with sublists
S.combo("test_einsum2_transpose", E, [R(1, 1), R(4, 4), R(3, 4)], [(0, 1)], [(1, 0)], argnums=(0,))
S.combo("test_einsum2_matmult", E, [R(2, 3)], [(0, 1)], [R(3, 4)], [(1, 2)], [(0, 2)], argnums=(0, 2))
S.combo("test_einsum2_matmult_broadcast", E, [R(2, 3), R(2, 2, 3)], [(Ellipsis, 0, 1)], [R(3, 4), R(2, 3, 4)],
        [(Ellipsis, 1, 2)], [(Ellipsis, 0, 2)], argnums=(0, 2))
S.combo("test_einsum2_covsum", E, [R(3, 4, 4)], [(0, 1, 2)], [R(4, 4, 3)], [(3, 1, 0)], [(3, 2, 0)], argnums=(0, 2))
S.combo("test_einsum2_three_args", E, [R(3, 4, 4)], [(0, 1, 2)], [R(4, 4, 3)], [(3, 1, 0)], [R(4, 4, 3)], [(3, 3, 0)],
        [(3, 2, 0)], argnums=(0, 2))
S.combo("test_einsum_naked_sum", E, ["k,nk->"], [R(5)], [R(10, 5)], argnums=(1, 2))
S.combo("test_einsum_naked_sum2", E, ["abcd->bd"], [R(3, 2, 3, 2)], argnums=(1,))
S.combo("test_einsum_naked_sum_ellipsis", E, ["...k,...nk->..."], [R(3, 5)], [R(3, 10, 5)], argnums=(1, 2))
S.combo("test_einsum_no_output_indices", E, ["ij,k"], [R(3, 4)], [R(3)], argnums=(1, 2))

S.combo("test_trace", "np.trace", [R(5, 5), R(4, 5), R(5, 4), R(3, 4, 5)], offset=[-1, 0, 1])
S.combo("test_diag", "np.diag", [R(5, 5)], k=[-1, 0, 1])
S.combo("test_diag_flat", "np.diag", [R(5)], k=[-1, 0, 1])
S.combo("test_tril", "np.tril", [R(5, 5)], k=[-1, 0, 1])
S.combo("test_triu", "np.triu", [R(5, 5)], k=[-1, 0, 1])
S.combo("test_tril_3d", "np.tril", [R(5, 5, 4)], k=[-1, 0, 1])
S.combo("test_triu_3d", "np.triu", [R(5, 5, 4)], k=[-1, 0, 1])
S.combo("test_swapaxes", "np.swapaxes", [R(3, 4, 5)], axis1=[0, 1, 2], axis2=[0, 1, 2])
S.combo("test_rollaxis", "np.rollaxis", [R(2, 3, 4)], axis=[0, 1, 2], start=[0, 1, 2])
S.combo("test_cross", "np.cross", [R(3, 3)], [R(3, 3)], axisa=[-1, 0, 1], axisb=[-1, 0, 1], axisc=[-1, 0, 1],
        axis=[None, -1, 0, 1], argnums=(0, 1))

# splits
S.combo("test_vsplit_2d", "np.vsplit", [R(4, 8)], [4, [1, 2]])
S.combo("test_vsplit_3d", "np.vsplit", [R(4, 4, 4)], [2, [1, 2]])
S.combo("test_hsplit_2d", "np.hsplit", [R(4, 8)], [4, [1, 2]])
S.combo("test_hsplit_3d", "np.hsplit", [R(4, 4, 4)], [2, [1, 2]])
S.combo("test_dsplit_3d", "np.dsplit", [R(4, 4, 4)], [2, [1, 2]])
S.combo("test_split_1d", "np.split", [R(1), R(7)], [1], axis=[0])
S.combo("test_split_2d", "np.split", [R(4, 8)], [4, [1, 2]], axis=[0, 1])
S.combo("test_split_3d", "np.split", [R(4, 4, 4)], [2, [1, 2]], axis=[0, 1, 2])
S.combo("test_array_split_1d", "np.array_split", [R(1), R(7)], [1, 3], axis=[0])
S.combo("test_array_split_2d", "np.array_split", [R(7, 7)], [4, [3, 5]], axis=[0, 1])
S.combo("test_array_split_3d", "np.array_split", [R(7, 7, 7)], [4, [3, 5]], axis=[0, 1, 2])

# joins (the first argument is a sequence of arrays, all differentiated)
S.combo("test_concatenate_1ist", "np.concatenate", [(R(1), R(3))], axis=[0])
S.combo("test_concatenate_tuple", "np.concatenate", [[R(1), R(3)]], axis=[0])
S.combo("test_concatenate_2d", "np.concatenate", [(R(2, 2), R(2, 2))], axis=[0, 1])
S.combo("test_concatenate_3d", "np.concatenate", [(R(2, 2, 2), R(2, 2, 2))], axis=[0, 1, 2])
for _f in ["vstack", "hstack", "row_stack", "column_stack"]:
    _sizes = {
        "vstack": [("1d", [R(2), (R(2), R(2))]), ("2d", [R(2, 3), (R(2, 4), R(1, 4))]),
                   ("3d", [R(2, 3, 4), (R(2, 3, 4), R(5, 3, 4))])],
        "hstack": [("1d", [R(2), (R(2), R(2))]), ("2d", [R(3, 2), (R(3, 4), R(3, 5))]),
                   ("3d", [R(2, 3, 4), (R(2, 1, 4), R(2, 5, 4))])],
        "row_stack": [("1d", [R(2), (R(2), R(2))]), ("2d", [R(2, 3), (R(2, 4), R(1, 4))])],
        "column_stack": [("1d", [R(2), (R(2), R(2))]), ("2d", [R(2, 2), (R(2, 2), R(2, 2))])],
    }[_f]
    for _dim, _args in _sizes:
        S.combo("test_%s_%s" % (_f, _dim), "np." + _f, _args)
S.combo("test_stack_1d", "np.stack", [(R(2),), (R(2), R(2))], axis=[0, 1])


def _select(ns, r):
    conds = [r.randn(3, 4, 5) > 0, r.randn(3, 4, 5) > 0, r.randn(3, 4, 5) > 0]
    return lambda choices, default: ns.np.select(conds, choices, default=default)


for _d in [0.0, 1.1]:
    S.check("test_select", _select, [R(3, 4, 5), R(3, 4, 5), R(3, 4, 5)], _d, func="np.select",
            label="default=%g" % _d)
S.combo("test_pad", "np.pad", [R(2, 2)], [0, 3, (3,), (3, 2), ((3, 2),), ((1, 2), (3, 4)), ((0, 0), (0, 0))],
        ["constant"])
