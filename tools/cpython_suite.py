#!/usr/bin/env python
"""Run modules of CPython's own regression tests natively and under a context, and compare.

For each module (``test.test_json``, ...) of the running interpreter's ``test`` package
the runner starts two fresh child processes: one runs the module's tests natively, the
other runs each test method's body under a fresh context instance
(``context.overdub(ctx, bound_test_method)``; ``setUp``/``tearDown`` and class or module
fixtures stay native). Each child writes one JSON line per test event to a file, so a
child that crashes or hangs loses nothing already run: the parent records the test that
was running as ``crash`` or ``hang`` and starts the child again on the tests not yet run.

Usage::

    python tools/cpython_suite.py --context empty              # the default module list
    python tools/cpython_suite.py --fast --context count       # a subset for CI
    python tools/cpython_suite.py --wide -j 2                  # 149 modules
    python tools/cpython_suite.py --modules json heapq --context mypkg.mymod:MyCtx --json out.json

Exit status: 0 when no test fails only under the context, 1 otherwise, 2 for bad arguments.
See docs/real_suites.md.
"""

import argparse
import collections
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

PROG = "cpython_suite.py"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

DEFAULT_MODULES = [
    "json", "difflib", "textwrap", "fractions", "statistics", "tomllib", "argparse", "enum",
    "dataclasses", "functools", "itertools", "heapq", "bisect", "string", "re", "csv", "ast",
    "email", "pprint", "collections", "contextlib", "generators", "coroutines", "exceptions",
    "with", "scope", "class", "descr", "inspect", "traceback", "warnings", "typing", "operator",
    "copy", "asyncio.test_tasks",
]
FAST_MODULES = ["json", "textwrap", "bisect", "heapq", "operator", "with", "scope"]
# ``--wide``: the default list and these, the language, the builtins and types, the
# pure-Python libraries, and the tools that watch a program (tracing, profiling, debugging)
WIDE_MODULES = DEFAULT_MODULES + [
    "raise", "isinstance", "richcmp", "bool", "augassign", "unpack", "unpack_ex", "listcomps",
    "setcomps", "dictcomps", "genexps", "yield_from", "iter", "builtin", "types", "opcodes",
    "funcattrs", "keywordonlyarg", "positional_only_arg", "named_expressions", "patma",
    "exception_group", "except_star", "context", "weakset", "weakref", "property", "super", "abc",
    "userdict", "userlist", "userstring", "ordered_dict", "defaultdict", "deque", "set", "dict",
    "list", "sort", "tuple", "range", "slice", "enumerate", "string_literals", "fstring", "grammar",
    "format", "reprlib", "keyword", "graphlib", "sched", "shlex", "urlparse", "calendar", "random",
    "configparser", "getopt", "optparse", "fnmatch", "glob", "base64", "html", "htmlparser",
    "plistlib", "ipaddress", "colorsys", "uuid", "gettext", "tokenize", "pyclbr", "symtable",
    "decimal", "datetime", "pickle", "copyreg", "contextlib_async", "sys_setprofile",
    "sys_settrace", "profile", "cprofile", "pstats", "trace", "timeit", "bdb", "pdb", "unittest",
    "doctest", "logging", "zipfile", "tarfile", "pathlib", "shutil", "sqlite3", "xml_etree",
    "struct", "array", "memoryview", "math", "cmath", "int", "float", "complex", "bytes", "codecs",
    "zlib", "gzip", "lzma", "bz2", "queue", "threading_local", "hashlib", "hmac", "secrets",
    "compile",
]
CONTEXTS = ("empty", "count", "trace", "tagging")

GOOD = ("pass", "xfail")                       # the test did what it should
BAD = ("fail", "error", "xpass", "crash", "hang")  # it did not
OUTCOMES = GOOD + BAD + ("skip", "notrun")

MAX_CRASH_RESTARTS = 8
MAX_HANG_RESTARTS = 2


# =============================================================== the child process


def _first_line(text, limit=300):
    text = str(text).strip()
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= limit else line[:limit - 3] + "..."


def _type_name(t):
    module = getattr(t, "__module__", "builtins")
    name = getattr(t, "__qualname__", getattr(t, "__name__", repr(t)))
    return name if module in ("builtins", None) else "%s.%s" % (module, name)


def _innermost(tb):
    """``file:line in function`` of the innermost frame of a traceback outside unittest, or ''."""
    last = None
    while tb is not None:
        if "__unittest" not in tb.tb_frame.f_globals or last is None:
            last = tb
        tb = tb.tb_next
    if last is None:
        return ""
    code = last.tb_frame.f_code
    return "%s:%d in %s" % (code.co_filename, last.tb_lineno, code.co_name)


