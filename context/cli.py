"""The command line: ``python -m context print|count|trace [OPTIONS] TARGET [ARGS...]``, or ``pycassette ...``.

Runs TARGET under one of the ready-made contexts and reports what it saw. TARGET is

- ``SCRIPT``: a file of Python code, run as ``python SCRIPT ARGS...`` runs it;
- ``DIR`` or ``ZIP``: a directory or zip file holding ``__main__.py``, as ``python DIR ARGS...``;
- ``-m MODULE``: a module run as ``__main__``, as ``python -m MODULE ARGS...``;
- ``MODULE:FUNCTION``: ``FUNCTION(*ARGS, **KW)`` after importing MODULE; ``-k NAME=VALUE``
  (repeatable, before TARGET) gives the keyword arguments.

Everything is checked before the target runs and before any output file is opened: a bad
command line prints one line to standard error and gives exit status 2. Otherwise the
exit status is the target's own. ``main(argv)`` is the entry point; it returns the status.
"""

import argparse
import ast
import builtins
import contextlib
import importlib
import importlib.machinery
import inspect
import os
import runpy
import stat
import sys
import tempfile
import threading
import time
import types
import zipfile

from .api import overdub

PROG = "python -m context"  # how error messages name the command (``pycassette`` from the console script)
CONSOLE_PROG = "pycassette"
PROGRESS_INTERVAL = 1.0  # seconds between two progress lines
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_TARGET_FORMS = "a script (file.py), a directory or zip file with __main__.py, -m MODULE, or MODULE:FUNCTION"


class UsageError(Exception):
    """A bad command line: reported in one line, exit status 2."""


class _OutputFailed(Exception):
    """The output file, checked before, could not be opened after all (it changed since)."""


