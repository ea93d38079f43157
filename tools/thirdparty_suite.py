#!/usr/bin/env python
"""Run third-party test suites natively and under a pycassette context, and compare.

For each package (pure-Python code nobody here wrote) this downloads its pinned sdist from
PyPI into a cache (``~/.cache/pycassette-suites/``, or ``$PYCASSETTE_SUITES_CACHE``), unpacks
it, installs the package and its test dependencies into the running interpreter's
environment, then runs the sdist's tests with pytest twice, in subprocesses: natively, and
with ``--context=NAME`` (pycassette's pytest plugin, ``context/pytest_plugin.py``). It
prints, per package, the number of tests, the passes in each run, the tests that fail only
under the context (id and first line of the error), the failures grouped by signature, and
the time ratio.

    python tools/thirdparty_suite.py --context count
    python tools/thirdparty_suite.py --context empty --packages attrs,toolz --json out.json
    python tools/thirdparty_suite.py --fast          # a small subset, for CI (< 1 minute)

Exit status: 0 when no test fails only under the context, 1 otherwise (or when a run hung
or crashed), 2 for bad arguments or a setup step (download, install) that failed.
"""

import argparse
import collections
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import xml.etree.ElementTree as ET

# name -> how to get and run its suite. ``tests``: paths inside the unpacked sdist;
# ``fast``: the subset --fast runs; ``deps``: test requirements (from the project's own
# test requirements; tools that only lint or type-check are left out); ``env``: variables
# set for both runs.
PACKAGES = {
    "attrs": {
        "version": "25.4.0",
        "deps": ["hypothesis", "pympler", "cloudpickle"],
        "tests": ["tests"],
    },
    "more-itertools": {
        "version": "10.8.0",
        "deps": [],
        "tests": ["tests"],
    },
    "toolz": {
        "version": "1.0.0",
        "deps": [],
        "tests": ["toolz/tests"],
        "fast": ["toolz/tests/test_itertoolz.py", "toolz/tests/test_dicttoolz.py", "toolz/tests/test_recipes.py"],
    },
    "python-dateutil": {
        "version": "2.9.0.post0",
        "deps": ["six", "freezegun", "hypothesis"],
        "tests": ["tests"],
        # Its setup.cfg turns every warning into an error: let it collect under pytest 9
        # (generators given to parametrize) without pytest-cov (its no_cover mark).
        "pytest_args": ["-W", "ignore::pytest.PytestRemovedIn10Warning",
                        "-W", "ignore::pytest.PytestUnknownMarkWarning"],
    },
    "boltons": {
        "version": "26.2.0",
        "deps": [],
        "tests": ["tests"],
    },
    "cachetools": {
        "version": "8.0.2",
        "deps": [],
        "tests": ["tests"],
    },
    "jinja2": {
        "version": "3.1.6",
        "deps": ["trio"],
        "tests": ["tests"],
    },
    "packaging": {
        "version": "26.4",
        "deps": ["hypothesis", "pretend", "tomli_w"],
        "tests": ["tests"],
    },
    "pyparsing": {
        "version": "3.3.3",
        "deps": [],
        # the parser's own tests; the diagram and matplotlib cases need extra packages
        "tests": ["tests/test_simple_unit.py", "tests/test_unit.py", "tests/test_util.py"],
    },
    "click": {
        "version": "8.5.1",
        "deps": [],
        "tests": ["tests"],
    },
    "decorator": {
        "version": "5.3.1",
        "deps": [],
        "tests": ["tests/test.py"],
    },
    "dill": {
        "version": "0.4.1",
        "deps": [],
        "tests": ["dill/tests"],
        # Its tests are scripts that ``python -m dill.tests`` runs one per process: they import
        # each other as top-level modules, and pickle what they find in sys.modules (no output
        # capture, whose files cannot be pickled). Three act on the whole process as they are
        # imported (an import hook, a module-level pickling of the session, a closed stdout).
        "pytest_args": ["-s", "-o", "pythonpath=dill/tests", "--ignore", "dill/tests/test_diff.py",
                        "--ignore", "dill/tests/test_module.py", "--ignore", "dill/tests/test_selected.py"],
    },
    "mpmath": {
        "version": "1.4.1",
        "deps": ["hypothesis"],
        "tests": ["mpmath/tests"],
        "default": False,  # long: about 9 minutes natively
    },
    "wrapt": {
        "version": "2.5.2",
        "deps": [],
        "tests": ["tests/core"],
        # its pure-Python proxies and wrappers, the code a context can see into
        "env": {"WRAPT_DISABLE_EXTENSIONS": "1"},
    },
    # Not run by default (large); parts that need only the standard library.
    "networkx": {
        "version": "3.4.2",
        "deps": [],
        "tests": ["networkx/classes/tests", "networkx/algorithms/shortest_paths/tests",
                  "networkx/algorithms/traversal/tests", "networkx/algorithms/components/tests"],
        "default": False,
    },
}
DEFAULT = [name for name, spec in PACKAGES.items() if spec.get("default", True)]
FAST = ["toolz"]
TOOL_DEPS = ["pytest-timeout"]  # a per-test time limit, so one hung test does not lose a whole run

