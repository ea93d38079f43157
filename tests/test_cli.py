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


def test_trace_writes_a_valid_chrome_file_and_a_tree(script, tmp_path):
    out = tmp_path / "t.json"
    done = run_cli("trace", "-o", str(out), "--tree", script)
    assert done.returncode == 0, done.stderr
    events = json.loads(out.read_text())["traceEvents"]
    names = [e["name"] for e in events if e.get("ph") == "B"]
    assert names.count("__main__.square") == 4 and "__main__.total" in names
    assert "square(3) -> 9" in done.stderr
    assert "calls recorded in %s" % out in done.stderr.splitlines()[-1]


def test_trace_depth_and_filters(tmp_path, capsys):
    out = tmp_path / "t.json"
    assert cli.main(["trace", "-o", str(out), "--include", "statistics._*", "--exclude", "*._convert",
                     "statistics:mean", "[1, 2, 4]"]) == 0
    names = {e["name"] for e in json.loads(out.read_text())["traceEvents"] if e.get("ph") == "B"}
    assert "statistics._sum" in names and "statistics._convert" not in names and "statistics.mean" not in names
    assert cli.main(["trace", "-o", str(out), "--depth", "0", "statistics:mean", "[1, 2, 4]"]) == 0
    names = [e["name"] for e in json.loads(out.read_text())["traceEvents"] if e.get("ph") == "B"]
    assert names == ["statistics.mean"]


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
        (["print", "json"], "TARGET must be a script path (file.py) or module:function, got 'json'"),
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
