"""A run's results: the tables and lists printed, and the JSON file (``--json``, ``--report``)."""

import collections
import json
import platform
import sys
import time

import numpy as onp

# A case's class is the worst of its orders' classes, in this order.
SEVERITY = ["wrong", "crash", "inconclusive", "clear error", "correct", "n/a", "skipped"]


def case_classes(records):
    """``{case name: class}``: the worst class over the case's orders."""
    out = {}
    for r in records:
        cur = out.get(r["name"])
        if cur is None or SEVERITY.index(r["cls"]) < SEVERITY.index(cur):
            out[r["name"]] = r["cls"]
    return out


def counts(records):
    classes = case_classes(records)
    files = collections.OrderedDict()
    file_of = {r["name"]: r["file"] for r in records}
    for name, cls in classes.items():
        files.setdefault(file_of[name], collections.Counter())[cls] += 1
    return classes, files


def _pct(n, total):
    return "%.1f%%" % (100.0 * n / total) if total else "-"


def report(data, out=sys.stdout, quiet=False, show=None):
    records = data["records"]
    classes, files = counts(records)
    cols = ["correct", "clear error", "wrong", "crash", "inconclusive", "n/a", "skipped"]
    w = max([len(f) for f in files] + [10])
    p = lambda *a: print(*a, file=out)  # noqa: E731
    p("autograd's suite under ad: %s, Python %s, NumPy %s%s" % (
        data.get("when", ""), data.get("python", ""), data.get("numpy", ""),
        (", autograd %s" % data["autograd"]) if data.get("autograd") else ", no autograd reference"))
    p("")
    p("%-*s %6s " % (w, "file", "cases") + " ".join("%12s" % c for c in cols))
    total = collections.Counter()
    for f, c in files.items():
        total.update(c)
        p("%-*s %6d " % (w, f, sum(c.values())) + " ".join("%12d" % c[k] for k in cols))
    p("%-*s %6d " % (w, "total", sum(total.values())) + " ".join("%12d" % total[k] for k in cols))
    applicable = sum(total[k] for k in ("correct", "clear error", "wrong", "crash", "inconclusive"))
    p("%-*s %6s " % (w, "% of run", "") + " ".join(
        "%12s" % (_pct(total[k], applicable) if k not in ("n/a", "skipped") else "") for k in cols))
    p("")
    by_order = collections.defaultdict(collections.Counter)
    for r in records:
        by_order[r["order"]][r["cls"]] += 1
    p("checks by order: " + "; ".join(
        "order %d: %s" % (o, ", ".join("%d %s" % (c[k], k) for k in cols if c[k]))
        for o, c in sorted(by_order.items())))
    if quiet:
        return
    limit = show

    def listing(title, rows, fmt):
        p("")
        p("%s (%d):" % (title, len(rows)))
        for row in rows[:limit] if limit else rows:
            p(fmt(row))
        if limit and len(rows) > limit:
            p("  ... %d more (--json has them all)" % (len(rows) - limit))

    wrong = [r for r in records if r["cls"] == "wrong"]
    listing("WRONG results", wrong, _fmt_wrong)
    crashes = [r for r in records if r["cls"] == "crash"]
    listing("crashes", crashes, lambda r: "  %s @%d [%s]: %s: %s%s" % (
        r["name"], r["order"], r.get("func"), r.get("error_type"), _one_line(r.get("error", "")),
        ("\n      at " + " <- ".join(reversed(r["where"][-2:]))) if r.get("where") else ""))
    inconc = [r for r in records if r["cls"] == "inconclusive"]
    listing("inconclusive (the references disagree)", inconc, _fmt_wrong)
    norules = collections.Counter(r.get("norule") for r in records if r["cls"] == "clear error" and r.get("norule"))
    p("")
    p("NoRuleError, by function (%d checks, %d functions):" % (sum(norules.values()), len(norules)))
    for name, n in norules.most_common(limit or None):
        p("  %4d  %s" % (n, name))
    others = collections.Counter("%s: %s" % (r.get("error_type"), _one_line(r.get("error", ""))[:110])
                                 for r in records if r["cls"] == "clear error" and not r.get("norule"))
    if others:
        p("")
        p("other clear errors (%d):" % sum(others.values()))
        for msg, n in others.most_common(limit or None):
            p("  %4d  %s" % (n, msg))
    na = collections.Counter(r.get("detail", "")[:120] for r in records if r["cls"] == "n/a")
    if na:
        p("")
        p("not applicable (%d):" % sum(na.values()))
        for msg, n in na.most_common():
            p("  %4d  %s" % (n, msg))


def _one_line(s):
    s = s.strip().splitlines()[0] if s.strip() else ""
    return s[:300]


def _fmt_wrong(r):
    s = "  %s @%d [%s] (%s)\n      inputs: %s" % (r["name"], r["order"], r.get("func"), r.get("mode"), r.get("inputs"))
    if r.get("detail"):
        s += "\n      " + r["detail"]
    at = r.get("at")
    if at:
        s += "\n      worst at output %s element %d: ad %s; %s" % (
            "/".join(at["leaf"]) or "-", at["index"], at["ad"], ", ".join("%s %s" % kv for kv in at["refs"].items()))
    if "ad" in r:
        s += "\n      ad: %s\n      refs: %s" % (r["ad"], r.get("refs"))
    if r.get("errors"):
        s += "\n      relative errors: %s; references agreeing: %s" % (
            ", ".join("%s %.3g" % kv for kv in r["errors"].items()), ", ".join(r.get("agreeing_refs", [])) or "none")
    return s


def run_data(records, used_autograd, seconds, patterns):
    """A run as saved with ``--json``: the versions, the date, the time taken and the records."""
    ag_version = None
    if used_autograd:
        try:
            from importlib.metadata import version

            ag_version = version("autograd")
        except Exception:  # noqa: BLE001
            ag_version = "?"
    data = {"when": time.strftime("%Y-%m-%d"), "python": platform.python_version(), "numpy": onp.__version__,
            "autograd": ag_version, "seconds": round(seconds, 1), "patterns": patterns,
            "records": records}
    try:
        import scipy

        data["scipy"] = scipy.__version__
    except ImportError:
        data["scipy"] = None
    return data


def save(data, path):
    with open(path, "w") as fh:
        json.dump(data, fh, indent=1, default=str)


def load(path):
    with open(path) as fh:
        return json.load(fh)


def exit_status(records):
    """0 when no check is wrong or crashes, 1 otherwise."""
    return 0 if not any(r["cls"] in ("wrong", "crash") for r in records) else 1