PYTEST_ARGS = ["-p", "no:cacheprovider", "-q", "-rN", "--tb=no", "-o", "console_output_style=classic",
               "--hypothesis-seed=0"]


class SetupError(Exception):
    """A download or install step failed: reported, exit status 2."""


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def cache_dir():
    return os.environ.get("PYCASSETTE_SUITES_CACHE") or os.path.join(os.path.expanduser("~"), ".cache",
                                                                      "pycassette-suites")


def run_quiet(cmd, what, timeout=900):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise SetupError("%s failed (%s):\n%s" % (what, " ".join(cmd), proc.stdout[-3000:]))
    return proc.stdout


def obtain(name, spec):
    """The unpacked sdist directory of ``name``, downloading it once."""
    version = spec["version"]
    root = cache_dir()
    sdists = os.path.join(root, "sdists")
    srcs = os.path.join(root, "src")
    os.makedirs(sdists, exist_ok=True)
    os.makedirs(srcs, exist_ok=True)
    marker = os.path.join(srcs, "%s-%s.path" % (name, version))
    if os.path.exists(marker):
        with open(marker) as f:
            path = f.read().strip()
        if os.path.isdir(path):
            return path
    stem = re.sub(r"[-_.]+", "[-_.]", name.lower())
    pattern = re.compile(r"^%s-%s\.(tar\.gz|zip)$" % (stem, re.escape(version)), re.I)
    found = [f for f in os.listdir(sdists) if pattern.match(f)]
    if not found:
        log("  downloading the %s %s sdist (builds its metadata: may take a minute)" % (name, version))
        run_quiet([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                   "%s==%s" % (name, version), "-d", sdists], "downloading %s" % name)
        found = [f for f in os.listdir(sdists) if pattern.match(f)]
        if not found:
            raise SetupError("pip download of %s==%s gave no sdist in %s" % (name, version, sdists))
    archive = os.path.join(sdists, found[0])
    tmp = tempfile.mkdtemp(dir=srcs)
    if archive.endswith(".zip"):
        shutil.unpack_archive(archive, tmp)
    else:
        with tarfile.open(archive) as tar:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(tmp, filter="data")
            else:
                tar.extractall(tmp)
    (top,) = os.listdir(tmp)
    dest = os.path.join(srcs, top)
    if os.path.exists(dest):
        shutil.rmtree(dest)
    os.rename(os.path.join(tmp, top), dest)
    os.rmdir(tmp)
    with open(marker, "w") as f:
        f.write(dest)
    return dest


def installed_version(dist):
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def install(name, spec):
    """Install ``name==version`` and its test requirements into this interpreter's environment."""
    wanted = ["%s==%s" % (name, spec["version"])] if installed_version(name) != spec["version"] else []
    wanted += [d for d in spec["deps"] + TOOL_DEPS if installed_version(d) is None]
    if wanted:
        log("  installing %s" % " ".join(wanted))
        run_quiet([sys.executable, "-m", "pip", "install", "-q"] + wanted, "installing %s" % name)


