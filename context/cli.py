"""``python -m context print|count|trace TARGET [ARGS...]``: run a script or a function under a ready-made context."""

import argparse
import ast
import builtins
import importlib
import os
import sys
import traceback
from types import FunctionType

from .api import overdub

PROG = "python -m context"


class UsageError(Exception):
    """A bad command line: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError("%s: %s (see %s --help)" % (self.prog, message, self.prog))


def _depth(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("expected a whole number >= 0, got %r" % text) from None
    if value < 0:
        raise argparse.ArgumentTypeError("expected a whole number >= 0, got %r" % text)
    return value


def _types(text):
    found = []
    for name in text.split(","):
        name = name.strip()
        kind = getattr(builtins, name, None)
        if not isinstance(kind, type):
            raise argparse.ArgumentTypeError("%r is not a builtin type (use names such as int,str,float)" % name)
        found.append(kind)
    return tuple(found)


def _common(parser, what):
    parser.add_argument("--depth", type=_depth, metavar="N", help="%s only calls at most N levels below the top one "
                        "(0: the target alone); deeper calls run natively" % what)
    parser.add_argument("--include", action="append", metavar="PATTERN",
                        help="%s only callees whose qualified name matches PATTERN: a glob such as 'tomllib.*', or a "
                        "dotted prefix such as 'tomllib' (repeatable)" % what)
    parser.add_argument("--exclude", action="append", metavar="PATTERN",
                        help="leave out callees matching PATTERN (repeatable; applies after --include)")
    parser.add_argument("--operators", action="store_true", help="see operators such as a * b as calls of operator.mul")
    parser.add_argument("target", nargs="?", metavar="TARGET", help="a script path (run as __main__, with sys.argv = [TARGET, ARGS...]) "
                        "or module:function (called with ARGS)")
    parser.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS",
                        help="arguments for the target; for module:function each is a Python literal if it parses as "
                        "one (42, 1.5, [1, 2], 'x'), else a string")


def build_parser():
    parser = _Parser(prog=PROG, description="Run a Python script or function under one of pycassette's "
                     "ready-made contexts.")
    epilog = ("Options come before TARGET; everything after TARGET goes to the target. Exit status: the target's "
              "(0 when it returns, 1 when it raises, its own for SystemExit); 2 for a bad command line.")
    parser.epilog = epilog
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    p = commands.add_parser("print", epilog=epilog, help="print each call with its arguments, indented by depth",
                            description="Print each call made by TARGET with its arguments, indented by depth.")
    p.add_argument("-o", "--output", metavar="FILE", help="write the calls to FILE instead of standard error")
    p.add_argument("--results", action="store_true", help="also show what each call returned or raised")
    p.add_argument("--qualified", action="store_true", help="show module.qualname names")
    _common(p, "print")

    c = commands.add_parser("count", epilog=epilog, help="count calls per function",
                            description="Count the calls made by TARGET, per function, and print the table.")
    c.add_argument("-o", "--output", metavar="FILE", help="write the table to FILE instead of standard error")
    c.add_argument("--types", type=_types, metavar="T1,T2",
                   help="count only calls whose arguments are all instances of these builtin types, e.g. str,int")
    c.add_argument("--top", type=_depth, default=30, metavar="N", help="show the N most called functions (default 30)")
    c.add_argument("--operators", action="store_true", help="count operators such as a * b as calls of operator.mul")
    c.add_argument("target", nargs="?", metavar="TARGET", help="a script path or module:function")
    c.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help="arguments for the target")

    t = commands.add_parser("trace", epilog=epilog, help="record the call tree to a Chrome trace file (Perfetto, chrome://tracing, "
                            "speedscope)", description="Record every call made by TARGET (callee, arguments, result or "
                            "exception, wall time) and stream it to a Chrome trace-event JSON file.")
    t.add_argument("-o", "--output", metavar="FILE", default="trace.json",
                   help="the trace file to write (default: trace.json)")
    t.add_argument("--tree", action="store_true", help="also print the call tree as indented text to standard error "
                   "(keeps the whole tree in memory)")
    t.add_argument("--limit", type=_depth, default=80, metavar="N", help="characters per argument or result shown (default 80)")
    _common(t, "record")
    return parser


def _literal(text):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text


def load_target(spec, args):
    """``(callable, args, is_script)`` for TARGET: a script path, or ``module:function``."""
    if os.path.isfile(spec) or spec.endswith(".py"):
        if not os.path.isfile(spec):
            raise UsageError("%s: no such script: %s" % (PROG, spec))
        path = os.path.abspath(spec)
        with open(path, "rb") as handle:
            source = handle.read()
        try:
            code = compile(source, path, "exec")
        except SyntaxError as exc:
            raise UsageError("%s: cannot compile %s: %s" % (PROG, spec, exc)) from None
        namespace = {"__name__": "__main__", "__file__": path, "__builtins__": builtins,
                     "__package__": None, "__spec__": None, "__cached__": None, "__doc__": None}
        sys.argv[:] = [spec] + list(args)
        sys.path.insert(0, os.path.dirname(path))
        return FunctionType(code, namespace, "<module>"), (), True
    module_name, colon, qualname = spec.partition(":")
    if not colon or not module_name or not qualname:
        raise UsageError("%s: TARGET must be a script path (file.py) or module:function, got %r" % (PROG, spec))
    try:  # ``python -m`` already put the working directory first on sys.path
        obj = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError("%s: cannot import module %r: %s" % (PROG, module_name, exc)) from None
    for part in qualname.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise UsageError("%s: module %r has no attribute %r" % (PROG, module_name, qualname)) from None
    if not callable(obj):
        raise UsageError("%s: %s is not callable (a %s)" % (PROG, spec, type(obj).__name__))
    return obj, tuple(_literal(a) for a in args), False


def _open_output(path, mode="w"):
    try:
        return open(path, mode)
    except OSError as exc:
        raise UsageError("%s: cannot write %s: %s" % (PROG, path, exc.strerror or exc)) from None


def _run(ctx, target, args, is_script):
    """Run the target under ``ctx``; returns the exit status, printing a traceback if it raised."""
    try:
        result = overdub(ctx, target, *args)
    except SystemExit as exc:
        code = exc.code
        if code is None or isinstance(code, int):
            return code or 0
        print(code, file=sys.stderr)
        return 1
    except BaseException:
        traceback.print_exc()
        return 1
    if not is_script and result is not None:
        print(repr(result))
    return 0


def _filters(ns):
    return dict(max_depth=ns.depth, include=ns.include, exclude=ns.exclude, operators=ns.operators)


def main(argv=None):
    """The command line's entry point; returns the exit status."""
    from .ready.counting import CountCtx
    from .ready.printing import PrintCtx

    try:
        parser = build_parser()
        ns = parser.parse_args(argv)
        if ns.target is None:
            raise UsageError("%s %s: missing TARGET: a script path (file.py) or module:function (see %s %s --help)"
                             % (PROG, ns.command, PROG, ns.command))
        target, args, is_script = load_target(ns.target, ns.args)
        if ns.command == "print":
            out = _open_output(ns.output) if ns.output else sys.stderr
            try:
                return _run(PrintCtx(out, results=ns.results, qualified=ns.qualified, **_filters(ns)),
                            target, args, is_script)
            finally:
                if out is not sys.stderr:
                    out.close()
        if ns.command == "count":
            out = _open_output(ns.output) if ns.output else None
            ctx = CountCtx(ns.types, operators=ns.operators)
            status = _run(ctx, target, args, is_script)
            table = ctx.table(ns.top)
            if out is None:
                print(table, file=sys.stderr)
            else:
                with out:
                    print(table, file=out)
            return status
        from .ready.tracing import TraceCtx

        _open_output(ns.output).close()  # a bad path is a usage error, reported before the run
        with TraceCtx(ns.output, keep=ns.tree, limit=ns.limit, **_filters(ns)) as ctx:
            status = _run(ctx, target, args, is_script)
        if ns.tree:
            print(ctx.render(), file=sys.stderr)
        print("%s: %d calls recorded in %s (open it in https://ui.perfetto.dev, chrome://tracing or "
              "https://www.speedscope.app)" % (PROG, ctx.calls, ns.output), file=sys.stderr)
        return status
    except UsageError as exc:
        print(str(exc), file=sys.stderr)
        return 2
