"""Derivative rules for ``statistics``' means and spreads that sum exact fractions: ``mean``,
``variance``, ``pvariance``, ``stdev``, ``pstdev``.

They add the data as exact fractions (``float.as_integer_ratio``), through which no derivative
passes; the value is theirs, and its derivative along each item is given here: ``1/n`` for the
mean, ``2 (x_i - c) / m`` for the variances (``c`` the mean, or ``xbar``/``mu`` when given;
``m`` is ``n - 1`` or ``n``), that over ``2 s`` for the deviations (``nan`` where ``s`` is 0, as for
``np.std``). ``statistics``' other functions (``fmean``, ``median``, ``geometric_mean``,
``quantiles``, ``covariance``, ``correlation``, ``linear_regression``) compute in floats and are
differentiated through their code. ``xbar``/``mu`` carrying a derivative raise NoRuleError.
Reverse mode's rules (``vjps_statistics``) use the same derivatives.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import statistics

import numpy as np

from ..engine.forward import NoRuleError, frule


def _center(xs, given):
    return statistics.fmean(xs) if given is None else given


def _mean_partials(xs, ans):
    n = len(xs)
    return [1.0 / n] * n


def _squares_partials(xs, ans, given, denominator):
    c = _center(xs, given)
    m = denominator(len(xs))
    return [2.0 * (x - c) / m for x in xs]


def _root_partials(xs, ans, given, denominator):
    if ans == 0:
        return [np.nan] * len(xs)  # (the square root at 0: as np.std's derivative there)
    c = _center(xs, given)
    m = denominator(len(xs))
    return [(x - c) / (m * ans) for x in xs]


def _sample(n):
    return n - 1


def _population(n):
    return n


# function -> (the name of its centre parameter or None, partials(xs, ans, centre))
PARTIALS = {
    statistics.mean: (None, lambda xs, ans, c: _mean_partials(xs, ans)),
    statistics.variance: ("xbar", lambda xs, ans, c: _squares_partials(xs, ans, c, _sample)),
    statistics.pvariance: ("mu", lambda xs, ans, c: _squares_partials(xs, ans, c, _population)),
    statistics.stdev: ("xbar", lambda xs, ans, c: _root_partials(xs, ans, c, _sample)),
    statistics.pstdev: ("mu", lambda xs, ans, c: _root_partials(xs, ans, c, _population)),
}


def constant_centre(fn, name, rest, kwargs, carries):
    """The centre argument of ``fn`` (``xbar``, ``mu``) or None; an error if it carries a derivative."""
    if name is None:
        return None
    given = rest[0] if rest else kwargs.get(name)
    if given is not None and carries(given):
        raise NoRuleError("statistics.%s: only the data may carry a derivative; make %s a constant"
                          % (fn.__name__, name))
    return given


def _rule(fn, name, partials):
    @frule(fn, sequences=(0,))
    def rule(primals, tangents, **kwargs):
        xs, rest = list(primals[0]), primals[1:]
        centre = constant_centre(fn, name, rest, kwargs, lambda v: any(g is not None for g in tangents[1:]))
        ans = fn(xs, *rest, **kwargs)
        w = partials(xs, ans, centre)
        terms = [wi * g for wi, g in zip(w, tangents[0]) if g is not None]
        return ans, sum(terms[1:], terms[0])

    rule.__name__ = rule.__qualname__ = "_" + fn.__name__
    return rule


for _fn, (_name, _partials) in PARTIALS.items():
    _rule(_fn, _name, _partials)