def parse_junit(path):
    """``{test id: (outcome, first line of the error or None)}`` from a junit XML report."""
    results = {}
    root = ET.parse(path).getroot()
    for case in root.iter("testcase"):
        cls, nm = case.get("classname", ""), case.get("name", "")
        tid = "%s::%s" % (cls, nm) if cls else nm
        outcome, message = "passed", None
        for child in case:
            tag = child.tag
            if tag in ("failure", "error"):
                outcome = "failed"
                message = first_line(child.get("message") or child.text or tag)
                break
            if tag == "skipped":
                outcome = "xfailed" if child.get("type") == "pytest.xfail" else "skipped"
        n = 2
        key = tid
        while key in results:  # parametrized ids repeated across files with the same classname
            key = "%s#%d" % (tid, n)
            n += 1
        results[key] = (outcome, message)
    return results


def first_line(text):
    for line in str(text).splitlines():
        line = line.strip()
        if line:
            return line[:300]
    return ""


_ADDR = re.compile(r"0x[0-9a-fA-F]+")


def signature(message):
    """A failure's signature: its first line, with addresses and long numbers blurred."""
    msg = _ADDR.sub("0x?", message or "")
    msg = re.sub(r"\b\d{4,}\b", "N", msg)
    return msg[:200]


def kind(message):
    """A coarser signature: also without the function names and source places in the engine's messages."""
    msg = signature(message)
    msg = re.sub(r"cannot rewrite \S+ \([^)]*\)", "cannot rewrite F (...)", msg)
    msg = re.sub(r"\((/|<)[^)]*line \d+\)", "(...)", msg)
    return msg[:160]


