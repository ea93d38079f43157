"""The command line's arguments: the parser of the four commands, the checks of option values, and the split
of the command line at TARGET (what follows it goes to the target untouched)."""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import argparse
import ast
import builtins
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from .errors import UsageError

PROG = "python -m context"  # how error messages name the command (``pycassette`` from the console script)
CONSOLE_PROG = "pycassette"
TARGET_FORMS = "a script (file.py), a directory or zip file with __main__.py, -m MODULE, or MODULE:FUNCTION"
COMMANDS = ("print", "count", "trace", "profile")
TRACE_FORMATS = ("chrome", "html")
PROFILE_FORMATS = ("text", "pstats")
PROFILE_SORTS = ("cumulative", "tottime", "calls", "name")
HTML_SUFFIXES = (".html", ".htm")
PSTATS_SUFFIXES = (".prof", ".pstats")


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are ``UsageError``: one line, naming ``--help``."""

    def error(self, message: str) -> NoReturn:
        raise UsageError("%s: %s (see %s --help)" % (self.prog, message, self.prog))


# -- option values ---------------------------------------------------------------------------


def at_least(low: int) -> Callable[[str], int]:
    """An argparse ``type``: a whole number ``>= low``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError("expected a whole number >= %d, got %r" % (low, text)) from None
        if value < low:
            raise argparse.ArgumentTypeError("expected a whole number >= %d, got %r" % (low, text))
        return value

    return parse


def whole(text: str) -> int:
    """An argparse ``type``: a whole number ``>= 0``."""
    return at_least(0)(text)


def builtin_types(text: str) -> tuple[type, ...]:
    """An argparse ``type``: ``str,int`` as ``(str, int)``, builtin types only."""
    found = []
    for name in text.split(","):
        name = name.strip()
        kind = getattr(builtins, name, None)
        if not isinstance(kind, type):
            raise argparse.ArgumentTypeError("%r is not a builtin type (use names such as int,str,float)" % name)
        found.append(kind)
    return tuple(found)


def keyword(text: str) -> tuple[str, str]:
    """An argparse ``type``: ``NAME=VALUE`` as ``(NAME, VALUE)``."""
    name, equals, value = text.partition("=")
    if not equals or not name.isidentifier():
        raise argparse.ArgumentTypeError("expected NAME=VALUE with NAME a Python identifier, got %r" % text)
    return name, value


def literal(text: str) -> Any:
    """``text`` as a Python literal if it parses as one (42, 1.5, [1, 2], 'x', None), else the string itself."""
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return text


# -- the parser ------------------------------------------------------------------------------

EPILOG = (
    "TARGET is a script (file.py), a directory or zip file with __main__.py (run as python runs them), "
    "-m MODULE (run as __main__, as python -m MODULE does), or MODULE:FUNCTION (called with ARGS, each a Python "
    "literal if it parses as one, else a string, and with -k NAME=VALUE keyword arguments). Options come before "
    "TARGET; everything after TARGET goes to the target, as it is. Exit status: the target's (0 when it returns, "
    "1 when it raises, its own for SystemExit); 2 for a bad command line, which is checked before the target "
    "runs and before any output file is opened."
)


def _target_arguments(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("-k", "--kw", action="append", type=keyword, metavar="NAME=VALUE", default=[],
                        help="a keyword argument for a MODULE:FUNCTION target (repeatable); VALUE is read as ARGS are")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="show a progress line (calls %s, seconds) on standard error while the target runs "
                        "(default: when standard error is a terminal%s)"
                        % (what, ", and the calls do not go there" if what == "printed" else ""))
    parser.add_argument("-m", dest="module", metavar="MODULE",
                        help="run MODULE as __main__, as python -m MODULE does; it must come last: what follows "
                        "goes to the module")
    parser.add_argument("target", nargs="?", metavar="TARGET", help=TARGET_FORMS)
    parser.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS",
                        help="arguments for the target: its sys.argv[1:], or the function's positional arguments")


def _reprs_argument(parser):
    parser.add_argument("--reprs", action="store_true",
                        help="show values with the program's own __repr__ methods (by default none of the "
                        "program's code runs to show a value: such values are shown as <module.Class object at 0x...>)")


