"""One case under ad: its derivatives at each order, checked against the references and
classified."""

import importlib
import itertools
import math
import os
import time
import warnings

import numpy as onp

from .cases import Prepared
from .errors import NORULE, deliberate, last_frames, names_function
from .references import autograd_derivative, fd_derivative, fd_ridders
from .trees import copy_tree, flat, get, is_complex_leaf, leaves

CLASSES = ["correct", "clear error", "wrong", "crash", "inconclusive", "n/a", "skipped"]
RTOL = {1: 1e-6, 2: 1e-5, 3: 1e-4}
AGREE = 10.0  # references agree when within AGREE * rtol of each other


def backend():
    """The backend every derivative of a check is taken with (``--backend``, through the
    environment so that worker processes see it): None for ``ad``'s forward mode, else
    ``ad.ReverseMode()`` (at order ``n``, reverse mode nested ``n`` times)."""
    import ad

    return ad.ReverseMode() if os.environ.get("AG_SUITE_BACKEND") == "reverse" else None


def ad_derivative(prep, path, n):
    """``(value, tangent)`` from ad: the ``n``-th mixed derivative of output leaf ``path``
    along the case's directions (value: the ``n-1``-th)."""
    import ad

    b = backend()
    fn = prep.fn("ad")
    kwargs = prep.kwargs
    case = prep.case
    if prep.direct():
        i = case.argnums[0]

        def F(y):
            args = copy_tree(list(prep.args))
            args[i] = y
            return get(fn(*args, **copy_tree(kwargs)), path)

        dirs = [prep.dirs[k][i] for k in range(n)]

        def level(k, y):
            if k == n - 1:
                return ad.jvp(F, y, dirs[k], backend=b)
            return ad.jvp(lambda z: level(k + 1, z)[1], y, dirs[k], backend=b)

        x = prep.args[i]
        return level(0, x.copy() if isinstance(x, onp.ndarray) else x)

    def G(coeffs):
        return get(fn(*prep.point(coeffs), **copy_tree(kwargs)), path)

    def level_line(k, coeffs):
        if k == n - 1:
            return ad.jvp(lambda c: G(coeffs + (c,)), 0.0, 1.0, backend=b)
        return ad.jvp(lambda c: level_line(k + 1, coeffs + (c,))[1], 0.0, 1.0, backend=b)

    return level_line(0, ())


def compare(a, r, rtol):
    """``(ok, err)``: ``a`` within ``rtol`` of ``r`` (relative to each element and to the
    largest of ``r``, at least 1), and the worst error in those units."""
    if a.shape != r.shape:
        return False, math.inf
    if a.size == 0:
        return True, 0.0
    both_nan = onp.isnan(a) & onp.isnan(r)
    scale = max(1.0, float(onp.nanmax(onp.abs(r))) if onp.isfinite(r).any() else 1.0)
    err = onp.abs(a - r) / (onp.abs(r) + scale)
    err = onp.where(both_nan | (a == r), 0.0, err)
    err = onp.where(onp.isnan(err), onp.inf, err)
    worst = float(onp.max(err))
    return worst <= rtol, worst


def _summary(x, k=6):
    x = onp.asarray(x).ravel()
    return [_num(v) for v in x[:k]]


def _num(v):
    v = complex(v)
    if v.imag == 0:
        return float(v.real) if math.isfinite(v.real) else str(v.real)
    return [float(v.real), float(v.imag)]