def _context_factory(spec):
    """A function ``f -> fresh context instance`` for the context named by ``spec``."""
    import tempfile

    from context.ready.named import context_factory

    # trace streams to a file, as a traced program does: an in-memory tree keeps every
    # argument and result alive by design, which tests that check for leaks would see
    path = os.path.join(tempfile.mkdtemp(prefix="pycassette-trace-"), "trace.json") if spec == "trace" else None
    return context_factory(spec, trace_file=path)


def _wrap_test(test, factory, overdub, contexts):
    """Make ``test``'s test method run under a fresh context.

    A plain test method runs under it through the test case's ``_callTestMethod`` (what
    unittest's ``run`` calls with the bound test method): an instance attribute
    ``functools.partial(overdub, ctx, <the class's _callTestMethod, bound>)``. No frame of the
    harness sits between unittest's own frames and the test (the engine hides its own), so
    stack walks (``warnings.warn(stacklevel=...)``, ``sys._getframe``) see what they see
    natively, and the test method stays what ``getattr(test, name)`` gives (a test that reads
    its own ``__code__`` finds it). A coroutine test method (``IsolatedAsyncioTestCase``)
    needs a coroutine function: the context as a decorator gives one that runs each step of
    the test's coroutine under the context, in one run (see ``context.stepping``); it replaces
    the test method (an instance attribute).
    ``contexts`` maps the test's id to its context, for the counts read after the test.
    """
    import functools
    import inspect

    name = getattr(test, "_testMethodName", None)
    if not name:
        return
    try:
        bound = getattr(test, name)
    except AttributeError:
        return
    ctx = factory(bound)
    contexts[test.id()] = ctx

    if inspect.iscoroutinefunction(bound):
        func = getattr(bound, "__func__", bound)
        under_context = ctx(bound)
        # skip / expectedFailure marks live in the function's __dict__
        under_context.__dict__.update(getattr(func, "__dict__", {}))
        setattr(test, name, under_context)
    else:
        call_test_method = type(test)._callTestMethod.__get__(test)
        test._callTestMethod = functools.partial(overdub, ctx, call_test_method)


def _iter_tests(suite):
    import unittest

    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from _iter_tests(t)
        else:
            yield t


def _filter_suite(suite, keep):
    """Drop the test cases ``keep(test)`` rejects (as libregrtest's ``_filter_suite``)."""
    import unittest

    tests = getattr(suite, "_tests", None)
    if tests is None:
        return
    new = []
    for t in tests:
        if isinstance(t, unittest.TestSuite):
            _filter_suite(t, keep)
            new.append(t)
        elif keep(t):
            new.append(t)
    suite._tests = new


