"""``statistics``' exact means and spreads, differentiated in both modes and every nesting."""

import statistics

import numpy as np
import pytest

import ad

F, R = ad.ForwardMode(), ad.ReverseMode()
FD = ad.FiniteDifferences()
X = np.array([0.3, 0.5, 0.9, 1.4])

CASES = {
    "mean": lambda x: statistics.mean(list(x)) * x[0],
    "variance": lambda x: statistics.variance(list(x)),
    "variance-xbar": lambda x: statistics.variance(list(x), 0.7),
    "pvariance": lambda x: statistics.pvariance(tuple(x)),
    "pvariance-mu": lambda x: statistics.pvariance(list(x), mu=0.5),
    "stdev": lambda x: statistics.stdev(v * v for v in x),  # (a generator)
    "pstdev": lambda x: statistics.pstdev(list(x)) + statistics.pstdev([1.0, x[1]]),
    "array": lambda x: statistics.mean(x) + statistics.stdev(x),  # (the array being differentiated itself)
}


@pytest.mark.parametrize("mode", [F, R], ids=["forward", "reverse"])
@pytest.mark.parametrize("name", list(CASES))
def test_gradients_against_central_differences(name, mode):
    f = CASES[name]
    value, g = ad.value_and_gradient(f, X, backend=mode)
    assert value == f(X)  # statistics' own value, exactly
    np.testing.assert_allclose(g, ad.gradient(f, X, backend=FD), rtol=1e-6)


@pytest.mark.parametrize("name", ["mean", "variance", "pstdev", "array"])
def test_hessians_in_every_nesting(name):
    f = CASES[name]
    expected = ad.hessian(f, X)
    np.testing.assert_allclose(expected, ad.hessian(f, X, backend=FD), rtol=1e-4, atol=1e-6)
    for b in (ad.HigherOrder(F, R), ad.HigherOrder(R, F), ad.HigherOrder(R, R)):
        np.testing.assert_allclose(ad.hessian(f, X, backend=b), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mode", [F, R], ids=["forward", "reverse"])
def test_what_is_refused_or_undefined(mode):
    with pytest.raises(ad.NoRuleError, match="statistics.variance: only the data may carry a derivative"):
        ad.gradient(lambda x: statistics.variance(list(x), x[0]), X, backend=mode)
    with pytest.raises(ad.NoRuleError, match="statistics.pvariance: only the data"):
        ad.gradient(lambda x: statistics.pvariance(list(x), mu=x[1]), X, backend=mode)
    # the deviation of equal values is 0: the square root's derivative there is nan, as np.std's
    assert np.isnan(ad.gradient(lambda x: statistics.pstdev([x[0], x[0]]), X, backend=mode)[0])
    # statistics' own errors as natively
    with pytest.raises(statistics.StatisticsError):
        ad.gradient(lambda x: statistics.variance([x[0]]), X, backend=mode)