def _filter_arguments(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--depth", type=whole, metavar="N", help="%s only calls at most N levels below the top one "
                        "(0: the target alone); deeper calls run natively" % what)
    parser.add_argument("--include", action="append", metavar="PATTERN",
                        help="%s only callees whose qualified name matches PATTERN: a glob such as 'tomllib.*', or a "
                        "dotted prefix such as 'tomllib' (repeatable)" % what)
    parser.add_argument("--exclude", action="append", metavar="PATTERN",
                        help="leave out callees matching PATTERN (repeatable; applies after --include)")
    parser.add_argument("--operators", action="store_true", help="see operators such as a * b as calls of operator.mul")


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The argument parser of the command line (``prog`` names it in messages)."""
    parser = Parser(prog=prog, description="Run a Python script, module or function under one of pycassette's "
                    "ready-made contexts (print, count, trace: Perfetto, chrome://tracing, speedscope, flame graphs; "
                    "profile: pstats).", epilog=EPILOG)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    commands.required = True
    usage = "%(prog)s [OPTIONS] (SCRIPT | DIR | -m MODULE | MODULE:FUNCTION) [ARGS...]"

    p = commands.add_parser("print", usage=usage, epilog=EPILOG,
                            help="print each call with its arguments, indented by depth",
                            description="Print each call made by TARGET with its arguments, indented by depth.")
    p.add_argument("-o", "--output", metavar="FILE", help="write the calls to FILE ('-': standard output) instead "
                   "of standard error")
    p.add_argument("--results", action="store_true", help="also show what each call returned or raised")
    p.add_argument("--qualified", action="store_true", help="show module.qualname names")
    _reprs_argument(p)
    _filter_arguments(p, "print")
    _target_arguments(p, "printed")

    c = commands.add_parser("count", usage=usage, epilog=EPILOG, help="count calls per function",
                            description="Count the calls made by TARGET, per function, and print the table.")
    c.add_argument("-o", "--output", metavar="FILE", help="write the table to FILE ('-': standard output) instead "
                   "of standard error")
    c.add_argument("--types", type=builtin_types, metavar="T1,T2",
                   help="count only calls whose arguments are all instances of these builtin types, e.g. str,int")
    c.add_argument("--top", type=whole, default=30, metavar="N", help="show the N most called functions (default 30)")
    c.add_argument("--operators", action="store_true", help="count operators such as a * b as calls of operator.mul")
    c.add_argument("--via", choices=("engine", "monitoring", "profile"), default="engine",
                   help="engine (default): the calls a context sees; monitoring: sys.monitoring events (3.12+), "
                   "several times cheaper, and special methods called implicitly count too; profile: cProfile's "
                   "C profiler, at its cost on every version, calls of classes not seen (see CountCtx)")
    _target_arguments(c, "counted")

    t = commands.add_parser("trace", usage=usage, epilog=EPILOG, help="record the call tree to a Chrome trace file "
                            "(Perfetto, chrome://tracing, speedscope) or an HTML flame graph",
                            description="Record every call made by TARGET (callee, arguments, result or exception, "
                            "wall time) and stream it to a Chrome trace-event JSON file, or write it as a "
                            "self-contained HTML flame graph.")
    t.add_argument("-o", "--output", metavar="FILE",
                   help="the trace file to write (default: trace.json, or trace.html with --format html); it must "
                   "be a regular file, or /dev/null; a FILE ending in .html or .htm gets a flame graph")
    t.add_argument("--format", choices=TRACE_FORMATS,
                   help="chrome: a Chrome trace-event JSON file, streamed as the calls end; html: a self-contained "
                   "flame graph, written when the target ends (keeps the call tree in memory) "
                   "(default: html for a FILE ending in .html or .htm, else chrome)")
    t.add_argument("--tree", action="store_true", help="also print the call tree as indented text to standard error "
                   "(keeps the whole tree in memory)")
    t.add_argument("--limit", type=at_least(4), default=80, metavar="N",
                   help="characters per argument or result shown, at least 4 (default 80)")
    t.add_argument("--max-events", type=at_least(1), metavar="N",
                   help="keep only the last N calls in the trace file (a ring; the file is rewritten whole at "
                   "checkpoints); Chrome trace files only")
    t.add_argument("--receivers", action="store_true",
                   help="also show the object a method is bound to (self) of each call, as args.self in the trace "
                   "file; Chrome trace files only")
    t.add_argument("--no-values", dest="values", action="store_false",
                   help="write no arguments or results into the trace file (the type of a raised exception "
                   "stays): smaller files, written faster")
    _reprs_argument(t)
    _filter_arguments(t, "record")
    _target_arguments(t, "recorded")

    r = commands.add_parser("profile", usage=usage, epilog=EPILOG, help="count and time calls per function, as "
                            "cProfile does (pstats files)",
                            description="Count and time the calls made by TARGET, per function (own and cumulative "
                            "wall time, as cProfile measures them), and print the table; or write the profile in "
                            "cProfile's format, for pstats.")
    r.add_argument("-o", "--output", metavar="FILE",
                   help="write the table to FILE ('-': standard output) instead of standard error; a FILE ending in "
                   ".prof or .pstats gets the profile in cProfile's format, for pstats.Stats (the table then goes to "
                   "standard error)")
    r.add_argument("--format", choices=PROFILE_FORMATS,
                   help="text: the table; pstats: cProfile's format (default: pstats for a FILE ending in .prof or "
                   ".pstats, else text)")
    r.add_argument("--sort", choices=PROFILE_SORTS, default="cumulative",
                   help="order of the table, largest first: cumulative time (the default), own time (tottime), "
                   "calls, or name (alphabetical)")
    r.add_argument("--top", type=whole, default=30, metavar="N", help="show the first N functions (default 30)")
    r.add_argument("--types", type=builtin_types, metavar="T1,T2",
                   help="count only calls whose arguments are all instances of these builtin types, e.g. str,int")
    r.add_argument("--operators", action="store_true", help="count operators such as a * b as calls of operator.mul")
    _target_arguments(r, "counted")
    return parser


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The parsers of the commands, by name."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices
    return {}


def split_argv(parser: argparse.ArgumentParser, argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """``(argv for argparse, the target's own arguments)``.

    The options end at TARGET (or at ``-m MODULE``, or after ``--``), as python's own do;
    what follows goes to the target untouched (argparse would drop a ``--`` from it).
    """
    argv = list(argv)
    if not argv or argv[0] not in subparsers(parser):
        return argv, []
    sub = subparsers(parser)[argv[0]]
    table = sub._option_string_actions
    i = 1
    while i < len(argv):
        token = argv[i]
        if token == "--":
            if i + 1 < len(argv):
                return argv[:i] + ["--", argv[i + 1]], argv[i + 2:]
            return argv[:i], []
        if token == "-m":
            return argv[:i + 2], argv[i + 2:]
        if token.startswith("-m") and not token.startswith("--"):
            return argv[:i] + ["-m", token[2:]], argv[i + 1:]
        if token == "-" or not token.startswith("-"):
            return argv[:i + 1], argv[i + 1:]
        if token.startswith("--"):
            name = token.partition("=")[0]
            action = table.get(name)
            if action is None:
                matches = {a for s, a in table.items() if s.startswith(name) and s.startswith("--")}
                action = matches.pop() if len(matches) == 1 else None
            takes_value = action is not None and action.nargs != 0 and "=" not in token
        else:  # -o FILE, -oFILE
            action = table.get(token[:2])
            takes_value = action is not None and action.nargs != 0 and len(token) == 2
        i += 2 if takes_value else 1
    return argv, []


def parse_command_line(argv: Sequence[str], prog: str = PROG) -> tuple[argparse.Namespace, list[str]]:
    """``(the parsed options, the target's arguments)`` of ``argv`` (without the program's name).

    Raises ``UsageError`` for a bad command line. ``trace``'s ``-o`` and ``--format``, and
    ``profile``'s ``--format``, are filled in: ``ns.output`` is the trace file's path and
    ``ns.format`` the format chosen (by the option, else by the file's suffix).
    """
    parser = build_parser(prog)
    head, rest = split_argv(parser, argv)
    ns = parser.parse_args(head)
    if ns.command == "trace":
        if ns.output is None:
            ns.output = "trace.html" if ns.format == "html" else "trace.json"
        if ns.format is None:
            ns.format = "html" if ns.output.lower().endswith(HTML_SUFFIXES) else "chrome"
    elif ns.command == "profile" and ns.format is None:
        ns.format = "pstats" if ns.output is not None and ns.output.lower().endswith(PSTATS_SUFFIXES) else "text"
    return ns, list(ns.args) + rest