def _make_result_class(events, contexts, counters):
    import unittest

    class Recording(unittest.TestResult):
        """Writes a JSON line per test start and outcome; a failed subtest fails its test."""

        def __init__(self):
            super().__init__()
            self._limit = sys.getrecursionlimit()
            self._started = {}
            self._bad = set()

        def _write(self, record):
            events.write(json.dumps(record) + "\n")
            events.flush()

        def _restore_recursion_limit(self):
            # A test that lowers the recursion limit and fails to restore it (under a
            # context its own restoring call may hit the limit) would break the recording
            # of its outcome and every later test: put it back, and say so.
            limit = sys.getrecursionlimit()
            if limit < self._limit:
                sys.setrecursionlimit(self._limit)
                return "recursion limit left at %d (restored to %d)" % (limit, self._limit)
            return None

        def _outcome(self, test, outcome, err=None, detail=None, sub=None):
            note = self._restore_recursion_limit()
            tid = test.id()
            record = {"event": "end", "id": tid, "outcome": outcome}
            if note:
                record["note"] = note
            if sub is not None:
                record["subtest"] = sub
            t0 = self._started.pop(tid, None)
            if t0 is not None:
                record["time"] = time.perf_counter() - t0
            if err is not None:
                etype, value, tb = err
                record["etype"] = _type_name(etype)
                try:
                    record["msg"] = _first_line(str(value))
                except Exception as exc:
                    record["msg"] = "<str() failed: %s>" % _type_name(type(exc))
                record["where"] = _innermost(tb)
                try:
                    text = "".join(traceback.format_exception(etype, value, tb))
                except Exception as exc:  # a broken __str__ and the like
                    text = "<traceback unavailable: %r>" % (exc,)
                record["tb"] = text[-6000:]
            if detail is not None:
                record["msg"] = _first_line(detail)
            self._write(record)

        def startTest(self, test):
            super().startTest(test)
            tid = test.id()
            self._started[tid] = time.perf_counter()
            self._write({"event": "start", "id": tid})

        # The add* methods record only what the JSON needs: unittest's own formatting of
        # the traceback (TestResult.addError) can fail on a very deep one and end the run.
        def addSuccess(self, test):
            if test.id() not in self._bad:
                self._outcome(test, "pass")

        def addFailure(self, test, err):
            self.failures.append((test, ""))
            self._outcome(test, "fail", err)

        def addError(self, test, err):
            self.errors.append((test, ""))
            self._outcome(test, "error", err)

        def addSkip(self, test, reason):
            if getattr(test, "test_case", None) is not None:
                return  # a skipped subtest: its test still runs
            self._outcome(test, "skip", detail=reason)

        def addExpectedFailure(self, test, err):
            self._outcome(test, "xfail")

        def addUnexpectedSuccess(self, test):
            self._outcome(test, "xpass", detail="unexpected success")

        def addSubTest(self, test, subtest, err):
            if err is None or issubclass(err[0], unittest.SkipTest):
                return
            tid = test.id()
            if tid in self._bad:
                return
            self._bad.add(tid)
            kind = "fail" if issubclass(err[0], test.failureException) else "error"
            self._outcome(test, kind, err, sub=subtest._subDescription())

        def stopTest(self, test):
            self._restore_recursion_limit()
            super().stopTest(test)
            self._started.pop(test.id(), None)
            ctx = contexts.pop(test.id(), None)
            total = getattr(ctx, "total", None)  # CountCtx's count of calls
            if isinstance(total, int):
                counters["calls"] += total

    return Recording


def child_main(spec_path):
    """Run one module (natively or under the context) as the spec file says."""
    with open(spec_path) as fh:
        spec = json.load(fh)
    out_path = spec["out"]
    events = open(spec["events"], "a", buffering=1)

    def finish(record):
        with open(out_path + ".tmp", "w") as fh:
            json.dump(record, fh)
        os.replace(out_path + ".tmp", out_path)

    import faulthandler

    faulthandler.enable(all_threads=True)
    if hasattr(signal, "SIGUSR1"):
        faulthandler.register(signal.SIGUSR1, all_threads=True, chain=False)

    # sys.path: no tools/ entry; the extra entries asked for first
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    for p in reversed(spec["paths"]):
        sys.path.insert(0, p)
    if ROOT not in sys.path:
        sys.path.append(ROOT)

    # The same engine import natively and under the context, so both runs start alike.
    import context

    import unittest

    try:
        from test import support
    except ImportError:
        support = None
    if support is not None:
        # libregrtest's defaults: no -u resources, not verbose
        support.use_resources = list(spec["use"])
        support.verbose = 0
        support.record_original_stdout(sys.stdout)

    factory = None
    if spec["mode"] == "ctx":
        factory = _context_factory(spec["context"])

    import importlib

    module_name = None
    load_error = None
    for candidate in spec["candidates"]:
        try:
            importlib.import_module(candidate)
        except ModuleNotFoundError as exc:
            if exc.name is not None and (candidate == exc.name or candidate.startswith(exc.name + ".")):
                continue
            load_error = exc
            module_name = candidate
            break
        except unittest.SkipTest as exc:
            finish({"status": "skipped", "module": candidate, "reason": _first_line(str(exc))})
            return 0
        except BaseException as exc:  # noqa: BLE001 - report any import failure
            load_error = exc
            module_name = candidate
            break
        else:
            module_name = candidate
            break
    if module_name is None:
        finish({"status": "missing", "module": spec["candidates"][0]})
        return 0
    if load_error is not None:
        finish({"status": "load_error", "module": module_name,
                "error": "%s: %s" % (_type_name(type(load_error)), _first_line(str(load_error))),
                "tb": "".join(traceback.format_exception(type(load_error), load_error,
                                                          load_error.__traceback__))[-6000:]})
        return 0

    loader = unittest.TestLoader()
    try:
        suite = loader.loadTestsFromName(module_name)
    except unittest.SkipTest as exc:
        finish({"status": "skipped", "module": module_name, "reason": _first_line(str(exc))})
        return 0

    exclude = set(spec["exclude"])
    match = spec["match"]
    if exclude or match:
        import fnmatch

        def keep(t):
            tid = t.id()
            if tid in exclude:
                return False
            if match and not any(fnmatch.fnmatchcase(tid, "*" + m + "*") for m in match):
                return False
            return True

        _filter_suite(suite, keep)

    counters = collections.Counter()
    contexts = {}
    if factory is not None:
        for t in _iter_tests(suite):
            _wrap_test(t, factory, context.overdub, contexts)

    result = _make_result_class(events, contexts, counters)()
    # regrtest runs tests in a fresh temporary working directory
    os.chdir(spec["cwd"])
    t0 = time.perf_counter()
    suite.run(result)
    elapsed = time.perf_counter() - t0
    events.close()
    finish({"status": "done", "module": module_name, "suite_time": elapsed,
            "loader_errors": [_first_line(e, 2000) for e in loader.errors],
            "ctx_calls": counters["calls"] if factory is not None else None})
    if support is not None:
        try:
            support.reap_children()
        except Exception:
            pass
    return 0


