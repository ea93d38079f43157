"""Exception-table stack depths of rewritten code are carried over and verified.

The ``bytecode`` package recomputes handler depths when it assembles code and can get
them wrong (a bare ``raise`` in a ``try/finally`` inside an ``except``; asyncio's
``Runner.run`` and ``BaseEventLoop.run_until_complete``); the interpreter trusts the
table while it unwinds. ``context/rewrite/exctable.py`` carries CPython's depths over and
checks every rewritten table against the original. These tests run targeted shapes under
three kinds of context, walk a large part of the standard library through the verifier,
and check that the verifier itself rejects a wrong table.

The stdlib walk checks a deterministic sample (every ``STEP``-th code object); set
``PYCASSETTE_FULL_STDLIB_WALK=1`` to check every one (about a minute per interpreter).
"""

import asyncio
import importlib
import os
import types
import warnings

import pytest

import context
from context.activation import _class_plan
from context.rewrite import exctable
from context.rewrite.code import _rewrite
from tests.helpers import OverdubRecorder, Recorder

CONTEXTS = {"empty": context.Context, "prehook": Recorder, "overdub": OverdubRecorder}
CONFIGS = {name: _class_plan(cls)[0] for name, cls in CONTEXTS.items()}


def fresh(name):
    """A new context of the kind ``name`` (the recorders keep a list of the calls)."""
    return context.Context() if name == "empty" else CONTEXTS[name](metadata=[])


# ------------------------------------------------------------------ targeted shapes


class Cancelled(Exception):
    pass


def fail(n):
    raise Cancelled(n)


def bare_raise_in_finally_in_except(n, count):
    cleanup = []
    try:
        return fail(n)
    except Cancelled:
        if count > 0:
            hook = getattr(cleanup, "append", None)
            if hook is not None and hook(1) is None:
                raise KeyError(n)
        raise
    finally:
        if cleanup is not None:
            cleanup.clear()


def reraise_inside_finally_inside_except(n):
    log = []
    try:
        fail(n)
    except Cancelled:
        try:
            try:
                raise
            finally:
                log.append("finally")
        except Cancelled as exc:
            log.append(str(exc))
    return log