def check(prep, n, use_autograd):
    """One check: the case at order ``n``. Returns a record (a dict)."""
    import ad

    case = prep.case
    rec = {"order": n, "mode": "direct" if prep.direct() else "line"}
    native = prep.call("fd", ())
    paths = [p for p, leaf in leaves(native)]
    if not paths:
        rec.update(cls="n/a", detail="the function returns no numbers")
        return rec
    eps = prep.eps()
    rtol = RTOL[n] * max(1.0, math.sqrt(eps / 2.2e-16))
    t0 = time.perf_counter()
    try:
        results = [ad_derivative(prep, p, n) for p in paths]
    except ad.NoRuleError as e:
        msg = str(e)
        m = NORULE.match(msg)
        rec.update(cls="clear error", error_type=type(e).__name__, error=msg[:500],
                   norule=m.group(1) if m else None)
        return rec
    except (TypeError, ValueError) as e:
        msg = str(e)
        ok = deliberate(e) and names_function(msg, case)
        rec.update(cls="clear error" if ok else "crash", error_type=type(e).__name__, error=msg[:500],
                   where=last_frames(e))
        return rec
    except Exception as e:  # noqa: BLE001 (a crash is a result)
        rec.update(cls="crash", error_type=type(e).__name__, error=str(e)[:500], where=last_frames(e))
        return rec
    rec["time"] = time.perf_counter() - t0
    ad_values = [flat(v) for v, _ in results]
    ad_tangents = [flat(t) if t is not None else onp.zeros(flat(get(native, p)).shape, complex)
                   for (p, (_, t)) in zip(paths, results)]
    # ad's value must be the function's (first order: the value itself). Where the function
    # takes derivatives itself, its plain value is one of finite differences: autograd's is
    # the other reference.
    if n == 1:
        values = {"native": [flat(get(native, p)) for p in paths]}
        if prep.inner_fd:
            values = {"fd": values["native"]}
            if use_autograd:
                try:
                    ag = prep.call("autograd", ())
                    values["autograd"] = [flat(get(ag, p)) for p in paths]
                except Exception as e:  # noqa: BLE001
                    rec["autograd_value_error"] = "%s: %s" % (type(e).__name__, str(e)[:200])
        vtol = RTOL[1] if prep.inner_fd else 1e-9
        good = {k: all(compare(v, r, vtol)[0] for v, r in zip(ad_values, refs_))
                for k, refs_ in values.items()}
        if not any(good.values()):
            if len(values) == 1:  # exact, unless it is finite differences' own
                agree = not prep.inner_fd
            else:
                agree = all(compare(a, b, AGREE * vtol)[0] for a, b in zip(*values.values()))
            errs = [compare(v, r, vtol) for v, r in zip(ad_values, next(iter(values.values())))]
            j = max(range(len(errs)), key=lambda i: errs[i][1])
            rec.update(cls="wrong" if agree else "inconclusive", detail="ad's value differs from the function's",
                       err=errs[j][1], leaf=list(map(str, paths[j])), ad=_summary(ad_values[j]),
                       refs={k: _summary(r[j]) for k, r in values.items()})
            return rec
    # references
    refs = {}
    scale = prep.scale()
    h_plain = eps ** (1.0 / (n + 2)) * scale
    try:
        # from two starting steps (a function with large higher derivatives needs the
        # smaller), keeping the estimate with the smaller error
        # (a starting step may leave the function's domain, as times that stop being increasing
        # do for odeint: the other is kept)
        ridders = [min(_ridders_from(prep, p, n, scale), key=lambda r: r[1]) for p in paths]
        refs["fd"] = [r for r, _ in ridders]
        rec["fd_error_estimate"] = max(e for _, e in ridders)
    except Exception as e:  # noqa: BLE001
        rec["fd_error"] = "%s: %s" % (type(e).__name__, str(e)[:200])
    try:
        refs["fd_plain"] = [fd_derivative(prep, p, n, h_plain) for p in paths]
    except Exception as e:  # noqa: BLE001
        rec["fd_plain_error"] = "%s: %s" % (type(e).__name__, str(e)[:200])
    if use_autograd:
        try:
            got = [autograd_derivative(prep, p, n, is_complex_leaf(get(native, p))) for p in paths]
            refs["autograd"] = [g for g, _ in got]
            rec["autograd_mode"] = got[0][1]
        except Exception as e:  # noqa: BLE001
            rec["autograd_error"] = "%s: %s" % (type(e).__name__, str(e)[:200])

    def close(xs, ys, tol):
        worst, ok = 0.0, True
        for a, b in zip(xs, ys):
            good, err = compare(a, b, tol)
            ok, worst = ok and good, max(worst, err)
        return ok, worst

    verdicts = {k: close(ad_tangents, r, rtol) for k, r in refs.items()}
    rec["errors"] = {k: v[1] for k, v in verdicts.items()}
    agreeing = [(a, b) for a, b in itertools.combinations(sorted(refs), 2)
                if close(refs[a], refs[b], AGREE * rtol)[0]]
    rec["agreeing_refs"] = ["%s=%s" % ab for ab in agreeing]
    if any(ok for ok, _ in verdicts.values()):
        rec["cls"] = "correct"
        return rec
    best = min(refs, key=lambda k: verdicts[k][1]) if refs else None
    # where the disagreement is largest, for the report
    if best is not None:
        worst_leaf, worst_i, worst_e = 0, 0, -1.0
        for j, (a, r) in enumerate(zip(ad_tangents, refs[best])):
            if a.shape == r.shape and a.size:
                e = onp.abs(a - r) / (onp.abs(r) + max(1.0, float(onp.nanmax(onp.abs(r)))))
                e = onp.where(onp.isnan(e), onp.inf, e)
                i = int(onp.argmax(e))
                if e[i] > worst_e:
                    worst_leaf, worst_i, worst_e = j, i, float(e[i])
        rec["at"] = {"leaf": list(map(str, paths[worst_leaf])), "index": worst_i,
                     "ad": _num(ad_tangents[worst_leaf][worst_i]) if ad_tangents[worst_leaf].size else None,
                     "refs": {k: _num(r[worst_leaf][worst_i]) for k, r in refs.items()
                              if r[worst_leaf].shape == ad_tangents[worst_leaf].shape and r[worst_leaf].size}}
        rec["ad"] = _summary(ad_tangents[worst_leaf])
        rec["refs"] = {k: _summary(r[worst_leaf]) for k, r in refs.items()}
    rec["cls"] = "wrong" if agreeing else "inconclusive"
    return rec