# =============================================================== the parent process


class UsageError(Exception):
    pass


def candidates_for(name):
    """Module names to try for a user's NAME: test.test_NAME first, then NAME itself."""
    if name.startswith("test.") or name == "test":
        return [name]
    if name.startswith("test_"):
        return ["test." + name, name]
    return ["test.test_" + name, name]


def _read_events(path):
    starts, ends = [], {}
    if not os.path.exists(path):
        return starts, ends
    with open(path) as fh:
        for line in fh:
            try:
                record = json.loads(line)
            except ValueError:
                continue  # a line cut short by the crash
            if record.get("event") == "start":
                starts.append(record["id"])
            elif record.get("event") == "end":
                tid = record["id"]
                previous = ends.get(tid)
                # a failed subtest, then the test's own outcome: keep the worst
                if previous is None or previous["outcome"] in GOOD:
                    ends[tid] = record
    return starts, ends


def _tail(path, lines=40):
    try:
        with open(path, errors="replace") as fh:
            return "".join(collections.deque(fh, lines))
    except OSError:
        return ""


def _fatal_summary(stderr_tail):
    """The faulthandler lines that say what happened and where: 'Fatal Python error: ...' and the top frame."""
    head, frame = "", ""
    lines = stderr_tail.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Fatal Python error") and not head:
            head = line.strip()
        if ("most recent call first" in line) and not frame:
            for nxt in lines[i + 1:]:
                if nxt.strip().startswith("File "):
                    frame = nxt.strip()
                    break
    return head, frame


def run_module_once(opts, name, mode, workdir, exclude, deadline_timeout):
    """One child process; returns (returncode or 'timeout', final record or None, paths)."""
    tag = "%s.%s.%d" % (name.replace("/", "_"), mode, len(exclude))
    spec_path = os.path.join(workdir, tag + ".spec.json")
    out_path = os.path.join(workdir, tag + ".out.json")
    events_path = os.path.join(workdir, "%s.%s.events.jsonl" % (name.replace("/", "_"), mode))
    stderr_path = os.path.join(workdir, tag + ".stderr.txt")
    stdout_path = os.path.join(workdir, tag + ".stdout.txt")
    cwd = tempfile.mkdtemp(prefix="cwd.", dir=workdir)
    spec = {
        "mode": mode, "context": opts.context, "candidates": candidates_for(name),
        "out": out_path, "events": events_path, "paths": opts.paths, "use": opts.use,
        "exclude": sorted(exclude), "match": opts.match, "cwd": cwd,
    }
    with open(spec_path, "w") as fh:
        json.dump(spec, fh)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(opts.paths + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []) + [ROOT])
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child", spec_path],
                                stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env,
                                cwd=cwd, start_new_session=True)
        _RUNNING.add(proc)
        try:
            rc = proc.wait(timeout=deadline_timeout)
        except subprocess.TimeoutExpired:
            try:
                os.kill(proc.pid, signal.SIGUSR1)  # faulthandler dumps every thread's stack
                proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                pass
            _kill(proc)
            rc = "timeout"
        finally:
            _RUNNING.discard(proc)
    record = None
    if os.path.exists(out_path):
        with open(out_path) as fh:
            record = json.load(fh)
    return rc, record, events_path, stderr_path


_RUNNING = set()


