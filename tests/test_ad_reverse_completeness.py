"""Every function with a forward rule has a reverse rule, or is listed here with the reason it has none.

A function that gains a forward rule and no reverse rule fails this test until one is written or
it is listed below; a listed function that gains a reverse rule fails it until it is taken off.
(Zero-derivative forward rules need no reverse rule: their results carry no derivative.)
"""

import importlib

import ad
from ad.engine.forward import JVP_RULES

for _module in ("scipy.special", "scipy.linalg", "scipy.signal", "scipy.integrate"):  # their rules register on import
    try:
        importlib.import_module(_module)
    except ImportError:
        pass

HELPERS = "a helper called only inside forward rules"
REFUSED = "refused in forward mode too"

FORWARD_ONLY = {
    "ad.rules.layout._broadcast": HELPERS,
    "ad.rules.layout._selected": HELPERS,
    "ad.rules.number_types._replaced_nonfinite": HELPERS,
    "ad.rules.reductions._weighted_average": HELPERS,
    "ad.rules.shapes._pieces": HELPERS,
    "scipy.linalg._basic.lstsq": REFUSED,
    "scipy.linalg._decomp.hessenberg": REFUSED,
    "scipy.linalg._decomp_cholesky.cho_solve_banded": REFUSED,
    "scipy.linalg._decomp_cholesky.cholesky_banded": REFUSED,
    "scipy.linalg._decomp_ldl.ldl": REFUSED,
    "scipy.linalg._decomp_schur.schur": REFUSED,
    "scipy.linalg._expm_frechet.expm_frechet": REFUSED,
    "scipy.linalg._matfuncs.fractional_matrix_power": REFUSED,
    "scipy.linalg._matfuncs.funm": REFUSED,
    "scipy.linalg._matfuncs.signm": REFUSED,
}


def _name(fn):
    module = getattr(fn, "__module__", None) or getattr(getattr(fn, "__objclass__", None), "__name__", "?")
    return "%s.%s" % (module, getattr(fn, "__qualname__", repr(fn)))


# the rule tables' functions: NumPy's, SciPy's, the standard library's and ad's own (not the rules
# that tests and documentation register for functions of their own)
TABLES = ("numpy", "scipy", "math", "cmath", "_operator", "operator", "builtins", "ad.", "ufunc", "float", "generic",
          "ndarray")


def _forward_only():
    forward, reverse = ad.ForwardCtx._own_primitives, ad.ReverseCtx._own_primitives
    found = {}
    for key, (fn, _) in forward.items():
        rule = JVP_RULES.get(key)
        if key in reverse or (rule is not None and all(j is ad.ZERO for j in rule[1])):
            continue
        name = _name(fn)
        if name.startswith(TABLES):
            found[name] = fn
    return found


def test_every_forward_rule_has_a_reverse_rule_or_a_reason():
    found = _forward_only()
    unexplained = sorted(set(found) - set(FORWARD_ONLY))
    assert not unexplained, "forward rules without a reverse rule, and no reason given: %s" % unexplained


def test_the_list_names_no_function_that_has_a_reverse_rule_now():
    registered = {_name(fn) for fn, _ in ad.ForwardCtx._own_primitives.values()}
    found = _forward_only()
    stale = sorted(name for name in FORWARD_ONLY if name in registered and name not in found)
    assert not stale, "these have a reverse rule now; take them off the list: %s" % stale