def _ridders_from(prep, path, n, scale):
    """Ridders' estimates from each starting step that the function accepts (at least one)."""
    found, error = [], None
    for h0 in (0.05, 0.002):
        try:
            found.append(fd_ridders(prep, path, n, h0 * scale))
        except Exception as e:  # noqa: BLE001
            error = e
    if not found:
        raise error
    return found


def run_case(case, namespaces, use_autograd):
    """Every order of one case: a list of records."""
    base = {"name": case.name, "file": case.file, "test": case.test, "func": case.func, "inputs": case.inputs(),
            "argnums": list(case.argnums), "orders": case.order}
    if case.na:
        return [dict(base, order=1, cls="n/a", detail=case.na)]
    if "scipy" in case.needs:
        try:
            importlib.import_module("scipy")
        except ImportError:
            return [dict(base, order=1, cls="skipped", detail="needs scipy")]
    records = []
    with warnings.catch_warnings(), onp.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            prep = Prepared(case, namespaces)
            before = namespaces["fd"].calls
            prep.call("fd", ())
            prep.inner_fd = namespaces["fd"].calls > before
        except Exception as e:  # noqa: BLE001
            return [dict(base, order=1, cls="n/a",
                         detail="plain NumPy/SciPy cannot run it: %s: %s" % (type(e).__name__, str(e)[:300]))]
        for n in range(1, case.order + 1):
            t0 = time.perf_counter()
            try:
                rec = check(prep, n, use_autograd)
            except Exception as e:  # noqa: BLE001 (the harness itself failed: report it)
                rec = {"order": n, "cls": "crash", "error_type": type(e).__name__,
                       "error": "in the runner: %s" % str(e)[:400], "where": last_frames(e)}
            rec["seconds"] = round(time.perf_counter() - t0, 3)
            records.append(dict(base, **rec))
            if rec["cls"] in ("clear error", "crash", "n/a"):
                break  # higher orders need the lower ones
    return records