def _kill(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        try:
            proc.kill()
        except OSError:
            pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def run_module(opts, name, mode, workdir):
    """Run one module in one mode to the end, restarting after crashes and hangs."""
    exclude = set()
    outcomes = {}
    suite_time = 0.0
    wall = 0.0
    incidents = []
    final = None
    crashes = hangs = 0
    ctx_calls = 0
    loader_errors = []
    while True:
        t0 = time.perf_counter()
        rc, record, events_path, stderr_path = run_module_once(opts, name, mode, workdir, exclude, opts.timeout)
        wall += time.perf_counter() - t0
        starts, ends = _read_events(events_path)
        for tid, rec in ends.items():
            outcomes[tid] = rec
        if record is not None and rc != 0 and record.get("status") == "done":
            # every test ran and the results are written, but the process did not end well
            # (a thread a failed test left waiting, say): keep the results, report the exit
            tail = _tail(stderr_path)
            head, frame = _fatal_summary(tail)
            how = ("did not exit within %ss of the start after its tests finished" % opts.timeout
                   if rc == "timeout" else "ended with status %s after its tests finished" % rc)
            incidents.append({"kind": "exit", "test": None, "how": how, "fatal": head, "frame": frame,
                              "stderr_tail": tail})
            rc = 0
        if record is not None and rc == 0:
            final = record
            if record.get("status") == "done":
                suite_time += record["suite_time"]
                ctx_calls += record.get("ctx_calls") or 0
                loader_errors.extend(record.get("loader_errors") or [])
            break
        # crash or hang: the test started last without an outcome is the culprit
        running = [tid for tid in starts if tid not in ends and tid not in exclude]
        culprit = running[-1] if running else None
        tail = _tail(stderr_path)
        head, frame = _fatal_summary(tail)
        kind = "hang" if rc == "timeout" else "crash"
        if rc == "timeout":
            how = "no result after %ss (timeout)" % opts.timeout
        elif isinstance(rc, int) and rc < 0:
            try:
                how = "killed by %s" % signal.Signals(-rc).name
            except ValueError:
                how = "killed by signal %d" % -rc
        else:
            how = "exited with status %s before finishing" % rc
        msg = head or how
        if head and how not in head:
            msg = "%s (%s)" % (head, how)
        incidents.append({"kind": kind, "test": culprit, "how": how, "fatal": head, "frame": frame,
                          "stderr_tail": tail})
        if culprit is None:
            final = {"status": kind, "module": candidates_for(name)[0], "how": how}
            break
        outcomes[culprit] = {"event": "end", "id": culprit, "outcome": kind, "etype": kind.upper(),
                             "msg": msg, "where": frame, "tb": tail[-6000:]}
        exclude.update(ends)
        exclude.add(culprit)
        if kind == "crash":
            crashes += 1
        else:
            hangs += 1
        if crashes > MAX_CRASH_RESTARTS or hangs > MAX_HANG_RESTARTS:
            final = {"status": "gave_up", "module": candidates_for(name)[0],
                     "how": "%d crashes, %d hangs: the remaining tests were not run" % (crashes, hangs)}
            break
    for rec in outcomes.values():
        rec.pop("event", None)
    return {"status": final.get("status"), "module": final.get("module"), "final": final,
            "outcomes": outcomes, "suite_time": suite_time, "wall_time": wall,
            "incidents": incidents, "ctx_calls": ctx_calls if mode == "ctx" else None,
            "loader_errors": loader_errors}


def compare(name, native, ctx):
    """The per-module summary of a native and a context run."""
    ids = sorted(set(native["outcomes"]) | set(ctx["outcomes"]))
    n_out = {t: native["outcomes"].get(t, {}).get("outcome", "notrun") for t in ids}
    c_out = {t: ctx["outcomes"].get(t, {}).get("outcome", "notrun") for t in ids}
    only_ctx = []
    for t in ids:
        if n_out[t] in GOOD and c_out[t] in BAD:
            rec = ctx["outcomes"][t]
            only_ctx.append({"id": t, "outcome": c_out[t], "etype": rec.get("etype", ""),
                             "msg": rec.get("msg", ""), "where": rec.get("where", ""),
                             "subtest": rec.get("subtest"), "tb": rec.get("tb", "")})
    skipped_only_ctx = [t for t in ids if n_out[t] in GOOD and c_out[t] == "skip"]
    notrun_ctx = [t for t in ids if n_out[t] in GOOD and c_out[t] == "notrun"]
    fixed_ctx = [t for t in ids if n_out[t] in BAD and c_out[t] in GOOD]
    ratio = ctx["suite_time"] / native["suite_time"] if native["suite_time"] > 0 and ctx["suite_time"] > 0 else None
    return {
        "module": native.get("module") or ctx.get("module") or name,
        "name": name,
        "status": {"native": native["status"], "ctx": ctx["status"]},
        "tests": len(ids),
        "native": dict(collections.Counter(n_out.values())),
        "ctx": dict(collections.Counter(c_out.values())),
        "native_ok": sum(1 for t in ids if n_out[t] in GOOD),
        "ctx_ok": sum(1 for t in ids if c_out[t] in GOOD),
        "native_bad": sum(1 for t in ids if n_out[t] in BAD),
        "only_ctx": only_ctx,
        "skipped_only_ctx": skipped_only_ctx,
        "notrun_ctx": notrun_ctx,
        "ok_only_ctx": fixed_ctx,
        "native_time": native["suite_time"],
        "ctx_time": ctx["suite_time"],
        "ratio": ratio,
        "ctx_calls": ctx["ctx_calls"],
        "incidents": {"native": native["incidents"], "ctx": ctx["incidents"]},
        "final": {"native": native["final"], "ctx": ctx["final"]},
        "loader_errors": {"native": native["loader_errors"], "ctx": ctx["loader_errors"]},
        "per_test": {t: {"native": n_out[t], "ctx": c_out[t],
                         "native_time": native["outcomes"].get(t, {}).get("time"),
                         "ctx_time": ctx["outcomes"].get(t, {}).get("time")} for t in ids},
    }


_ADDR = re.compile(r"0x[0-9a-fA-F]+")
_QUOTED_NUM = re.compile(r"\b\d+(\.\d+)?\b")


def signature(failure):
    """What groups failures with one cause: the error type and its message, addresses and numbers masked."""
    msg = _ADDR.sub("0x…", failure["msg"])
    msg = _QUOTED_NUM.sub("N", msg)
    if len(msg) > 160:
        msg = msg[:157] + "..."
    return "%s: %s" % (failure["etype"] or failure["outcome"], msg)


def format_module(row, show):
    lines = []
    st = row["status"]
    if st["native"] == "missing":
        return ["%s: not in this interpreter (Python %s)" % (row["module"], sys.version.split()[0])]
    if st["native"] == "skipped":
        return ["%s: skipped at import -- %s" % (row["module"], row["final"]["native"].get("reason", ""))]
    if st["native"] == "load_error" or st["ctx"] == "load_error":
        err = row["final"]["native"].get("error") or row["final"]["ctx"].get("error")
        return ["%s: could not be imported -- %s" % (row["module"], err)]
    ratio = "%.2fx" % row["ratio"] if row["ratio"] else "n/a"
    skip_n = row["native"].get("skip", 0)
    lines.append("%s: %d tests, native ok %d, ctx ok %d, skipped %d, only under ctx: %d failing; "
                 "time native %.2fs, ctx %.2fs (%s)"
                 % (row["module"], row["tests"], row["native_ok"], row["ctx_ok"], skip_n,
                    len(row["only_ctx"]), row["native_time"], row["ctx_time"], ratio))
    for mode in ("native", "ctx"):
        if st[mode] not in ("done",):
            lines.append("  %s run: %s -- %s" % (mode, st[mode], row["final"][mode].get("how", "")))
        for inc in row["incidents"][mode]:
            lines.append("  %s run: %s%s: %s%s" % (mode, inc["kind"], (" in " + inc["test"]) if inc["test"] else "",
                                                   inc["fatal"] or inc["how"],
                                                     (" at " + inc["frame"]) if inc["frame"] else ""))
        for e in row["loader_errors"][mode]:
            lines.append("  %s run: loader error: %s" % (mode, e))
    if row["native_bad"]:
        lines.append("  (%d tests fail natively too; not counted)" % row["native_bad"])
    for f in row["only_ctx"][:show]:
        sub = (" " + f["subtest"]) if f.get("subtest") else ""
        lines.append("  %-5s %s%s: %s: %s" % (f["outcome"].upper(), f["id"], sub, f["etype"], f["msg"]))
    if len(row["only_ctx"]) > show:
        lines.append("  ... and %d more (see --json)" % (len(row["only_ctx"]) - show))
    if row["skipped_only_ctx"]:
        lines.append("  %d tests skip only under ctx, e.g. %s" % (len(row["skipped_only_ctx"]), row["skipped_only_ctx"][0]))
    if row["notrun_ctx"]:
        lines.append("  %d tests not run under ctx (gave up after crashes/hangs)" % len(row["notrun_ctx"]))
    if row["ok_only_ctx"]:
        lines.append("  %d tests fail natively but pass under ctx, e.g. %s" % (len(row["ok_only_ctx"]), row["ok_only_ctx"][0]))
    return lines


def format_table(rows):
    out = ["", "%-34s %6s %7s %7s %8s %8s %8s %7s" % ("module", "tests", "nat ok", "ctx ok", "ctx-only",
                                                    "native s", "ctx s", "ratio")]
    tot = collections.Counter()
    for r in rows:
        if r["status"]["native"] in ("missing", "skipped", "load_error") or r["status"]["ctx"] == "load_error":
            out.append("%-34s %s" % (r["module"], r["status"]["native"]))
            continue
        out.append("%-34s %6d %7d %7d %8d %8.2f %8.2f %7s" % (
            r["module"], r["tests"], r["native_ok"], r["ctx_ok"], len(r["only_ctx"]), r["native_time"],
            r["ctx_time"], ("%.2fx" % r["ratio"]) if r["ratio"] else "n/a"))
        tot.update(tests=r["tests"], nok=r["native_ok"], cok=r["ctx_ok"], only=len(r["only_ctx"]))
        tot["nt"] += r["native_time"]
        tot["ct"] += r["ctx_time"]
    out.append("%-34s %6d %7d %7d %8d %8.2f %8.2f %7s" % (
        "TOTAL", tot["tests"], tot["nok"], tot["cok"], tot["only"], tot["nt"], tot["ct"],
        ("%.2fx" % (tot["ct"] / tot["nt"])) if tot["nt"] else "n/a"))
    return out


def format_signatures(rows):
    groups = collections.OrderedDict()
    for r in rows:
        for f in r["only_ctx"]:
            groups.setdefault(signature(f), []).append(f)
    if not groups:
        return []
    out = ["", "failure signatures (only under the context), most frequent first:"]
    for sig, fs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        out.append("  %4d  %s" % (len(fs), sig))
        out.append("        e.g. %s%s" % (fs[0]["id"], ("  [%s]" % fs[0]["where"]) if fs[0]["where"] else ""))
    return out


def build_parser():
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Run modules of CPython's regression tests natively and with each test method's body under a "
                    "context, in fresh child processes, and report the tests that fail only under the context.")
    p.add_argument("--context", default="empty",
                   help="empty, count, trace, tagging, or module:Class (a context.Context subclass made with no "
                        "arguments); default: empty")
    p.add_argument("--modules", nargs="+", metavar="NAME",
                   help="test modules: json (= test.test_json), asyncio.test_tasks, test.test_x, or a module on "
                        "--path, or a path to a .py file; default: a list of %d modules" % len(DEFAULT_MODULES))
    p.add_argument("--fast", action="store_true", help="a small subset for CI: %s" % " ".join(FAST_MODULES))
    p.add_argument("--wide", action="store_true",
                   help="the default list and %d more modules (see WIDE_MODULES)" % (len(WIDE_MODULES) - len(DEFAULT_MODULES)))
    p.add_argument("--path", dest="paths", action="append", default=[], metavar="DIR",
                   help="prepend DIR to the children's sys.path (repeatable)")
    p.add_argument("--timeout", type=float, default=300.0,
                   help="seconds a child may run before it counts as hung (default 300)")
    p.add_argument("--match", "-m", action="append", default=[], metavar="PAT",
                   help="run only tests whose id matches *PAT* (fnmatch; repeatable)")
    p.add_argument("--use", "-u", default="", metavar="RES1,RES2",
                   help="test.support resources to enable (regrtest's -u); default none, as regrtest")
    p.add_argument("--jobs", "-j", type=int, default=1, help="modules run at once (default 1)")
    p.add_argument("--show", type=int, default=25, help="failures listed per module (default 25)")
    p.add_argument("--json", metavar="FILE", help="write every result to FILE")
    p.add_argument("--keep", metavar="DIR", help="keep the children's files (events, stdout, stderr) in DIR")
    p.add_argument("--quiet", "-q", action="store_true", help="only the table and the signatures")
    p.add_argument("--report", metavar="FILE", help="print a run saved with --json again (runs nothing)")
    return p


