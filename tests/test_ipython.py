"""The IPython magics (``context/ipython.py``): ``%trace``, ``%count``, ``%print``, line and cell."""

import builtins
import json
import os
import re
import sys

import pytest

pytest.importorskip("IPython")  # a guard only: the test extra installs IPython

ANSI = re.compile(r"\x1b\[[0-9;]*m")
TIME = re.compile(r"  \[\d+\.\d{3} ms\]$", re.M)


@pytest.fixture(scope="module")
def ip(tmp_path_factory):
    """IPython's shell, with the magics loaded by ``%load_ext context.ipython``; the process restored after."""
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    saved = (sys.modules.get("__main__"), sys.displayhook, sys.excepthook, dict(vars(builtins)),
             os.environ.get("IPYTHONDIR"))
    os.environ["IPYTHONDIR"] = str(tmp_path_factory.mktemp("ipythondir"))
    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    shell = InteractiveShell.instance(config=config)
    try:
        shell.run_line_magic("load_ext", "context.ipython")
        yield shell
    finally:
        InteractiveShell.clear_instance()
        main, sys.displayhook, sys.excepthook, names, ipythondir = saved
        sys.modules["__main__"] = main
        table = vars(builtins)  # IPython adds get_ipython, exit, quit, display and more
        for name in set(table) - set(names):
            del table[name]
        table.update(names)
        if ipythondir is None:
            os.environ.pop("IPYTHONDIR", None)
        else:
            os.environ["IPYTHONDIR"] = ipythondir


def run(ip, capsys, cell):
    """Run ``cell`` as a notebook cell: ``(the ExecutionResult, its output without colours)``."""
    capsys.readouterr()
    result = ip.run_cell(cell)
    out = capsys.readouterr()
    return result, ANSI.sub("", out.out + out.err)


def test_load_ext_registers_the_magics(ip):
    from context import ipython

    magics = ip.magics_manager.magics
    for name in ("trace", "count", "print"):
        assert name in magics["line"] and name in magics["cell"]
    assert "context.ipython" in ip.extension_manager.loaded
    first = magics["cell"]["trace"].__self__
    ipython.load_ipython_extension(ip)  # called directly, again: the magics are registered anew
    again = magics["cell"]["trace"].__self__
    assert type(again) is ipython.ContextMagics and again is not first
    for event in ("pre_execute", "pre_run_cell"):  # and the first instance's callbacks are gone
        owners = [getattr(c, "__self__", None) for c in ip.events.callbacks[event]]
        assert again in owners and first not in owners


def test_load_ext_context(ip):
    import context

    if not hasattr(context, "load_ipython_extension"):
        pytest.skip("context/__init__.py does not define load_ipython_extension yet")
    ip.run_line_magic("load_ext", "context")
    assert "context" in ip.extension_manager.loaded and "trace" in ip.magics_manager.magics["cell"]


def test_trace_cell_shows_the_tree_and_the_value(ip, capsys):
    result, out = run(ip, capsys, "%%trace\nx = sorted([3, 1, 2])\nlen(x)")
    assert result.success and result.result == 3  # the last expression's value, shown as Out[N]
    lines = TIME.sub("", out).splitlines()
    assert lines[:2] == ["sorted([3, 1, 2]) -> [1, 2, 3]", "len([1, 2, 3]) -> 3"]
    assert "Out[" in out
    assert ip.user_ns["x"] == [1, 2, 3]  # assigned in the user namespace, as natively
    assert not any(name.startswith("__pycassette") for name in ip.user_ns)


def test_run_cell_magic_directly(ip, capsys):
    value = ip.run_cell_magic("trace", "", "x = sorted([3, 1, 2])\nlen(x)")
    out = capsys.readouterr().out
    assert value == 3 and "sorted([3, 1, 2])" in out and "len([1, 2, 3])" in out
    assert ip.run_cell_magic("count", "", "y = len('ab')") is None  # no last expression: no value
    assert ip.user_ns["y"] == 2


def test_trace_line_magic_and_its_options(ip, capsys):
    run(ip, capsys, "def inner(v):\n    return abs(v)\n\ndef outer(v):\n    return inner(v) + inner(-v)\n")
    result, out = run(ip, capsys, "%trace outer(2)")
    assert result.result == 4
    assert TIME.sub("", out).splitlines()[:5] == [
        "outer(2) -> 4", "  inner(2) -> 2", "    abs(2) -> 2", "  inner(-2) -> 2", "    abs(-2) -> 2",
    ]
    _, out = run(ip, capsys, "%trace --depth 2 outer(2)")  # the call the line makes is level 1
    assert TIME.sub("", out).splitlines()[:3] == ["outer(2) -> 4", "  inner(2) -> 2", "  inner(-2) -> 2"]
    _, out = run(ip, capsys, "%trace --include abs --include '*.inner' -- outer(2)")
    assert TIME.sub("", out).splitlines()[:4] == [
        "inner(2) -> 2", "  abs(2) -> 2", "inner(-2) -> 2", "  abs(-2) -> 2",
    ]
    _, out = run(ip, capsys, "%trace --exclude=*.inner --limit 5 outer(2) * [7] * 3")
    assert TIME.sub("", out).splitlines()[:3] == ["outer(2) -> 4", "  abs(2) -> 2", "  abs(-2) -> 2"]