def swallow_in_loop(xs):
    out = []
    for x in xs:
        try:
            try:
                out.append(10 // x)
            finally:
                out.append(len(out))
        except ZeroDivisionError:
            try:
                raise
            except ZeroDivisionError:
                out.append("zero")
            finally:
                continue
    return out


def handler_inside_call_arguments(xs):
    # 3.12+: the inlined comprehension has a handler whose depth holds the callee
    # (and, for an overdub-only context, ``STATE.run`` pushed beneath it)
    try:
        return sorted([int(x) for x in xs], key=abs), max(1, len([y for y in xs if y]))
    except ValueError as exc:
        return str(exc)


def with_blocks_and_returns(n):
    class Manager:
        def __init__(self, log):
            self.log = log

        def __enter__(self):
            self.log.append("enter")
            return self

        def __exit__(self, *exc):
            self.log.append(exc[0].__name__ if exc[0] else None)
            return exc[0] is KeyError

    log = []
    for i in range(n):
        with Manager(log):
            try:
                if i % 2:
                    raise KeyError(i)
                fail(i)
            except Cancelled:
                try:
                    raise
                finally:
                    log.append("inner %d" % i)
            finally:
                log.append(i)
    return log


def generator_with_handlers(n):
    def gen():
        for i in range(n):
            try:
                yield i
                fail(i)
            except Cancelled:
                try:
                    raise
                except Cancelled:
                    yield -i
            finally:
                yield 100 + i

    return list(gen())


def catch(fn, *args):
    try:
        return fn(*args)
    except Exception as exc:  # the result compared is the exception's repr
        return "raised %r" % (exc,)


CASES = [
    (bare_raise_in_finally_in_except, (1, 1)),
    (bare_raise_in_finally_in_except, (2, 0)),
    (reraise_inside_finally_inside_except, (3,)),
    (swallow_in_loop, ([1, 0, 2, 0, 5],)),
    (handler_inside_call_arguments, (["3", "-1", "2"],)),
    (handler_inside_call_arguments, (["3", "x"],)),
    (with_blocks_and_returns, (4,)),
    (generator_with_handlers, (3,)),
]


@pytest.mark.parametrize("name", sorted(CONTEXTS))
@pytest.mark.parametrize("fn,args", CASES, ids=lambda v: getattr(v, "__name__", None) or repr(v))
def test_targeted_shapes_run_as_natively(name, fn, args):
    assert context.overdub(fresh(name), catch, fn, *args) == catch(fn, *args)


def _codes_of(fn):
    out, todo = [], [fn.__code__]
    while todo:
        code = todo.pop()
        out.append(code)
        todo.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return out


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_targeted_shapes_verify(name):
    for fn, _ in CASES:
        for code in _codes_of(fn):
            exctable.verify(code, _rewrite(code, CONFIGS[name]))


# ------------------------------------------------------------------ asyncio


async def _small(n):
    await asyncio.sleep(0)
    total = 0
    for i in range(n):
        try:
            if i == 2:
                raise ValueError(i)
            total += await asyncio.sleep(0, result=i)
        except ValueError:
            total += 100
    return total


def _cancelled():
    async def main():
        task = asyncio.ensure_future(asyncio.sleep(10))
        await asyncio.sleep(0)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            return "cancelled"

    return asyncio.run(main())


@pytest.mark.parametrize("name", ["empty", "prehook"])
def test_asyncio_run(name):
    assert context.overdub(fresh(name), asyncio.run, _small(4)) == asyncio.run(_small(4))
    assert context.overdub(fresh(name), _cancelled) == "cancelled"


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_asyncio_entry_points_verify(name):
    import asyncio.base_events
    import asyncio.runners

    for fn in (asyncio.base_events.BaseEventLoop.run_until_complete, asyncio.runners.Runner.run):
        for code in _codes_of(fn):
            exctable.verify(code, _rewrite(code, CONFIGS[name]))


# ------------------------------------------------------------------ the verifier itself


def _with_depths(code, change):
    """``code`` with each exception-table entry's depth replaced by ``change(depth)``."""
    table = bytearray()
    for start, end, target, depth, lasti in exctable.parse_table(code):
        for value, first in ((start // 2, True), ((end - start) // 2, False), (target // 2, False),
                             ((change(depth) << 1) | lasti, False)):
            chunks = [value & 63]
            value >>= 6
            while value:
                chunks.append(value & 63)
                value >>= 6
            chunks.reverse()
            for i, chunk in enumerate(chunks):
                b = chunk | (64 if i < len(chunks) - 1 else 0) | (128 if first and i == 0 else 0)
                table.append(b)
    return code.replace(co_exceptiontable=bytes(table))


def test_table_round_trips_through_the_encoder():
    code = bare_raise_in_finally_in_except.__code__
    assert _with_depths(code, lambda d: d).co_exceptiontable == code.co_exceptiontable


@pytest.mark.parametrize("delta", [1, -1])
def test_verifier_rejects_a_wrong_depth(delta):
    code = bare_raise_in_finally_in_except.__code__
    exctable.verify(code, code)
    broken = _with_depths(code, lambda d: max(d + delta, 0) if d or delta > 0 else d)
    assert broken.co_exceptiontable != code.co_exceptiontable
    with pytest.raises(exctable.ExceptionTableError):
        exctable.verify(code, broken)


def test_verifier_rejects_a_small_stack_size():
    code = bare_raise_in_finally_in_except.__code__
    with pytest.raises(exctable.ExceptionTableError):
        exctable.check_code(code.replace(co_stacksize=1))


def test_a_table_that_fails_the_check_is_a_rewrite_error(monkeypatch):
    real = exctable.carry_depths

    def off_by_one(original_items, items, flags):
        size = real(original_items, items, flags)
        for item in items:
            if type(item).__name__ == "TryBegin":
                item.stack_depth += 1
        return size + 1

    monkeypatch.setattr(exctable, "carry_depths", off_by_one)
    with pytest.raises(context.RewriteError, match="bare_raise_in_finally_in_except"):
        _rewrite(bare_raise_in_finally_in_except.__code__, CONFIGS["empty"])


# ------------------------------------------------------------------ the standard library

STDLIB = """abc argparse ast asyncio asyncio.base_events asyncio.runners asyncio.tasks base64 bisect
calendar collections configparser contextlib copy csv dataclasses datetime decimal difflib dis
email email.parser email.generator email.message email.feedparser email._header_value_parser
email.utils enum fnmatch fractions ftplib functools getopt gettext glob gzip hashlib heapq html
html.parser http.client http.cookiejar imaplib inspect io ipaddress json json.decoder
json.encoder locale logging logging.handlers mailbox mimetypes multiprocessing.connection netrc
ntpath numbers operator optparse os pathlib pickle pickletools pkgutil platform plistlib poplib
posixpath pprint pydoc queue quopri random re reprlib sched selectors shlex shutil smtplib socket
socketserver sqlite3 ssl statistics string struct subprocess tarfile tempfile textwrap threading
tokenize tomllib traceback typing unittest unittest.mock urllib.parse urllib.request uuid
warnings weakref xml.dom.minidom xml.etree.ElementTree zipfile zipimport concurrent.futures
importlib.metadata""".split()
STEP = 10  # check every STEP-th code object unless PYCASSETTE_FULL_STDLIB_WALK is set
ALWAYS = {"run_until_complete", "Runner.run", "BaseEventLoop._connect_sock", "TarFile.next",
          "Popen.communicate", "Server.serve_forever", "Semaphore.acquire", "ftpwrapper.retrfile",
          "_get_decompress_func"}


def stdlib_codes():
    """Every code object reachable from the functions of ``STDLIB``, in a stable order."""
    seen = {}

    def add(code):
        if id(code) not in seen:
            seen[id(code)] = code
            for c in code.co_consts:
                if isinstance(c, types.CodeType):
                    add(c)

    def visit(obj, depth):
        if isinstance(obj, types.FunctionType):
            add(obj.__code__)
        elif isinstance(obj, (staticmethod, classmethod)):
            visit(obj.__func__, depth)
        elif isinstance(obj, property):
            for f in (obj.fget, obj.fset, obj.fdel):
                if f is not None:
                    visit(f, depth)
        elif isinstance(obj, type) and depth < 3:
            for v in list(vars(obj).values()):
                visit(v, depth + 1)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in STDLIB:
            try:
                module = importlib.import_module(name)
            except Exception:  # not built on this machine
                continue
            for v in list(vars(module).values()):
                if not (isinstance(v, types.FunctionType) and v.__module__ != module.__name__):
                    visit(v, 0)
    return sorted(seen.values(), key=lambda c: (c.co_filename, c.co_firstlineno, c.co_qualname))


def test_stdlib_rewrites_verify():
    codes = stdlib_codes()
    assert len(codes) > 3000
    if not os.environ.get("PYCASSETTE_FULL_STDLIB_WALK"):
        codes = [c for i, c in enumerate(codes) if i % STEP == 0 or c.co_qualname.endswith(tuple(ALWAYS))]
    failures = []
    for code in codes:
        for name, config in CONFIGS.items():
            try:
                exctable.verify(code, _rewrite(code, config))
            except (exctable.ExceptionTableError, context.RewriteError) as exc:
                failures.append("%s %s (%s:%d): %s" % (name, code.co_qualname, code.co_filename,
                                                      code.co_firstlineno, exc))
    assert not failures, "\n".join(failures[:20])