def run_pytest(name, src, paths, ctx, timeout, per_test, workdir, extra=(), env_extra=None):
    label = "native" if ctx is None else "context=%s" % ctx
    xml = os.path.join(workdir, "%s-%s.xml" % (name, "native" if ctx is None else "ctx"))
    logfile = os.path.join(workdir, "%s-%s.log" % (name, "native" if ctx is None else "ctx"))
    cmd = [sys.executable, "-m", "pytest"] + PYTEST_ARGS + list(extra) + ["--junitxml", xml]
    if per_test:
        cmd += ["--timeout", str(per_test)]
    if ctx is not None:
        cmd.append("--context=%s" % ctx)
    cmd += paths
    env = dict(os.environ)
    env.pop("PYTEST_ADDOPTS", None)
    env["PYTHONHASHSEED"] = "0"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(env_extra or {})
    log("  %s: %s" % (label, " ".join(cmd[1:])))
    t0 = time.perf_counter()
    with open(logfile, "w") as out:
        proc = subprocess.Popen(cmd, cwd=src, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            rc = proc.wait(timeout=timeout)
            hung = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            rc, hung = None, True
    wall = time.perf_counter() - t0
    with open(logfile) as f:
        tail = f.read()[-2000:]
    run = {"label": label, "command": cmd, "cwd": src, "returncode": rc, "hung": hung, "wall": wall,
           "results": {}, "test_time": None, "log": logfile, "tail": None}
    if not hung and os.path.exists(xml):
        try:
            run["results"] = parse_junit(xml)
            suite = ET.parse(xml).getroot()
            suite = suite if suite.tag == "testsuite" else suite.find("testsuite")
            run["test_time"] = float(suite.get("time", "nan"))
        except ET.ParseError as exc:
            run["tail"] = "bad junit xml: %s" % exc
    if hung or not run["results"] or rc not in (0, 1):
        run["tail"] = (run["tail"] or "") + tail
    return run


def counts(results):
    c = collections.Counter(outcome for outcome, _ in results.values())
    return {k: c.get(k, 0) for k in ("passed", "failed", "skipped", "xfailed")}


def compare(name, spec, native, under):
    only = {}
    for tid, (outcome, msg) in under["results"].items():
        if outcome == "failed" and native["results"].get(tid, ("missing", None))[0] != "failed":
            only[tid] = msg or ""
    missing = sorted(set(native["results"]) - set(under["results"]))
    groups = {}
    for tid, msg in sorted(only.items()):
        groups.setdefault(kind(msg), {}).setdefault(signature(msg), []).append(tid)
    groups = sorted(groups.items(), key=lambda kv: -sum(map(len, kv[1].values())))
    ratio = wall_ratio = None
    if native["test_time"] and under["test_time"] is not None:
        ratio = under["test_time"] / native["test_time"]
    if native["wall"] and not under["hung"]:
        wall_ratio = under["wall"] / native["wall"]
    return {
        "package": name, "version": spec["version"],
        "tests": len(native["results"]),
        "native": counts(native["results"]), "context": counts(under["results"]),
        "native_wall": native["wall"], "context_wall": under["wall"],
        "native_test_time": native["test_time"], "context_test_time": under["test_time"],
        "ratio": ratio, "wall_ratio": wall_ratio,
        "only_under_context": only,
        "missing_under_context": missing if under["results"] else [],
        "signatures": [{"kind": k, "count": sum(map(len, sigs.values())),
                        "example": min(min(ids) for ids in sigs.values()),
                        "variants": [{"signature": sig, "count": len(ids), "example": ids[0]}
                                     for sig, ids in sorted(sigs.items(), key=lambda kv: -len(kv[1]))]}
                       for k, sigs in groups],
        "native_crashed": native["hung"] or native["returncode"] not in (0, 1),
        "context_crashed": under["hung"] or under["returncode"] not in (0, 1),
        "native_hung": native["hung"], "context_hung": under["hung"],
        "native_rc": native["returncode"], "context_rc": under["returncode"],
        "native_tail": native["tail"], "context_tail": under["tail"],
        "logs": [native["log"], under["log"]],
    }


def fmt_ratio(r):
    return "-" if r is None else "x%.1f" % r


def report(row, ctx, show):
    n, c = row["native"], row["context"]
    print("%s %s: %d tests" % (row["package"], row["version"], row["tests"]))
    print("  native:          %5d passed, %4d failed, %4d skipped/xfailed  (%.1f s wall, %.1f s in tests)%s"
          % (n["passed"], n["failed"], n["skipped"] + n["xfailed"], row["native_wall"],
             row["native_test_time"] or 0.0, "  HUNG" if row["native_hung"] else ""))
    print("  --context=%-6s %5d passed, %4d failed, %4d skipped/xfailed  (%.1f s wall, %.1f s in tests)%s"
          % (ctx, c["passed"], c["failed"], c["skipped"] + c["xfailed"], row["context_wall"],
             row["context_test_time"] or 0.0, "  HUNG" if row["context_hung"] else ""))
    print("  time ratio (context/native): %s in tests, %s wall" % (fmt_ratio(row["ratio"]), fmt_ratio(row["wall_ratio"])))
    only = row["only_under_context"]
    print("  failing only under the context: %d" % len(only))
    for tid in list(sorted(only))[:show]:
        print("    %s\n        %s" % (tid, only[tid]))
    if len(only) > show:
        print("    ... %d more (see --json)" % (len(only) - show))
    if row["signatures"]:
        print("  signatures (only-under-context failures, grouped):")
        for s in row["signatures"]:
            print("    %5d  %s\n           e.g. %s" % (s["count"], s["kind"], s["example"]))
            if len(s["variants"]) > 1:
                for v in s["variants"][:6]:
                    print("           %5d  %s" % (v["count"], v["signature"]))
                if len(s["variants"]) > 6:
                    print("           ... %d more variants" % (len(s["variants"]) - 6))
    for which, label in (("native", "native"), ("context", "context")):
        if row["%s_crashed" % which]:
            print("  the %s run %s" % (label, "HUNG and was killed" if row["%s_hung" % which]
                                       else "ended with exit status %s" % row["%s_rc" % which]))
    if row["missing_under_context"]:
        print("  not reported under the context: %d (e.g. %s)" % (len(row["missing_under_context"]),
                                                              row["missing_under_context"][0]))
    for which in ("native", "context"):
        if row["%s_tail" % which]:
            print("  %s run output (tail):" % which)
            for line in row["%s_tail" % which].splitlines()[-15:]:
                print("    | " + line)
    print(flush=True)


def engine_revision():
    """The pycassette checkout's commit (and whether it has local changes), for the record."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        head = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", here, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return "(unknown revision)"
    return (head or "(unknown revision)") + (" + local changes" if dirty else "")


def build_parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="Packages: %s (default: %s)." % (", ".join("%s==%s" % (k, v["version"])
                                                                                  for k, v in PACKAGES.items()),
                                                                        ", ".join(DEFAULT)))
    p.add_argument("--context", default="count", metavar="NAME",
                   help="the context for pytest --context=NAME: empty, count, trace, print, tagging or "
                   "module:Class (default: count)")
    p.add_argument("--packages", metavar="A,B", help="comma-separated package names (default: %s)" % ",".join(DEFAULT))
    p.add_argument("--fast", action="store_true", help="a small preset for CI: %s, a subset of its tests" % ",".join(FAST))
    p.add_argument("--json", metavar="FILE", help="also write the full results to FILE")
    p.add_argument("--timeout", type=float, default=1800, metavar="S",
                   help="per package and run: kill pytest after S seconds and report it hung (default 1800)")
    p.add_argument("--test-timeout", type=float, default=300, metavar="S",
                   help="per test (pytest-timeout): fail a test after S seconds, 0 for none (default 300)")
    p.add_argument("--show", type=int, default=15, metavar="N", help="list at most N only-under-context failures per package")
    p.add_argument("--no-install", action="store_true", help="do not pip install anything (it must be there already)")
    return p


def main(argv=None):
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return 0 if exc.code == 0 else 2
    if args.fast and args.packages:
        parser.print_usage(sys.stderr)
        log("thirdparty_suite: --fast and --packages cannot be combined")
        return 2
    names = FAST if args.fast else (args.packages.split(",") if args.packages else DEFAULT)
    names = [n.strip() for n in names if n.strip()]
    unknown = [n for n in names if n not in PACKAGES]
    if unknown or not names:
        log("thirdparty_suite: unknown package %s; choose from %s" % (", ".join(unknown) or "(none)", ", ".join(PACKAGES)))
        return 2
    from importlib import metadata

    if not any(ep.name == "pycassette" for ep in metadata.entry_points(group="pytest11")):
        log("thirdparty_suite: pycassette's pytest plugin is not registered in this environment; "
            "run pip install -e . first")
        return 2
    # Check the context name once, cheaply, before any download.
    with tempfile.TemporaryDirectory() as empty:
        check = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--co", "-q",
                                "--context=%s" % args.context, empty], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, cwd=empty)
    if check.returncode not in (0, 5):  # 5: no tests collected, as expected
        errors = [line for line in check.stdout.splitlines() if line.startswith("ERROR:")]
        log("thirdparty_suite: " + (errors[0][6:].strip() if errors else first_line(check.stdout)))
        return 2

    rows = []
    workdir = tempfile.mkdtemp(prefix="pycassette-suites-")
    status = 0
    print("python %s, pytest %s, --context=%s, pycassette %s, logs in %s\n"
          % (sys.version.split()[0], installed_version("pytest"), args.context, engine_revision(), workdir), flush=True)
    for name in names:
        spec = PACKAGES[name]
        log("%s %s" % (name, spec["version"]))
        try:
            src = obtain(name, spec)
            if not args.no_install:
                install(name, spec)
        except (SetupError, subprocess.TimeoutExpired) as exc:
            log("thirdparty_suite: %s" % exc)
            return 2
        paths = spec.get("fast", spec["tests"]) if args.fast else spec["tests"]
        extra = spec.get("pytest_args", ())
        env = spec.get("env")
        native = run_pytest(name, src, paths, None, args.timeout, args.test_timeout, workdir, extra, env)
        under = run_pytest(name, src, paths, args.context, args.timeout, args.test_timeout, workdir, extra, env)
        row = compare(name, spec, native, under)
        report(row, args.context, args.show)
        rows.append(row)
        if row["only_under_context"] or row["context_crashed"] or row["native_crashed"]:
            status = 1
    if len(rows) > 1:
        print("%-16s %6s %7s %7s %6s %8s %8s" % ("package", "tests", "native", "ctx", "only", "ratio", "wall"))
        for r in rows:
            print("%-16s %6d %7d %7d %6d %8s %8s%s" % (r["package"], r["tests"], r["native"]["passed"],
                                                       r["context"]["passed"], len(r["only_under_context"]),
                                                       fmt_ratio(r["ratio"]), fmt_ratio(r["wall_ratio"]),
                                                       "  (crashed/hung)" if r["context_crashed"] else ""))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"python": sys.version, "context": args.context, "fast": args.fast, "packages": rows}, f, indent=1)
    return status


if __name__ == "__main__":
    sys.exit(main())