class _ImportFailed(Exception):
    """The target's module raised while being imported (not an ImportError): its traceback, exit status 1."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError("%s: %s (see %s --help)" % (self.prog, message, self.prog))


# -- option values ---------------------------------------------------------------------------


def _whole(text):
    return _at_least(0)(text)


def _at_least(low):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError("expected a whole number >= %d, got %r" % (low, text)) from None
        if value < low:
            raise argparse.ArgumentTypeError("expected a whole number >= %d, got %r" % (low, text))
        return value

    return parse


def _types(text):
    found = []
    for name in text.split(","):
        name = name.strip()
        kind = getattr(builtins, name, None)
        if not isinstance(kind, type):
            raise argparse.ArgumentTypeError("%r is not a builtin type (use names such as int,str,float)" % name)
        found.append(kind)
    return tuple(found)


def _keyword(text):
    name, equals, value = text.partition("=")
    if not equals or not name.isidentifier():
        raise argparse.ArgumentTypeError("expected NAME=VALUE with NAME a Python identifier, got %r" % text)
    return name, value


def _literal(text):
    """``text`` as a Python literal if it parses as one (42, 1.5, [1, 2], 'x', None), else the string itself."""
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return text


# -- the parser ------------------------------------------------------------------------------

_EPILOG = (
    "TARGET is a script (file.py), a directory or zip file with __main__.py (run as python runs them), "
    "-m MODULE (run as __main__, as python -m MODULE does), or MODULE:FUNCTION (called with ARGS, each a Python "
    "literal if it parses as one, else a string, and with -k NAME=VALUE keyword arguments). Options come before "
    "TARGET; everything after TARGET goes to the target, as it is. Exit status: the target's (0 when it returns, "
    "1 when it raises, its own for SystemExit); 2 for a bad command line, which is checked before the target "
    "runs and before any output file is opened."
)


def _target_arguments(parser, what):
    parser.add_argument("-k", "--kw", action="append", type=_keyword, metavar="NAME=VALUE", default=[],
                        help="a keyword argument for a MODULE:FUNCTION target (repeatable); VALUE is read as ARGS are")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="show a progress line (calls %s, seconds) on standard error while the target runs "
                        "(default: when standard error is a terminal%s)"
                        % (what, ", and the calls do not go there" if what == "printed" else ""))
    parser.add_argument("-m", dest="module", metavar="MODULE",
                        help="run MODULE as __main__, as python -m MODULE does; it must come last: what follows "
                        "goes to the module")
    parser.add_argument("target", nargs="?", metavar="TARGET", help=_TARGET_FORMS)
    parser.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS",
                        help="arguments for the target: its sys.argv[1:], or the function's positional arguments")


def _filter_arguments(parser, what):
    parser.add_argument("--depth", type=_whole, metavar="N", help="%s only calls at most N levels below the top one "
                        "(0: the target alone); deeper calls run natively" % what)
    parser.add_argument("--include", action="append", metavar="PATTERN",
                        help="%s only callees whose qualified name matches PATTERN: a glob such as 'tomllib.*', or a "
                        "dotted prefix such as 'tomllib' (repeatable)" % what)
    parser.add_argument("--exclude", action="append", metavar="PATTERN",
                        help="leave out callees matching PATTERN (repeatable; applies after --include)")
    parser.add_argument("--operators", action="store_true", help="see operators such as a * b as calls of operator.mul")


def build_parser(prog=PROG):
    """The argument parser of the command line (``prog`` names it in messages)."""
    parser = _Parser(prog=prog, description="Run a Python script, module or function under one of pycassette's "
                     "ready-made contexts (print, count, trace: Perfetto, chrome://tracing, speedscope).",
                     epilog=_EPILOG)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    usage = "%(prog)s [OPTIONS] (SCRIPT | DIR | -m MODULE | MODULE:FUNCTION) [ARGS...]"

    p = commands.add_parser("print", usage=usage, epilog=_EPILOG,
                            help="print each call with its arguments, indented by depth",
                            description="Print each call made by TARGET with its arguments, indented by depth.")
    p.add_argument("-o", "--output", metavar="FILE", help="write the calls to FILE ('-': standard output) instead "
                   "of standard error")
    p.add_argument("--results", action="store_true", help="also show what each call returned or raised")
    p.add_argument("--qualified", action="store_true", help="show module.qualname names")
    _filter_arguments(p, "print")
    _target_arguments(p, "printed")

    c = commands.add_parser("count", usage=usage, epilog=_EPILOG, help="count calls per function",
                            description="Count the calls made by TARGET, per function, and print the table.")
    c.add_argument("-o", "--output", metavar="FILE", help="write the table to FILE ('-': standard output) instead "
                   "of standard error")
    c.add_argument("--types", type=_types, metavar="T1,T2",
                   help="count only calls whose arguments are all instances of these builtin types, e.g. str,int")
    c.add_argument("--top", type=_whole, default=30, metavar="N", help="show the N most called functions (default 30)")
    c.add_argument("--operators", action="store_true", help="count operators such as a * b as calls of operator.mul")
    _target_arguments(c, "counted")

    t = commands.add_parser("trace", usage=usage, epilog=_EPILOG, help="record the call tree to a Chrome trace file "
                            "(Perfetto, chrome://tracing, speedscope)", description="Record every call made by TARGET "
                            "(callee, arguments, result or exception, wall time) and stream it to a Chrome trace-event "
                            "JSON file.")
    t.add_argument("-o", "--output", metavar="FILE", default="trace.json",
                   help="the trace file to write (default: trace.json); it must be a regular file, or /dev/null")
    t.add_argument("--tree", action="store_true", help="also print the call tree as indented text to standard error "
                   "(keeps the whole tree in memory)")
    t.add_argument("--limit", type=_at_least(4), default=80, metavar="N",
                   help="characters per argument or result shown, at least 4 (default 80)")
    _filter_arguments(t, "record")
    _target_arguments(t, "recorded")
    return parser


def _subparsers(parser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices
    return {}


def _split_argv(parser, argv):
    """``(argv for argparse, the target's own arguments)``.

    The options end at TARGET (or at ``-m MODULE``, or after ``--``), as python's own do;
    what follows goes to the target untouched (argparse would drop a ``--`` from it).
    """
    if not argv or argv[0] not in _subparsers(parser):
        return argv, []
    sub = _subparsers(parser)[argv[0]]
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


# -- the target ------------------------------------------------------------------------------


class Target:
    """What to run: ``function(*args, **kwargs)`` under the context, and how to set up the process for it.

    ``kind`` is "script", "dir", "module" or "function"; ``argv`` becomes ``sys.argv`` for the
    run; ``path0`` (if not None) becomes ``sys.path[0]``; ``main`` (if not None) is the fresh
    ``__main__`` module the code runs in.
    """

    def __init__(self, kind, function, args=(), kwargs=None, argv=None, path0=None, main=None):
        self.kind = kind
        self.function = function
        self.args = tuple(args)
        self.kwargs = dict(kwargs or {})
        self.argv = list(argv or [])
        self.path0 = path0
        self.main = main


def _main_module(code, **attributes):
    """A fresh ``__main__`` module to run ``code`` in, and the function that runs it there."""
    module = types.ModuleType("__main__")
    module.__dict__.update(attributes, __builtins__=builtins)
    return module, types.FunctionType(code, module.__dict__, "<module>")


def _script_target(prog, path, args):
    if not os.path.isfile(path):
        raise UsageError("%s: no such script: %s" % (prog, path))
    full = path if os.path.isabs(path) else os.path.join(os.getcwd(), path)  # as python sets __file__
    if zipfile.is_zipfile(full) and not path.endswith(".py"):
        return _main_of(prog, path, full, args, "zip file")
    try:
        with open(full, "rb") as handle:
            source = handle.read()
    except OSError as exc:
        raise UsageError("%s: cannot read %s: %s" % (prog, path, exc.strerror or exc)) from None
    try:
        code = compile(source, full, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        raise UsageError("%s: cannot compile %s: %s" % (prog, path, exc)) from None
    module, function = _main_module(code, __file__=full, __cached__=None, __package__=None, __spec__=None,
                                    __loader__=importlib.machinery.SourceFileLoader("__main__", full))
    return Target("script", function, argv=[path, *args], path0=os.path.dirname(os.path.realpath(full)), main=module)


def _main_of(prog, path, full, args, what):
    """The ``__main__`` module of a directory or zip file, run as ``python DIR`` runs it."""
    folder = os.path.abspath(full)
    spec = importlib.machinery.PathFinder.find_spec("__main__", [folder])
    if spec is None or spec.loader is None:
        raise UsageError("%s: can't find '__main__' module in %r: give a %s holding __main__.py" % (prog, path, what))
    try:
        code = spec.loader.get_code("__main__")
    except (ImportError, SyntaxError, ValueError) as exc:
        raise UsageError("%s: cannot compile %s: %s" % (prog, spec.origin, exc)) from None
    module, function = _main_module(code, __file__=spec.origin, __cached__=spec.cached, __package__="",
                                    __spec__=spec, __loader__=spec.loader)
    return Target("dir", function, argv=[path, *args], path0=folder, main=module)


def _module_target(prog, name, args):
    if not name:
        raise UsageError("%s: -m needs a module name, as python -m does" % prog)
    try:  # what ``python -m`` does: imports the parent packages, finds pkg.__main__ for a package
        name, spec, code = runpy._get_module_details(name)
    except ImportError as exc:
        raise UsageError("%s: cannot run module %r: %s" % (prog, name, exc)) from None
    except SyntaxError as exc:
        raise UsageError("%s: cannot compile module %r: %s" % (prog, name, exc)) from None
    except Exception as exc:
        raise _ImportFailed(exc) from None
    module, function = _main_module(code, __file__=spec.origin, __cached__=spec.cached if spec.has_location else None,
                                    __package__=spec.parent, __spec__=spec, __loader__=spec.loader)
    return Target("module", function, argv=[spec.origin, *args], main=module)


def _function_target(prog, spec, args, keywords):
    module_name, _, qualname = spec.partition(":")
    if not module_name or not qualname:
        raise UsageError("%s: TARGET must be %s; got %r" % (prog, _TARGET_FORMS, spec))
    try:  # ``python -m context`` already put the working directory first on sys.path
        obj = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError("%s: cannot import module %r: %s" % (prog, module_name, exc)) from None
    except SyntaxError as exc:
        raise UsageError("%s: cannot compile module %r: %s" % (prog, module_name, exc)) from None
    except Exception as exc:
        raise _ImportFailed(exc) from None
    for part in qualname.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise UsageError("%s: module %r has no attribute %r" % (prog, module_name, qualname)) from None
    if not callable(obj):
        raise UsageError("%s: %s is not callable (a %s); TARGET must name a function"
                         % (prog, spec, type(obj).__name__))
    values = tuple(_literal(a) for a in args)
    kwargs = {name: _literal(value) for name, value in keywords}
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):  # no signature to check against (some builtins)
        signature = None
    if signature is not None:
        try:
            signature.bind(*values, **kwargs)
        except TypeError as exc:
            raise UsageError("%s: cannot call %s%s with these arguments: %s" % (prog, spec, signature, exc)) from None
    return Target("function", obj, values, kwargs, argv=[spec, *args])


def load_target(ns, args, prog=PROG):
    """The ``Target`` the parsed command line ``ns`` names, with ``args`` its own arguments.

    Checks everything it can without running the target (a module of a ``MODULE:FUNCTION``
    target is imported); raises ``UsageError`` naming what is wrong.
    """
    if ns.kw and (ns.module is not None or ns.target is None or ":" not in ns.target or os.path.exists(ns.target)):
        raise UsageError("%s: -k/--kw gives keyword arguments to a MODULE:FUNCTION target only" % prog)
    if ns.module is not None:
        return _module_target(prog, ns.module, args)
    spec = ns.target
    if spec is None:
        raise UsageError("%s %s: missing TARGET: %s (see %s %s --help)"
                         % (prog, ns.command, _TARGET_FORMS, prog, ns.command))
    if os.path.isdir(spec):
        return _main_of(prog, spec, spec, args, "directory")
    if os.path.isfile(spec) or spec.endswith((".py", ".pyw", ".pyz")):
        return _script_target(prog, spec, args)
    if ":" in spec:
        return _function_target(prog, spec, args, ns.kw)
    hint = ""
    if all(part.isidentifier() for part in spec.split(".")):
        hint = " (to run the module %s use -m %s; to call one of its functions, %s:FUNCTION)" % (spec, spec, spec)
    raise UsageError("%s: TARGET must be %s; got %r%s" % (prog, _TARGET_FORMS, spec, hint))


# -- output files ----------------------------------------------------------------------------

STDOUT = "-"


def check_output(prog, path, *, seekable=False):
    """Where an ``-o`` file goes, checked without opening or truncating it.

    Returns ``"-"`` for standard output, ``os.devnull`` for the null device, else the
    absolute path. ``seekable``: the file is rewritten in place (a trace file), so it must be
    a regular file (or the null device). Raises ``UsageError`` naming what is wrong.
    """
    if path == STDOUT:
        if seekable:
            raise UsageError("%s: the trace file cannot be standard output (-o -): it is rewritten in place as the "
                             "run goes; give a file path" % prog)
        return STDOUT
    full = os.path.abspath(path)
    try:
        info = os.stat(full)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise UsageError("%s: cannot write %s: %s" % (prog, path, exc.strerror or exc)) from None
    if info is None:
        folder = os.path.dirname(full)
        if not os.path.isdir(folder):
            raise UsageError("%s: cannot write %s: the directory %s does not exist; create it or give another path"
                             % (prog, path, folder))
        if not os.access(folder, os.W_OK | os.X_OK):
            raise UsageError("%s: cannot write %s: no permission to create files in %s" % (prog, path, folder))
        return full
    if stat.S_ISDIR(info.st_mode):
        raise UsageError("%s: cannot write %s: it is a directory; give a file path" % (prog, path))
    null = os.stat(os.devnull)
    if (info.st_dev, info.st_ino) == (null.st_dev, null.st_ino):
        return os.devnull
    if not stat.S_ISREG(info.st_mode):
        if seekable:
            raise UsageError("%s: cannot write the trace file to %s: it is not a regular file (a pipe or a "
                             "device), and the trace file is rewritten in place as the run goes; give a file path"
                             % (prog, path))
        if not os.access(full, os.W_OK):
            raise UsageError("%s: cannot write %s: permission denied" % (prog, path))
        return full
    try:  # opened for appending and closed at once: the file is not changed
        os.close(os.open(full, os.O_WRONLY | os.O_APPEND))
    except OSError as exc:
        raise UsageError("%s: cannot write %s: %s" % (prog, path, exc.strerror or exc)) from None
    return full


def _fds_of(path):
    """The file descriptors (above 2) open on the regular file ``path``."""
    try:
        info = os.stat(path)
    except OSError:
        return []
    if not stat.S_ISREG(info.st_mode):
        return []
    try:
        candidates = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        candidates = range(3, 1024)
    found = []
    for fd in candidates:
        if fd <= 2:
            continue
        try:
            other = os.fstat(fd)
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == (info.st_dev, info.st_ino):
            found.append(fd)
    return found


# -- progress --------------------------------------------------------------------------------


def format_progress(calls, seconds, prog=CONSOLE_PROG):
    """The progress line: ``pycassette: 1.2 M calls, 3 s``."""
    if calls >= 1_000_000:
        count = "%.1f M" % (calls / 1e6)
    elif calls >= 10_000:
        count = "%.1f k" % (calls / 1e3)
    else:
        count = "%d" % calls
    return "%s: %s calls, %d s" % (prog, count, seconds)


class Progress:
    """A progress line on a terminal, rewritten in place (``\\r``) at most once per ``interval`` seconds.

    ``calls()`` gives the number of calls so far, ``write(text)`` shows text and ``clock()``
    reads the time in seconds. ``tick()`` rewrites the line if an interval has passed since
    the last one (the first comes one interval after the start); ``finish()`` clears it.
    ``start()`` runs ``tick`` from a daemon thread until ``stop()``.
    """

    def __init__(self, calls, write, *, clock=time.monotonic, interval=1.0, prog=CONSOLE_PROG):
        self.calls = calls
        self.write = write
        self.clock = clock
        self.interval = interval
        self.prog = prog
        self.t0 = clock()
        self.next = self.t0 + interval
        self.width = 0  # of the line shown, 0: none
        self._thread = None
        self._stop = threading.Event()

    def tick(self):
        now = self.clock()
        if now < self.next:
            return False
        self.next = now + self.interval
        line = format_progress(self.calls(), now - self.t0, self.prog)
        self.write("\r" + line.ljust(self.width))
        self.width = max(self.width, len(line))
        return True

    def finish(self):
        if self.width:
            self.write("\r" + " " * self.width + "\r")
            self.width = 0

    def _loop(self):
        wait = min(0.25, self.interval)
        while not self._stop.wait(wait):
            try:
                self.tick()
            except Exception:  # a closed standard error: no more progress
                return

    def start(self):
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._loop, name="pycassette-progress", daemon=True)
            self._thread.start()

    def stop(self):
        thread, self._thread = self._thread, None
        if thread is not None:
            self._stop.set()
            thread.join()
            _wait_until_gone(thread.native_id)


def _wait_until_gone(native_id, timeout=0.1):
    """Wait (on Linux, briefly) until the thread ``native_id`` has left the process, not only Python: a fork
    made at once then sees one thread fewer (and Python 3.12+ warns of no thread that is not there)."""
    task = "/proc/self/task/%d" % native_id
    deadline = time.monotonic() + timeout
    while os.path.exists(task) and time.monotonic() < deadline:
        time.sleep(0.0002)


def _stderr_writer():
    try:
        fd = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        return None

    def write(text):
        os.write(fd, text.encode("utf-8", "replace"))  # unbuffered: no lock shared with the target's writes

    return write


def _stderr_is_terminal():
    try:
        return sys.stderr.isatty()
    except (AttributeError, OSError, ValueError):
        return False


# -- one run, and forks inside it ------------------------------------------------------------

_RUN = None  # the run under way in this process, if any
_fork_hooks = []  # registered once per process
_sinks = []  # a forked child's stand-ins for the output files, kept open


class _Run:
    """Bookkeeping of one run: the progress line, and what a forked child must not do."""

    def __init__(self):
        self.child = False  # this process is a child forked during the run: it reports nothing
        self.progress = None
        self.paths = []  # output files the child must not write into
        self.on_fork = []

    def before_fork(self):
        if self.progress is not None:
            self.progress.stop()

    def after_fork_in_parent(self):
        if self.progress is not None and not self.child:
            self.progress.start()

    def after_fork_in_child(self):
        self.child = True
        if self.progress is not None:  # its thread did not come along
            self.progress._thread = None
            self.progress = None
        for callback in self.on_fork:
            callback()
        fds = [fd for path in self.paths for fd in _fds_of(path)]
        if fds:  # what the child writes there, now or when its buffers are flushed at exit, goes nowhere
            sink = tempfile.TemporaryFile()
            for fd in fds:
                os.dup2(sink.fileno(), fd)
            _sinks.append(sink)


def _before_fork():
    if _RUN is not None:
        _RUN.before_fork()


def _after_fork_in_parent():
    if _RUN is not None:
        _RUN.after_fork_in_parent()


def _after_fork_in_child():
    if _RUN is not None:
        _RUN.after_fork_in_child()


def _register_fork_hooks():
    if not _fork_hooks and hasattr(os, "register_at_fork"):
        os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent,
                            after_in_child=_after_fork_in_child)
        _fork_hooks.append(True)


_IMPORT_MACHINERY = (os.path.dirname(importlib.__file__) + os.sep, runpy.__file__, "<frozen importlib")


def _own_frames_removed(exc):
    """``exc``'s traceback without its leading entries in this package (the command line, ``overdub``) and in
    the import machinery that imported the target's module.

    None when the target has no frame of its own in it (a builtin function that raised).
    """
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename.startswith((_PACKAGE_DIR,) + _IMPORT_MACHINERY):
        tb = tb.tb_next
    return tb


@contextlib.contextmanager
def _target_process(target):
    """The process set up as the target expects it (``sys.argv``, ``sys.path[0]``, ``__main__``), then restored."""
    saved_argv, saved_argv_items = sys.argv, list(sys.argv)
    saved_path = list(sys.path)
    saved_main = sys.modules.get("__main__")
    sys.argv = list(target.argv)
    if target.path0 is not None:
        if sys.path:
            sys.path[0] = target.path0
        else:
            sys.path.append(target.path0)
    if target.main is not None:
        sys.modules["__main__"] = target.main
    try:
        yield
    finally:
        if target.main is not None:
            if saved_main is None:
                sys.modules.pop("__main__", None)
            else:
                sys.modules["__main__"] = saved_main
        sys.path[:] = saved_path
        saved_argv[:] = saved_argv_items
        sys.argv = saved_argv


def _show_exception(exc):
    """Print ``exc`` as python prints an uncaught exception, with the target's frames only."""
    exc.__traceback__ = tb = _own_frames_removed(exc)
    try:
        sys.excepthook(type(exc), exc, tb)
    except Exception:
        import traceback

        traceback.print_exception(type(exc), exc, tb)


def _execute(ctx, target, run):
    """Run the target under ``ctx``; returns its exit status as python gives it, printing its traceback if it raised."""
    try:
        result = overdub(ctx, target.function, *target.args, **target.kwargs)
    except SystemExit as exc:
        code = exc.code
        if code is None or isinstance(code, int):
            return code or 0
        print(code, file=sys.stderr)
        return 1
    except BaseException as exc:
        _show_exception(exc)
        return 130 if isinstance(exc, KeyboardInterrupt) else 1
    if target.kind == "function" and result is not None and not run.child:
        print(repr(result))
    return 0


# -- the commands ----------------------------------------------------------------------------


def _filters(ns):
    return dict(max_depth=ns.depth, include=ns.include, exclude=ns.exclude, operators=ns.operators)


class _Lines:
    """Where ``PrintCtx`` writes its lines: a stream, counted (for progress), silent in a forked child."""

    def __init__(self, stream):
        self.stream = stream
        self.lines = 0
        self.on = True

    def __call__(self, line):
        if self.on:
            self.stream.write(line + "\n")
            self.lines += 1


def _context_for(ns, prog):
    """The command's context, built without any file (so its checks of the options run first)."""
    from .ready.counting import CountCtx
    from .ready.printing import PrintCtx
    from .ready.tracing import TraceCtx

    try:
        if ns.command == "print":
            return PrintCtx(None, results=ns.results, qualified=ns.qualified, **_filters(ns))
        if ns.command == "count":
            return CountCtx(ns.types, operators=ns.operators)
        return TraceCtx(None, keep=False, limit=ns.limit, **_filters(ns))
    except (TypeError, ValueError) as exc:
        raise UsageError("%s %s: %s" % (prog, ns.command, exc)) from None


def _prepare(argv, prog):
    parser = build_parser(prog)
    argv = list(sys.argv[1:] if argv is None else argv)
    head, rest = _split_argv(parser, argv)
    ns = parser.parse_args(head)
    args = list(ns.args) + rest
    _context_for(ns, prog)
    output = check_output(prog, ns.output, seekable=ns.command == "trace") if ns.output is not None else None
    target = load_target(ns, args, prog)
    return ns, output, target


def main(argv=None, prog=PROG):
    """The command line's entry point: runs ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    global _RUN

    try:
        ns, output, target = _prepare(argv, prog)
    except UsageError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except _ImportFailed as failed:
        _show_exception(failed.args[0])
        return 1
    _register_fork_hooks()
    run = _Run()
    outer, _RUN = _RUN, run
    try:
        with _target_process(target):  # the trace file names the process after sys.argv[0]
            return _command(ns, output, target, run, prog)
    except _OutputFailed as failed:
        print("%s: cannot write %s: %s" % (prog, ns.output, failed.args[0].strerror or failed.args[0]), file=sys.stderr)
        return 2
    finally:
        _RUN = outer


def _start_progress(ns, run, calls, default):
    wanted = ns.progress if ns.progress is not None else default and _stderr_is_terminal()
    write = _stderr_writer() if wanted else None
    if write is not None:
        run.progress = Progress(calls, write, interval=PROGRESS_INTERVAL)
        run.progress.start()


def _stop_progress(run):
    progress, run.progress = run.progress, None
    if progress is not None:
        progress.stop()
        progress.finish()


def _open(output):
    try:
        return open(output, "w", encoding="utf-8", errors="backslashreplace")
    except OSError as exc:
        raise _OutputFailed(exc) from None


def _command(ns, output, target, run, prog):
    from .ready.counting import CountCtx
    from .ready.printing import PrintCtx
    from .ready.tracing import TraceCtx

    if ns.command == "print":
        if output is None:
            stream = sys.stderr
        elif output == STDOUT:
            stream = sys.stdout
        else:
            stream = _open(output)
            run.paths.append(output)
        lines = _Lines(stream)
        run.on_fork.append(lambda: setattr(lines, "on", False))
        ctx = PrintCtx(lines, results=ns.results, qualified=ns.qualified, **_filters(ns))
        _start_progress(ns, run, lambda: lines.lines, default=output not in (None, STDOUT))
        try:
            status = _execute(ctx, target, run)
        finally:
            _stop_progress(run)
            if stream not in (sys.stderr, sys.stdout) and not run.child:
                stream.close()
            elif not run.child:
                stream.flush()
        return status

    if ns.command == "count":
        out = None
        if output == STDOUT:
            out = sys.stdout
        elif output is not None:
            out = _open(output)
            run.paths.append(output)
        ctx = CountCtx(ns.types, operators=ns.operators)
        _start_progress(ns, run, lambda: ctx.total, default=True)
        try:
            status = _execute(ctx, target, run)
        finally:
            _stop_progress(run)
        if run.child:
            return status
        table = ctx.table(ns.top)
        if out is None:
            print(table, file=sys.stderr)
        elif out is sys.stdout:
            print(table, file=out)
            out.flush()
        else:
            with out:
                print(table, file=out)
        return status

    nowhere = output == os.devnull
    try:
        ctx = TraceCtx(None if nowhere else output, keep=ns.tree, limit=ns.limit, **_filters(ns))
    except OSError as exc:
        raise _OutputFailed(exc) from None
    if not nowhere:
        run.paths.append(output)
    _start_progress(ns, run, lambda: ctx.calls, default=True)
    try:
        status = _execute(ctx, target, run)
    finally:
        _stop_progress(run)
        if not run.child:
            ctx.close()
    if run.child:
        return status
    if ns.tree:
        print(ctx.render(), file=sys.stderr)
    if nowhere:
        print("%s: %d calls recorded (-o %s: no trace file written)" % (prog, ctx.calls, ns.output), file=sys.stderr)
    else:
        print("%s: %d calls recorded in %s (open it in https://ui.perfetto.dev, chrome://tracing or "
              "https://www.speedscope.app)" % (prog, ctx.calls, ns.output), file=sys.stderr)
    return status


def console():
    """The ``pycassette`` console script: ``main()`` with the working directory first on ``sys.path``, as
    ``python -m context`` has it, and the exit status passed on."""
    if sys.path and not getattr(sys.flags, "safe_path", False):
        sys.path[0] = os.getcwd()  # not the directory of the console script
    sys.exit(main(prog=CONSOLE_PROG))