def test_trace_writes_a_chrome_trace(ip, capsys, tmp_path):
    path = tmp_path / "cell.json"
    result, out = run(ip, capsys, "%%%%trace -o %s\nz = sorted([2, 1])\nlen(z)" % path)
    assert result.result == 2
    assert "2 calls written to %s (open it in https://ui.perfetto.dev" % path in out
    assert "sorted([2, 1]) -> [1, 2]" in out
    with open(path, encoding="utf-8") as fh:
        events = json.load(fh)["traceEvents"]
    calls = [e for e in events if e["ph"] == "X"]
    assert [e["name"] for e in calls] == ["sorted", "len"]  # the cell's own calls, not the cell
    assert calls[0]["args"] == {"args": "[2, 1]", "result": "[1, 2]"}

    page = tmp_path / "cell.html"
    result, out = run(ip, capsys, "%%%%trace -q --output %s\nsorted([2, 1])" % page)
    assert result.result == [1, 2] and "sorted(" not in out  # -q: no tree
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_errors_show_the_users_traceback(ip, capsys):
    result, out = run(ip, capsys, "%%trace\ndef h(a):\n    return 1 / a\nbefore = 1\nh(0)\nafter = 1\n")
    assert isinstance(result.error_in_exec, ZeroDivisionError)
    assert ip.user_ns["before"] == 1 and "after" not in ip.user_ns
    tree, _, traceback = out.partition("Traceback (most recent call last)")
    assert TIME.sub("", tree).splitlines()[0] == "h(0) -> raised ZeroDivisionError('division by zero')"
    assert "----> 4 h(0)" in traceback and "in h(a)" in traceback and "----> 2     return 1 / a" in traceback
    assert "ZeroDivisionError: division by zero" in traceback
    for engine in ("context/api.py", "context/activation.py", "context/ipython.py", "overdub"):
        assert engine not in traceback


def test_tracebacks_name_the_cell_as_the_notebook_does(ip, capsys):
    # A cell stored in the history is counted before it runs: its traceback still says its own In[N].
    capsys.readouterr()
    result = ip.run_cell("%%count\nok = 1\nint('x')", store_history=True)
    out = ANSI.sub("", capsys.readouterr().out)
    assert isinstance(result.error_in_exec, ValueError) and result.execution_count == ip.execution_count - 1
    assert out.count("Cell In[%d], line " % result.execution_count) == 2  # the magic's line, and the code's
    assert "----> 2 int('x')" in out and ip.user_ns["ok"] == 1


def test_top_level_await_is_a_usage_error(ip, capsys):
    run(ip, capsys, "async def one():\n    return 1\n")
    result, out = run(ip, capsys, "%%trace\nawait one()")
    assert "UsageError: top-level await cannot run under a context" in out and not result.success
    result, out = run(ip, capsys, "%%trace\nimport asyncio\nasyncio.run(one())")
    assert result.result == 1 and "run(<coroutine object one at " in out


def test_count_cell(ip, capsys):
    run(ip, capsys, "def helper(v):\n    return abs(v)\n")
    result, out = run(ip, capsys, "%%count\nfor i in range(3):\n    helper(i)\nhelper(-1)")
    assert result.result == 1
    assert out.splitlines()[:4] == ["4  __main__.helper", "4  abs", "1  range", "9  calls in total"]
    _, out = run(ip, capsys, "%%count --top 1\nfor i in range(3):\n    helper(i)")
    assert out.splitlines()[:3] == ["3  __main__.helper", "...  (2 more functions)", "7  calls in total"]
    _, out = run(ip, capsys, "%count --operators helper(1) + helper(2)")
    assert "1  operator.add" in out.splitlines()


def test_print_magic(ip, capsys):
    run(ip, capsys, "def twice(v):\n    return abs(v) * 2\n")
    result, out = run(ip, capsys, "%print --results twice(-3)")
    assert result.result == 6
    assert out.splitlines()[:3] == ["twice(-3)", "  abs(-3) -> 3", "-> 6"]
    _, out = run(ip, capsys, "%%print --depth 1\nw = twice(0), twice(1)")
    assert out.splitlines() == ["twice(0)", "twice(1)"]  # abs, at level 2, is left out
    assert ip.user_ns["w"] == (0, 2)


def test_a_semicolon_hides_the_value(ip, capsys):
    result, out = run(ip, capsys, "%%count\nlen('abc');")
    assert result.result is None and "Out[" not in out and "1  len" in out


def test_ipython_syntax_in_the_cell(ip, capsys):
    # The cell is transformed as IPython transforms cells: magics inside it run (under the context).
    result, out = run(ip, capsys, "%%count --top 1000\nq = 5\n%xdel q\nlen('ab')")
    assert result.result == 2 and "q" not in ip.user_ns
    assert "InteractiveShell.run_line_magic" in out and re.search(r"^ *\d+  len$", out, re.M)


@pytest.mark.parametrize("cell, message", [
    ("%trace -z len('a')", "UsageError: %trace: unknown option -z (options: "),
    ("%trace --depth 0 len('a')", "UsageError: --depth: expected a whole number >= 1, got '0'"),
    ("%count --top x len('a')", "UsageError: --top: expected a whole number >= 0, got 'x'"),
    ("%trace --depth", "UsageError: %trace: --depth needs a value"),
    ("%trace -q", "UsageError: %trace needs a statement to run"),
    ("%%trace len('a')\npass", "UsageError: %%trace takes options only on its first line"),
    ("%trace -o /no/such/dir/t.json len('a')", "UsageError: %trace -o /no/such/dir/t.json: the directory "
                                               "/no/such/dir does not exist"),
])
def test_usage_errors(ip, capsys, cell, message):
    result, out = run(ip, capsys, cell)
    assert not result.success and message in out


def test_syntax_errors_are_reported(ip, capsys):
    result, out = run(ip, capsys, "%%trace\nx = = 1")
    assert isinstance(result.error_in_exec, SyntaxError) and "SyntaxError: invalid syntax" in out
    assert "Cell In[" in out