def check_context(spec):
    if spec in CONTEXTS:
        return
    if ":" not in spec:
        raise UsageError("--context must be one of %s or module:Class, got %r" % (", ".join(CONTEXTS), spec))
    if ROOT not in sys.path:
        sys.path.append(ROOT)
    try:
        from context.ready.named import context_class

        context_class(spec)
    except Exception as exc:
        raise UsageError("--context %s: %s" % (spec, exc))


def print_summary(rows, context_name):
    """The table and the failure signatures; returns the number of tests failing only under the context."""
    print("\n".join(format_table(rows) + format_signatures(rows)), flush=True)
    only = sum(len(r["only_ctx"]) for r in rows)
    print("\n%d tests fail only under the context %s" % (only, context_name), flush=True)
    return only


def report(path, opts):
    """Print a run saved with --json again, as it was printed."""
    try:
        with open(path) as fh:
            saved = json.load(fh)
        rows = saved["modules"]
    except (OSError, ValueError, KeyError) as exc:
        print("%s: error: --report %s: %s" % (PROG, path, exc), file=sys.stderr)
        return 2
    print("CPython %s (%s), engine %s, context %s, %d modules, timeout %ss" % (
        saved["python"].split()[0], saved["executable"], saved.get("engine", "?"), saved["context"], len(rows),
        saved["timeout"]))
    if not opts.quiet:
        for row in rows:
            print("\n".join(format_module(row, opts.show)))
    return 1 if print_summary(rows, saved["context"]) else 0


