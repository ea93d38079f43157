"""``python -m context``: the three commands, targets, options, and one-line errors with status 2."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from context import cli

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCRIPT = textwrap.dedent(
    """
    import sys

    def square(x):
        return x * x

    def total(n):
        return sum(square(i) for i in range(n))

    print("total", total(4), sys.argv[1:], __name__)
    if "--fail" in sys.argv:
        raise ValueError("asked to fail")
    if "--exit" in sys.argv:
        sys.exit(3)
    """
)


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "prog.py"
    path.write_text(SCRIPT)
    return str(path)


def run_cli(*argv, cwd=None):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "context", *argv], capture_output=True, text=True, env=env, cwd=cwd)


def test_print_a_script_with_its_arguments(script):
    done = run_cli("print", "--results", script, "a", "--b")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "total 14 ['a', '--b'] __main__\n"
    lines = done.stderr.splitlines()
    assert lines[0] == "<module>()"
    assert "  total(4)" in lines
    assert "      square(3) -> 9" in lines


def test_print_a_module_function_with_literal_arguments(capsys):
    assert cli.main(["print", "--depth", "0", "statistics:mean", "[1, 2, 4]"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "2.3333333333333335\n"  # a function target's result is printed
    assert captured.err == "mean([1, 2, 4])\n"


def test_print_options_reach_the_context(tmp_path, capsys):
    out = tmp_path / "calls.txt"
    status = cli.main(["print", "-o", str(out), "--operators", "--include", "operator.*", "--qualified",
                       "operator:add", "2", "3"])
    assert status == 0
    assert capsys.readouterr().out == "5\n"
    assert out.read_text() == "operator.add(2, 3)\n"


def test_count_the_talks_example(tmp_path, capsys):
    module = tmp_path / "talk_count.py"
    module.write_text("def run():\n    return list(map(str, range(10)))\n")
    status = cli.main(["count", "--types", "str,int", "-o", str(tmp_path / "t.txt"), str(module)])
    assert status == 0
    assert (tmp_path / "t.txt").read_text().splitlines()[-1] == "0  calls in total"  # the script only defines run
    sys.path.insert(0, str(tmp_path))
    try:
        assert cli.main(["count", "--types", "str,int", "talk_count:run"]) == 0
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("talk_count", None)
    err = capsys.readouterr().err.splitlines()
    assert err == ["10  str", " 1  range", "11  calls in total"]


def test_count_top(capsys):
    assert cli.main(["count", "--top", "2", "statistics:mean", "[1, 2, 4]"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 4 and "more functions" in err[2] and err[3].endswith("calls in total")


def call_names(path):
    """The callees of the call events of a trace file (complete "X" events, or "B" begin events)."""
    return [e["name"] for e in json.loads(open(path).read())["traceEvents"] if e.get("ph") in ("B", "X")]


def test_trace_writes_a_valid_chrome_file_and_a_tree(script, tmp_path):
    out = tmp_path / "t.json"
    done = run_cli("trace", "-o", str(out), "--tree", script)
    assert done.returncode == 0, done.stderr
    names = call_names(out)
    assert names.count("__main__.square") == 4 and "__main__.total" in names
    assert "square(3) -> 9" in done.stderr
    assert "calls recorded in %s" % out in done.stderr.splitlines()[-1]


def test_trace_depth_and_filters(tmp_path, capsys):
    out = tmp_path / "t.json"
    assert cli.main(["trace", "-o", str(out), "--include", "statistics._*", "--exclude", "*._convert",
                     "statistics:mean", "[1, 2, 4]"]) == 0
    names = set(call_names(out))
    assert "statistics._sum" in names and "statistics._convert" not in names and "statistics.mean" not in names
    assert cli.main(["trace", "-o", str(out), "--depth", "0", "statistics:mean", "[1, 2, 4]"]) == 0
    assert call_names(out) == ["statistics.mean"]


def test_the_targets_failure_is_its_own(script):
    done = run_cli("print", script, "--fail")
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == "ValueError: asked to fail"
    assert run_cli("count", script, "--exit").returncode == 3


@pytest.mark.parametrize(
    "argv, message",
    [
        ([], "the following arguments are required: COMMAND"),
        (["print"], "missing TARGET"),
        (["trace"], "missing TARGET"),
        (["frob", "x.py"], "invalid choice: 'frob'"),
        (["print", "no_such_script.py"], "no such script: no_such_script.py"),
        (["print", "json"], "TARGET must be a script (file.py), a directory or zip file with __main__.py, -m MODULE, "
                            "or MODULE:FUNCTION; got 'json' (to run the module json use -m json"),
        (["print", "no_such_module_xyz:f"], "cannot import module 'no_such_module_xyz'"),
        (["print", "math:nope"], "module 'math' has no attribute 'nope'"),
        (["print", "math:pi"], "math:pi is not callable"),
        (["print", "--depth", "-1", "math:sin", "1"], "argument --depth: expected a whole number >= 0, got '-1'"),
        (["count", "--types", "foo", "math:sin", "1"], "'foo' is not a builtin type"),
        (["trace", "--bogus", "math:sin", "1"], "unrecognized arguments: --bogus"),
        (["trace", "-o", "/no/such/dir/t.json", "math:sin", "1"], "cannot write /no/such/dir/t.json"),
    ],
)
def test_bad_command_lines_give_one_line_and_status_2(argv, message, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and err.startswith("python -m context")


def test_status_2_from_the_real_command_line():
    done = run_cli("print")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and done.stdout == ""


def test_help_explains_each_command():
    for command in ["print", "count", "trace"]:
        done = run_cli(command, "--help")
        assert done.returncode == 0
        assert "TARGET" in done.stdout and "--depth" in done.stdout or command == "count"
    assert "--types" in run_cli("count", "--help").stdout
    assert "Perfetto" in run_cli("--help").stdout


# -- the targets: scripts, directories, zip files, -m, functions, as python runs them ------------

SHOW = textwrap.dedent(
    """
    import sys
    print(repr(sys.argv), __name__, repr(__file__), repr(getattr(__spec__, "name", None)), repr(__package__),
          repr(sys.path[0]), sys.modules["__main__"].__dict__ is globals())
    """
)


@pytest.fixture
def targets(tmp_path):
    """A package with a module and a __main__, a directory and a zip file with __main__.py, and a script."""
    pkg = tmp_path / "clipkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "tool.py").write_text(SHOW)
    (pkg / "__main__.py").write_text(SHOW)
    app = tmp_path / "app"
    app.mkdir()
    (app / "__main__.py").write_text(SHOW)
    import zipapp

    zipapp.create_archive(str(app), str(tmp_path / "app.pyz"))
    (tmp_path / "sub").mkdir()
    (tmp_path / "prog.py").write_text(SHOW)
    return tmp_path


@pytest.mark.parametrize("form", [["-m", "clipkg.tool"], ["-m", "clipkg"], ["app"], ["app.pyz"], ["prog.py"],
                                  ["sub/../prog.py"]])
def test_each_target_form_runs_as_python_runs_it(targets, form):
    args = ["a", "--", "-o", "--top", "1"]  # what follows TARGET goes to it as it is, '--' included
    native = subprocess.run([sys.executable, *form, *args], cwd=targets, capture_output=True, text=True)
    assert native.returncode == 0, native.stderr
    ours = run_cli("count", "--top", "1", *form, *args, cwd=targets)
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == native.stdout  # sys.argv, __name__, __file__, __spec__, __package__, sys.path[0]
    assert ours.stderr.splitlines()[-1].endswith("calls in total")


def test_a_function_gets_literal_and_keyword_arguments_and_its_own_argv(tmp_path, monkeypatch, capsys):
    (tmp_path / "cli_funcs.py").write_text("import sys\n\n"
                                           "def f(a, b='?', *, c=None):\n    return [a, b, c, sys.argv]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    argv, path, main = sys.argv, list(sys.path), sys.modules["__main__"]
    try:
        assert cli.main(["count", "-k", "c=[1, 2]", "--kw", "b=some text", "cli_funcs:f", "3"]) == 0
        assert capsys.readouterr().out == "[3, 'some text', [1, 2], ['cli_funcs:f', '3']]\n"
        assert cli.main(["count", "cli_funcs:f", "x", "--"]) == 0  # ARGS as they are, '--' included
        assert capsys.readouterr().out == "['x', '--', None, ['cli_funcs:f', 'x', '--']]\n"
    finally:
        sys.modules.pop("cli_funcs", None)
    assert sys.argv is argv and sys.path == path and sys.modules["__main__"] is main


MAIN_SEMANTICS = textwrap.dedent(
    """
    import os, pickle, sys, typing

    def double(x):
        return 2 * x

    class Point:
        x: "int"

        def near(self, other: "Point") -> "typing.Optional[int]":
            return None

    assert pickle.loads(pickle.dumps(double)) is double
    assert type(pickle.loads(pickle.dumps(Point()))) is Point
    assert typing.get_type_hints(Point) == {"x": int}
    assert typing.get_type_hints(Point.near) == {"other": Point, "return": typing.Optional[int]}
    import __main__
    assert __main__.double is double and __spec__ is None and os.path.isabs(__file__)
    assert sys.path[0] == os.path.dirname(__file__)
    print("main semantics ok")
    """
)


def test_a_script_runs_in_a_fresh_main_module_then_the_process_is_restored(tmp_path, capsys):
    path = tmp_path / "semantics.py"
    path.write_text(MAIN_SEMANTICS)
    argv, argv_items, path_items, main = sys.argv, list(sys.argv), list(sys.path), sys.modules["__main__"]
    assert cli.main(["count", str(path)]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out == "main semantics ok\n"  # pickling, get_type_hints, import __main__
    assert sys.argv is argv and sys.argv == argv_items and sys.path == path_items
    assert sys.modules["__main__"] is main


UNITTEST = textwrap.dedent(
    """
    import unittest

    class T(unittest.TestCase):
        def test_sum(self):
            self.assertEqual(sum([1, 2]), EXPECTED)

    if __name__ == "__main__":
        unittest.main()
    """
)


@pytest.mark.parametrize("expected, status, verdict", [(3, 0, "OK"), (4, 1, "FAILED (failures=1)")])
def test_unittest_main_in_a_script_runs_its_tests(tmp_path, capsys, expected, status, verdict):
    path = tmp_path / "test_script.py"
    path.write_text(UNITTEST.replace("EXPECTED", str(expected)))
    assert cli.main(["count", str(path)]) == status
    err = capsys.readouterr().err
    assert "Ran 1 test" in err and verdict in err


def test_a_multiprocessing_pool_maps_a_function_of_the_script(tmp_path):
    path = tmp_path / "pool.py"
    path.write_text(textwrap.dedent(
        """
        import multiprocessing

        def double(x):
            return 2 * x

        if __name__ == "__main__":
            with multiprocessing.Pool(1) as pool:
                print(pool.map(double, [1, 2, 3]))
        """
    ))
    done = run_cli("count", "--top", "1", str(path))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[2, 4, 6]\n"
    assert done.stderr.count("calls in total") == 1


FORK = textwrap.dedent(
    """
    import os, sys, time

    def child_only():
        return "child"

    def parent_only():
        return "parent"

    if os.fork() == 0:
        time.sleep(0.3)  # the parent has written its report and its file by now
        print(child_only())
    else:
        print(parent_only())
    """
)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.parametrize("command", ["trace", "count", "print"])
def test_a_forked_child_neither_reports_nor_writes_the_output_file(tmp_path, command):
    path = tmp_path / "forks.py"
    path.write_text(FORK)
    out = tmp_path / "out.txt"
    done = run_cli(command, "-o", str(out), str(path))  # waits for the child too: it holds the pipes
    assert done.returncode == 0, done.stderr
    assert sorted(done.stdout.split()) == ["child", "parent"]
    text = out.read_text()
    if command == "trace":
        names = call_names(out)  # valid JSON, and only the parent's calls
        assert "__main__.parent_only" in names and "__main__.child_only" not in names
        assert done.stderr.count("calls recorded in") == 1
    elif command == "count":
        assert text.count("calls in total") == 1 and "parent_only" in text and "child_only" not in text
    else:
        assert "parent_only()" in text and "child_only()" not in text


# -- exit status and tracebacks ----------------------------------------------------------------


def test_the_traceback_shows_the_targets_frames_only(script):
    done = run_cli("trace", "-o", os.devnull, script, "--fail")
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    frames = [line for line in lines if line.lstrip().startswith('File "')]
    assert frames and all(script in line for line in frames), done.stderr


def test_exit_statuses_as_python_gives_them(tmp_path, capsys):
    path = tmp_path / "exits.py"
    path.write_text("import sys\nif sys.argv[1] == 'text':\n    sys.exit('bad things')\n"
                    "if sys.argv[1] == 'ctrl-c':\n    raise KeyboardInterrupt\nsys.exit(int(sys.argv[1]))\n")
    assert cli.main(["count", str(path), "0"]) == 0
    assert cli.main(["count", str(path), "3"]) == 3
    capsys.readouterr()
    assert cli.main(["count", str(path), "text"]) == 1
    assert capsys.readouterr().err.startswith("bad things\n")
    assert cli.main(["count", str(path), "ctrl-c"]) == 130
    assert "KeyboardInterrupt" in capsys.readouterr().err
    assert cli.main(["count", "math:sqrt", "-1"]) == 1  # a builtin raised: no frame of the target to show
    assert capsys.readouterr().err.startswith("ValueError: math domain error\n")


# -- output files: checked before anything is opened -----------------------------------------


@pytest.mark.parametrize(
    "argv, message",
    [
        (["trace", "--limit", "2", "math:sin", "1"], "argument --limit: expected a whole number >= 4, got '2'"),
        (["trace", "--bogus", "math:sin", "1"], "unrecognized arguments: --bogus"),
        (["trace"], "missing TARGET"),
        (["trace", "-m", "no_such_module_xyz"], "cannot run module 'no_such_module_xyz': No module named"),
        (["trace", "no_such_module_xyz:f"], "cannot import module 'no_such_module_xyz'"),
        (["trace", "math:pi"], "math:pi is not callable (a float)"),
        (["trace", "statistics:mean"], "cannot call statistics:mean(data) with these arguments: missing a required"),
        (["count", "--top", "x", "math:sin", "1"], "argument --top: expected a whole number >= 0, got 'x'"),
        (["print", "-k", "1x=2", "math:sin", "1"], "expected NAME=VALUE with NAME a Python identifier, got '1x=2'"),
        (["print", "-k", "x=2", "-m", "json.tool"], "-k/--kw gives keyword arguments to a MODULE:FUNCTION target only"),
        (["print", "-m"], "argument -m: expected one argument"),
    ],
)
def test_bad_input_leaves_an_existing_output_file_alone(argv, message, tmp_path, capsys):
    out = tmp_path / "out.json"
    out.write_text("precious")
    assert cli.main(argv[:1] + ["-o", str(out)] + argv[1:]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert out.read_text() == "precious"


def test_a_bad_limit_leaves_the_default_trace_file_alone(tmp_path):
    (tmp_path / "trace.json").write_text("precious")
    done = run_cli("trace", "--limit", "2", "math:sin", "1", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "--limit" in done.stderr
    assert (tmp_path / "trace.json").read_text() == "precious"


def test_where_output_may_go(tmp_path, capsys):
    assert cli.main(["trace", "-o", "-", "math:sin", "1"]) == 2
    assert "the trace file cannot be standard output (-o -)" in capsys.readouterr().err
    assert cli.main(["trace", "-o", str(tmp_path), "math:sin", "1"]) == 2
    assert "it is a directory" in capsys.readouterr().err
    assert cli.main(["trace", "-o", os.devnull, "--depth", "0", "math:sin", "1"]) == 0
    assert "1 calls recorded (-o /dev/null: no trace file written)" in capsys.readouterr().err
    assert cli.main(["print", "-o", "-", "--depth", "0", "math:sin", "1"]) == 0
    assert capsys.readouterr().out == "sin(1)\n0.8414709848078965\n"
    assert cli.main(["count", "-o", "-", "math:sin", "1"]) == 0
    assert capsys.readouterr().out == "0.8414709848078965\n0  calls in total\n"
    assert cli.main(["count", "-o", os.devnull, "math:sin", "1"]) == 0
    assert capsys.readouterr().err == ""


def test_a_pipe_takes_printed_calls_but_not_a_trace():
    done = run_cli("print", "-o", "/dev/stdout", "--depth", "0", "math:sin", "1")  # stdout is a pipe here
    assert done.returncode == 0 and "sin(1)" in done.stdout
    done = run_cli("trace", "-o", "/dev/stdout", "math:sin", "1")
    assert done.returncode == 2 and "it is not a regular file" in done.stderr and done.stdout == ""


# -- progress ----------------------------------------------------------------------------------


def test_the_progress_line():
    assert cli.format_progress(42, 0.4) == "pycassette: 42 calls, 0 s"
    assert cli.format_progress(12_345, 61.9) == "pycassette: 12.3 k calls, 61 s"
    assert cli.format_progress(1_234_567, 3.2) == "pycassette: 1.2 M calls, 3 s"
    now, calls, shown = [100.0], [0], []
    progress = cli.Progress(lambda: calls[0], shown.append, clock=lambda: now[0], interval=1.0)
    now[0] = 100.5
    assert not progress.tick() and shown == []  # nothing in the first second
    now[0], calls[0] = 101.0, 2_000_000
    assert progress.tick() and shown == ["\rpycassette: 2.0 M calls, 1 s"]
    now[0] = 101.5
    assert not progress.tick()  # at most one line a second
    now[0], calls[0] = 102.5, 7
    assert progress.tick() and shown[-1] == "\rpycassette: 7 calls, 2 s".ljust(len(shown[0]))  # covers the longer one
    progress.finish()
    assert shown[-1] == "\r" + " " * (len(shown[0]) - 1) + "\r"


def test_progress_goes_to_a_terminal_only_unless_asked(tmp_path, monkeypatch, capfd):
    monkeypatch.setattr(cli, "PROGRESS_INTERVAL", 0.05)
    path = tmp_path / "slow.py"
    path.write_text("import time\nfor i in range(6):\n    time.sleep(0.05)\n")
    assert cli.main(["count", str(path)]) == 0  # standard error is not a terminal here
    assert "\r" not in capfd.readouterr().err
    assert cli.main(["count", "--progress", str(path)]) == 0
    err = capfd.readouterr().err
    assert "\rpycassette: " in err and " calls, 0 s" in err
    parts = err.split("\r")  # lines rewritten in place, then cleared before the report
    assert parts[0] == "" and all(part.startswith("pycassette: ") for part in parts[1:-2])
    assert parts[-2] == " " * max(len(part) for part in parts[1:-2]) and parts[-1].endswith("calls in total\n")
    assert cli.main(["print", "--no-progress", "-o", os.devnull, str(path)]) == 0
    assert "\r" not in capfd.readouterr().err


def test_help_names_the_target_forms():
    out = run_cli("trace", "--help").stdout
    for words in ["-m MODULE", "MODULE:FUNCTION", "-k NAME=VALUE", "--progress", "--no-progress", "zip file"]:
        assert words in out


def test_a_module_that_raises_on_import_gives_its_traceback_and_status_1(tmp_path, monkeypatch, capsys):
    (tmp_path / "cli_broken.py").write_text("def f():\n    pass\n\nraise RuntimeError('broken at import')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert cli.main(["count", "cli_broken:f"]) == 1
    finally:
        sys.modules.pop("cli_broken", None)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "Traceback (most recent call last):" and lines[-1] == "RuntimeError: broken at import"
    assert [line for line in lines if line.lstrip().startswith('File "')] == [
        '  File "%s", line 4, in <module>' % (tmp_path / "cli_broken.py")]


# -- trace: --max-events, --receivers, flame graphs, a file that fails --------------------------


def trace_events(path):
    with open(path) as fh:
        doc = json.load(fh)
    return doc, [e for e in doc["traceEvents"] if e.get("ph") == "X"]


def test_trace_max_events_keeps_the_last_calls(script, tmp_path):
    out = tmp_path / "last.json"
    done = run_cli("trace", "--max-events", "3", "-o", str(out), script)
    assert done.returncode == 0, done.stderr
    doc, calls = trace_events(out)
    assert [e["name"] for e in calls][-1] == "__main__.<module>" and len(calls) == 3  # the last three to end
    recorded = int(done.stderr.split("calls recorded")[0].split()[-1])
    assert doc["otherData"]["dropped_events"] == recorded - 3
    assert done.stderr.splitlines()[-1].endswith("the last 3 kept in %s (--max-events; open it in "
                                                 "https://ui.perfetto.dev, chrome://tracing or "
                                                 "https://www.speedscope.app)" % out)
    assert "TraceFileWarning" not in done.stderr and done.stderr.count("\n") == 1  # no second report of the drop


def test_trace_receivers_show_the_bound_object(tmp_path):
    path = tmp_path / "methods.py"
    path.write_text("items = [7]\nitems.append(len(items))\n")
    out = tmp_path / "r.json"
    done = run_cli("trace", "--receivers", "-o", str(out), str(path))
    assert done.returncode == 0, done.stderr
    shown = {e["name"]: e["args"].get("self") for e in trace_events(out)[1]}
    assert shown["list.append"] == "[7]" and shown["len"] is None
    assert run_cli("trace", "-o", str(out), str(path)).returncode == 0
    assert all("self" not in e["args"] for e in trace_events(out)[1])  # off by default


@pytest.mark.parametrize("options, name", [([], "graph.html"), (["--format", "html"], "graph.out"),
                                           (["--tree"], "graph.htm")])
def test_trace_writes_a_flame_graph(script, tmp_path, options, name):
    out = tmp_path / name
    done = run_cli("trace", *options, "-o", str(out), script)
    assert done.returncode == 0, done.stderr
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "__main__.square" in page and "Flame graph of %s" % script in page
    assert "<script src" not in page and "https:" not in page  # self-contained
    assert done.stderr.splitlines()[-1] == "python -m context: %d calls recorded in %s (a flame graph: open it in " \
        "a web browser)" % (int(done.stderr.split(" calls recorded")[0].split()[-1]), out)
    assert ("square(3) -> 9" in done.stderr) == ("--tree" in options)
    assert sorted(os.listdir(tmp_path)) == sorted(["prog.py", name])  # no temporary file left


def test_trace_to_html_by_default_name(script, tmp_path):
    done = run_cli("trace", "--format", "html", script, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "trace.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert not (tmp_path / "trace.json").exists()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["trace", "--max-events", "0", "math:sin", "1"], "argument --max-events: expected a whole number >= 1"),
        (["trace", "--format", "svg", "math:sin", "1"], "argument --format: invalid choice: 'svg'"),
        (["trace", "--format", "html", "--max-events", "5", "math:sin", "1"],
         "--max-events applies to a Chrome trace file, not to an HTML flame graph"),
        (["trace", "--format", "html", "--receivers", "math:sin", "1"],
         "--receivers applies to a Chrome trace file, not to an HTML flame graph"),
        (["profile", "--sort", "bogus", "math:sin", "1"], "argument --sort: invalid choice: 'bogus'"),
        (["profile", "--top", "-2", "math:sin", "1"], "argument --top: expected a whole number >= 0"),
        (["profile", "--format", "csv", "math:sin", "1"], "argument --format: invalid choice: 'csv'"),
        (["profile", "--types", "nope", "math:sin", "1"], "'nope' is not a builtin type"),
        (["profile", "statistics:mean"], "cannot call statistics:mean(data) with these arguments"),
    ],
)
def test_bad_new_options_leave_an_existing_output_file_alone(argv, message, tmp_path, capsys):
    out = tmp_path / "out.json"
    out.write_text("precious")
    assert cli.main(argv[:1] + ["-o", str(out)] + argv[1:]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and err.startswith("python -m context"), err
    assert out.read_text() == "precious"


def test_where_flame_graphs_and_pstats_files_may_go(tmp_path, capsys):
    real = tmp_path / "real.out"
    real.write_text("precious")
    link = tmp_path / "link.out"
    link.symlink_to(real)  # /dev/stdout is one, say
    for argv in (["trace", "--format", "html", "-o", str(link)], ["profile", "-o", str(link), "--format", "pstats"],
                 ["trace", "--max-events", "2", "-o", str(link)]):
        assert cli.main(argv + ["math:sin", "1"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "it is a symbolic link" in err, err
        assert link.is_symlink() and real.read_text() == "precious"
    assert cli.main(["trace", "--format", "html", "-o", "-", "math:sin", "1"]) == 2
    assert "the flame graph cannot go to standard output (-o -)" in capsys.readouterr().err
    assert cli.main(["profile", "--format", "pstats", "-o", "-", "math:sin", "1"]) == 2
    assert "the pstats file cannot go to standard output (-o -)" in capsys.readouterr().err
    assert cli.main(["profile", "--format", "pstats", "math:sin", "1"]) == 2
    assert "--format pstats writes the profile to a file: give -o FILE" in capsys.readouterr().err
    assert cli.main(["trace", "--max-events", "2", "-o", os.devnull, "math:sin", "1"]) == 2
    assert "--max-events keeps the last calls in the trace file, and -o /dev/null writes none" in \
        capsys.readouterr().err
    assert cli.main(["trace", "-o", os.devnull + "", "--format", "html", "math:sin", "1"]) == 0
    assert capsys.readouterr().err.endswith("1 calls recorded (-o /dev/null: no trace file written)\n")
    assert cli.main(["profile", "-o", os.devnull, "--format", "pstats", "math:sin", "1"]) == 0
    assert capsys.readouterr().err.endswith("-o /dev/null: no pstats file written\n")


def run_with_small_files(*argv, limit, cwd):
    """``python -m context ARGV`` with files limited to ``limit`` bytes: a write beyond fails (EFBIG)."""
    resource = pytest.importorskip("resource")
    import signal

    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYCASSETTE_CACHE="0",  # no other file to write
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "context", *argv], capture_output=True, text=True, env=env, cwd=cwd,
                          preexec_fn=small_files)


MANY_CALLS = "def leaf(i):\n    return i\n\nfor i in range(3000):\n    leaf(i)\nprint('done')\n"


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform != "linux", reason="needs RLIMIT_FSIZE (Linux)")
@pytest.mark.parametrize("options", [[], ["--max-events", "2000"]])
def test_a_trace_file_that_fails_gives_one_line_and_a_failing_status(tmp_path, options):
    (tmp_path / "many.py").write_text(MANY_CALLS)
    done = run_with_small_files("trace", *options, "-o", "t.json", "many.py", limit=20_000, cwd=tmp_path)
    assert done.stdout == "done\n"  # the target ran to its end
    assert done.returncode == 1
    assert done.stderr == ("python -m context: cannot write the trace file t.json: File too large; the run went on "
                           "without it, and the partial file was removed\n")
    assert sorted(os.listdir(tmp_path)) == ["many.py"]


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform != "linux", reason="needs RLIMIT_FSIZE (Linux)")
@pytest.mark.parametrize("argv, what", [(["trace", "-o", "t.html"], "the flame graph t.html"),
                                        (["profile", "-o", "t.prof"], "the pstats file t.prof")])
def test_a_whole_file_that_fails_gives_one_line_and_a_failing_status(tmp_path, argv, what):
    (tmp_path / "many.py").write_text(MANY_CALLS.replace("leaf(i)\n", "leaf(i)\n    exec('def f%d(): pass' % i)\n"
                                                         "    globals()['f%d' % i]()\n"))
    done = run_with_small_files(*argv, "many.py", limit=20_000, cwd=tmp_path)
    assert done.stdout == "done\n" and done.returncode == 1
    assert done.stderr.splitlines()[-1] == "python -m context: cannot write %s: File too large" % what
    assert sorted(os.listdir(tmp_path)) == ["many.py"]  # nor a temporary file


# -- profile -----------------------------------------------------------------------------------

RECURSIVE = textwrap.dedent(
    """
    def fib(n):
        return n if n < 2 else fib(n - 1) + fib(n - 2)

    def work():
        return [fib(8) for _ in range(3)]

    print(work()[0])
    """
)


def profile_rows(text):
    """``[(calls, function)]`` of a profile table."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split() == ["calls", "own", "ms", "cum", "ms", "function"])
    rows = []
    for line in lines[start + 1:]:
        parts = line.split()
        if "calls in total," in line or parts[0] == "...":
            break
        rows.append((parts[0], parts[3]))
    return rows


