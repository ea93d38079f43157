"""np.pad under sparsity detection, every mode, against central differences (statistics that pick
one element, a maximum or a median, depend on every element they read: the global pattern holds
for every input)."""

import numpy as np
import pytest

import ad
from tests.ad_rule_checks import check_pattern

pytest.importorskip("scipy")


# name: (function, exact)
CASES = {
    "edge": (lambda x: np.pad(x, 2, mode="edge"), True),
    "reflect, 2-d": (lambda x: np.pad(x.reshape(2, 4), ((1, 1), (2, 2)), mode="reflect"), True),
    "empty": (lambda x: np.pad(x, 2, mode="empty")[2:-2] * 1.0, True),
    "constant from the input": (lambda x: np.pad(x[1:], (1, 2), constant_values=x[0]), True),
    "constants per side from the input": (
        lambda x: np.pad(x[2:].reshape(2, 3), 1, constant_values=((x[0], 0.0), (0.0, x[1]))), False),
    "maximum": (lambda x: np.pad(x, 2, mode="maximum"), False),
    "minimum, stat_length": (lambda x: np.pad(x, (2, 3), mode="minimum", stat_length=2), False),
    "median, 2-d": (lambda x: np.pad(x.reshape(2, 4), 1, mode="median"), False),
    "mean, 2-d": (lambda x: np.pad(x.reshape(2, 4), 1, mode="mean"), True),
    "mean, 2-d, stat_length per side": (
        lambda x: np.pad(x.reshape(2, 4), ((1, 0), (2, 1)), mode="mean", stat_length=((1, 1), (2, 1))), True),
    "linear_ramp": (lambda x: np.pad(x, (3, 2), mode="linear_ramp", end_values=(5.0, -1.0)), True),
    "linear_ramp, 2-d": (lambda x: np.pad(x.reshape(2, 4), ((2, 1), (1, 3)), mode="linear_ramp"), True),
    "linear_ramp, end value from the input": (lambda x: np.pad(x[1:], 3, mode="linear_ramp", end_values=x[0]), True),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_pad_pattern(name):
    f, exact = CASES[name]
    check_pattern(f, np.random.default_rng(0).uniform(0.5, 1.5, size=8) + np.arange(8), exact)


def test_pad_refuses_what_it_cannot_follow():
    with pytest.raises(ad.NoRuleError, match="a function as the mode"):
        ad.jacobian_sparsity(lambda x: np.pad(x, 1, mode=lambda v, w, i, k: None), np.ones(3))
    with pytest.raises(ad.NoRuleError, match="stat_length depends on the input"):
        ad.jacobian_sparsity(lambda x: np.pad(x, 1, mode="mean", stat_length=(x[0] > 0) * 1), np.ones(3))