def main(argv=None):
    parser = build_parser()
    try:
        opts = parser.parse_args(argv)
    except SystemExit as exc:
        return 2 if exc.code else 0
    if opts.report:
        return report(opts.report, opts)
    try:
        if opts.jobs < 1:
            raise UsageError("--jobs must be at least 1")
        if opts.timeout <= 0:
            raise UsageError("--timeout must be positive")
        if sum(map(bool, (opts.fast, opts.wide, opts.modules))) > 1:
            raise UsageError("--fast, --wide and --modules exclude each other")
        opts.paths = [os.path.abspath(p) for p in opts.paths]
        for p in opts.paths:
            if not os.path.isdir(p):
                raise UsageError("--path %s: not a directory" % p)
        opts.use = [r for r in opts.use.split(",") if r]
        for p in opts.paths:
            sys.path.insert(0, p)
        check_context(opts.context)
        names = FAST_MODULES if opts.fast else WIDE_MODULES if opts.wide else (opts.modules or DEFAULT_MODULES)
        modules = []
        for n in names:
            if n.endswith(".py"):
                if not os.path.isfile(n):
                    raise UsageError("%s: no such file" % n)
                d = os.path.dirname(os.path.abspath(n))
                if d not in opts.paths:
                    opts.paths.append(d)
                n = os.path.basename(n)[:-3]
            modules.append(n)
    except UsageError as exc:
        print("%s: error: %s" % (PROG, exc), file=sys.stderr)
        return 2

    workdir = opts.keep or tempfile.mkdtemp(prefix="cpython_suite.")
    os.makedirs(workdir, exist_ok=True)
    import importlib.util

    spec = importlib.util.find_spec("context")
    engine = os.path.dirname(spec.origin) if spec is not None and spec.origin else "not found"
    header = "CPython %s (%s), engine %s, context %s, %d modules, timeout %ss" % (
        sys.version.split()[0], sys.executable, engine, opts.context, len(modules), opts.timeout)
    print(header, flush=True)

    rows = [None] * len(modules)
    lock = threading.Lock()
    queue = list(enumerate(modules))

    def worker():
        while True:
            with lock:
                if not queue:
                    return
                i, name = queue.pop(0)
            d = os.path.join(workdir, "%02d_%s" % (i, name.replace("/", "_")))
            os.makedirs(d, exist_ok=True)
            native = run_module(opts, name, "native", d)
            if native["status"] in ("missing", "skipped", "load_error"):
                ctx = dict(native, outcomes={}, incidents=[], suite_time=0.0)
            else:
                ctx = run_module(opts, name, "ctx", d)
            row = compare(name, native, ctx)
            rows[i] = row
            with lock:
                if not opts.quiet:
                    print("\n".join(format_module(row, opts.show)), flush=True)

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(min(opts.jobs, len(modules)))]
    try:
        for t in threads:
            t.start()
        for t in threads:
            while t.is_alive():
                t.join(0.5)
    except KeyboardInterrupt:
        for proc in list(_RUNNING):
            _kill(proc)
        print("interrupted", file=sys.stderr)
        return 1
    rows = [r for r in rows if r is not None]
    only = print_summary(rows, opts.context)
    if opts.json:
        with open(opts.json, "w") as fh:
            json.dump({"python": sys.version, "executable": sys.executable, "engine": engine,
                       "context": opts.context, "timeout": opts.timeout, "modules": rows}, fh, indent=1)
    if not opts.keep:
        import shutil

        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if only else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        sys.exit(child_main(sys.argv[2]))
    sys.exit(main())