def test_profile_prints_a_table_sorted_as_asked(tmp_path):
    path = tmp_path / "fib.py"
    path.write_text(RECURSIVE)
    done = run_cli("profile", str(path))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "21\n"
    rows = profile_rows(done.stderr)
    assert rows[0] == ("1", "__main__.<module>")  # the largest cumulative time first
    assert ("201/3", "__main__.fib") in rows  # all/primitive calls of a recursive function
    assert done.stderr.splitlines()[-1].endswith(" ms") and "calls in total" in done.stderr.splitlines()[-1]
    by_calls = profile_rows(run_cli("profile", "--sort", "calls", "--top", "2", str(path)).stderr)
    assert by_calls[0] == ("201/3", "__main__.fib") and len(by_calls) == 2
    by_name = [name for _, name in profile_rows(run_cli("profile", "--sort", "name", str(path)).stderr)]
    assert by_name == sorted(by_name)


def test_profile_table_to_a_file_or_standard_output(tmp_path, capsys):
    out = tmp_path / "table.txt"
    assert cli.main(["profile", "--sort", "tottime", "-o", str(out), "statistics:mean", "[1, 2, 4]"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "2.3333333333333335\n" and captured.err == ""
    assert ("1", "statistics.mean") in profile_rows(out.read_text())
    assert cli.main(["profile", "-o", "-", "--top", "1", "statistics:mean", "[1, 2, 4]"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("2.3333333333333335\ncalls  own ms  cum ms  function\n")
    assert profile_rows(captured.out) == [("1", "statistics.mean")]


@pytest.mark.parametrize("options, name", [([], "fib.prof"), ([], "fib.pstats"), (["--format", "pstats"], "fib.out")])
def test_profile_writes_a_pstats_file(tmp_path, options, name):
    import pstats

    path = tmp_path / "fib.py"
    path.write_text(RECURSIVE)
    out = tmp_path / name
    done = run_cli("profile", *options, "-o", str(out), str(path))
    assert done.returncode == 0, done.stderr
    stats = pstats.Stats(str(out))
    (fib,) = [key for key in stats.stats if key[2] == "fib"]
    cc, nc, tt, ct, callers = stats.stats[fib]
    assert (nc, cc) == (201, 3) and ct <= stats.total_tt and key_file(fib) == str(path)
    assert profile_rows(done.stderr)[0] == ("1", "__main__.<module>")  # the table still goes to standard error
    assert done.stderr.splitlines()[-1] == ("python -m context: profile of %d calls written to %s (read it with "
                                            "python -m pstats %s, or pstats.Stats)" % (stats.total_calls, out, out))


def key_file(key):
    return key[0]


# -- the helper the command line runs scripts with ----------------------------------------------


def test_module_code_function_runs_a_module_s_code_under_a_context():
    import context

    code = compile("import math\nroots = [math.sqrt(i) for i in range(4)]\n", "<cell>", "exec")
    namespace = {"__name__": "cell"}
    function = cli.module_code_function(code, namespace)
    counter = context.CountCtx()
    assert context.overdub(counter, function) is None
    assert namespace["roots"] == [0.0, 1.0, 2 ** 0.5, 3 ** 0.5] and counter.counts["math.sqrt"] == 4
    assert namespace["__builtins__"] is __import__("builtins")  # as exec adds them
    own = {"__builtins__": {"len": lambda x: 42}}
    cli.module_code_function(compile("n = len([])", "<cell>", "exec"), own)()
    assert own["n"] == 42  # the namespace's own builtins are kept
    with pytest.raises(TypeError, match="expected a code object"):
        cli.module_code_function("n = 1", {})
    with pytest.raises(ValueError, match="the code of a function, not of a module"):
        cli.module_code_function(test_module_code_function_runs_a_module_s_code_under_a_context.__code__, {})


def test_help_names_the_new_options():
    assert "profile" in run_cli("--help").stdout
    out = run_cli("trace", "--help").stdout
    for words in ["--max-events", "--receivers", "--format", "html"]:
        assert words in out
    out = run_cli("profile", "--help").stdout
    for words in ["--sort", "cumulative", "tottime", "pstats", ".prof", "--top", "-m MODULE"]:
        assert words in out


def test_trace_no_values_writes_calls_without_arguments(tmp_path):
    import json
    import subprocess
    import sys

    out = tmp_path / "t.json"
    proc = subprocess.run([sys.executable, "-m", "context", "trace", "--no-values", "-o", str(out),
                           "tomllib:loads", "a = 1"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    events = [ev for ev in json.loads(out.read_text())["traceEvents"] if ev["ph"] == "X"]
    assert events and all("args" not in ev["args"] and "result" not in ev["args"] for ev in events)
