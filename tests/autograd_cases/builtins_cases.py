"""autograd's tests/test_builtins.py: ``isinstance`` on values being differentiated.

autograd needs its own ``isinstance`` there (its boxes are not ndarrays); plain code uses
the builtin, which is what is checked here: the function asserts the type of its
argument and returns a constant.
"""

import numpy as onp

from ._core import Suite, const

S = Suite("test_builtins.py")
SUITES = [S]


def _checker(type_name, truth):
    def build(ns):
        type_ = {"list": list, "ndarray": ns.np.ndarray if ns.kind != "autograd" else onp.ndarray,
                 "tuple_or_list": (tuple, list)}[type_name]
        if ns.kind == "autograd":
            from autograd.builtins import isinstance as is_instance
        else:
            is_instance = isinstance

        def checker(ex):
            assert is_instance(ex, type_) == truth
            return 1.0
        return checker
    return build


for _type, _pos, _neg in [("list", [[]], [()]), ("ndarray", [onp.zeros(1)], [[]]),
                          ("tuple_or_list", [[], ()], [onp.zeros(1)])]:
    for _ex in _pos:
        S.check("test_isinstance", _checker(_type, True), const(_ex), order=1, func="isinstance")
    for _ex in _neg:
        S.check("test_isinstance", _checker(_type, False), const(_ex), order=1, func="isinstance")
