"""IPython and Jupyter magics: run a line or a cell under one of pycassette's ready-made contexts.

Load with ``%load_ext context.ipython`` (or ``%load_ext context``, which calls this module's
``load_ipython_extension``). Line and cell magics:

- ``%trace STATEMENT`` / ``%%trace [OPTIONS]``: runs the code under ``TraceCtx`` and prints the
  call tree; ``-o FILE`` also writes the calls to FILE (a Chrome trace, or an HTML flame graph
  for ``.html``), ``--depth N``, ``--include PATTERN``, ``--exclude PATTERN``, ``--operators``,
  ``--limit N``, ``-q`` (no tree).
- ``%count STATEMENT`` / ``%%count [OPTIONS]``: runs it under ``CountCtx`` and prints the most
  called functions; ``--top N`` (default 20), ``--operators``.
- ``%print STATEMENT`` / ``%%print [OPTIONS]``: runs it under ``PrintCtx``, printing each call;
  ``--results``, ``--depth N``, ``--include``, ``--exclude``, ``--operators``, ``--limit N``.

The code runs as IPython runs a cell: in the user namespace (what it assigns lands there), after
IPython's input transformations (``%magic`` and ``!shell`` lines inside work), and the value of
a last expression is the magic's value, shown as ``Out[N]`` (a trailing ``;`` hides it). It is
compiled into a function of the user namespace, as ``python -m context`` makes one of a
script's module code (``context.cli.module_code_function``), so the engine can rewrite it;
the calls it makes are what the magics show (the cell's own frame is not shown as a call).
An exception in the code shows its traceback with the user's frames only, after the calls
made until then.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import ast
import inspect
import os
import re
import shlex
import sys

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class, no_var_expand

try:
    from IPython.core.magic import output_can_be_silenced
except ImportError:  # IPython < 8.12: a trailing ';' does not hide the value
    def output_can_be_silenced(f):
        return f

from .api import overdub
from .cli import module_code_function
from .cli.running import own_frames_removed

DEFAULT_TOP = 20
_VALUE = "__pycassette_cell_value__"  # where the last expression's value is put, for the time of the run


# -- the code of a cell, as a function -------------------------------------------------------


class CellCode:
    """The code of a cell (or of a line magic's statement), compiled into a function of the user namespace.

    ``shell`` is the IPython shell; ``source`` is transformed as IPython transforms a cell
    (``%magic``, ``!cmd``, its AST transformers) and cached in ``linecache`` under a cell name,
    so tracebacks show its lines as ``Cell In[number]`` (default: the shell's execution count).
    ``run(ctx)`` runs it under ``ctx`` and returns the value of its last statement if that is
    an expression, else None. ``is_top(f)`` tells the function itself, for the contexts to leave it out.
    """

    def __init__(self, shell, source, number=None):
        self.shell = shell
        text = shell.transform_cell(source)
        number = shell.execution_count if number is None else number
        filename = shell.compile.cache(text, number, raw_code=source)
        tree = shell.compile.ast_parse(text, filename=filename)
        tree = shell.transform_ast(tree)
        self.has_value = bool(tree.body) and isinstance(tree.body[-1], ast.Expr)
        if self.has_value:  # ``expr`` -> ``__pycassette_cell_value__ = expr``: module code cannot return it
            last = tree.body[-1]
            target = ast.copy_location(ast.Name(id=_VALUE, ctx=ast.Store()), last)
            tree.body[-1] = ast.copy_location(ast.Assign(targets=[target], value=last.value), last)
            ast.fix_missing_locations(tree)
        try:
            code = shell.compile(tree, filename, "exec")  # with the __future__ flags of earlier cells
        except SyntaxError:
            if _awaits(shell, tree, filename):
                raise UsageError("top-level await cannot run under a context: the code would run in IPython's "
                                 "event loop, outside it. Put it in an async function and run that with "
                                 "asyncio.run(...) inside the cell instead") from None
            raise
        self.user_ns = shell.user_ns
        if shell.user_ns is shell.user_global_ns:
            self.namespace = shell.user_ns
        else:  # an embedded shell: the code sees both, what it assigns goes to user_ns (see run)
            self.namespace = dict(shell.user_global_ns)
            self.namespace.update(shell.user_ns)
        # As the command line runs a script's module code: a function that runs it in the
        # namespace, as ``exec(code, namespace)`` would, so what it assigns lands there.
        self.function = module_code_function(code, self.namespace)
        self.function.__name__ = self.function.__qualname__ = "<cell>"

    def is_top(self, f):
        return f is self.function

    def run(self, ctx):
        """Run the code under ``ctx``; the value of its last expression, or None."""
        __tracebackhide__ = True
        namespace = self.namespace
        before = None if namespace is self.user_ns else dict(namespace)
        try:
            overdub(ctx, self.function)
        except BaseException as exc:
            tb = own_frames_removed(exc)  # the magic's and the engine's frames: the user's only
            if tb is not None:
                exc.__traceback__ = tb
            raise
        finally:
            value = namespace.pop(_VALUE, None)
            if before is not None:
                _write_back(before, namespace, self.user_ns)
        return value if self.has_value else None


def _awaits(shell, tree, filename):
    """Whether the code compiles, as IPython would run it, only as a coroutine (a top-level ``await``)."""
    try:
        code = compile(tree, filename, "exec", shell.compile.flags | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, True)
    except SyntaxError:
        return False
    return bool(code.co_flags & inspect.CO_COROUTINE)


def _write_back(before, namespace, user_ns):
    """What the code assigned or deleted in ``namespace`` (a copy), done in ``user_ns`` too."""
    for name, value in namespace.items():
        if name not in before or before[name] is not value:
            user_ns[name] = value
    for name in before:
        if name not in namespace:
            user_ns.pop(name, None)


# -- options ---------------------------------------------------------------------------------

_TOKEN = re.compile(r"""\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\S+)""")


def _whole(low):
    def convert(option, text):
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low:
            raise UsageError("%s: expected a whole number >= %d, got %r" % (option, low, text))
        return value

    return convert


class _Options:
    """The options of a magic: ``{option string: (name, kind)}``, kind "flag", "list" or a converter."""

    def __init__(self, magic, table):
        self.magic = magic
        self.table = {}
        self.names = {}
        for strings, name, kind in table:
            for s in strings.split():
                self.table[s] = (name, kind)
            self.names[name] = [] if kind == "list" else (False if kind == "flag" else None)

    def usage(self):
        return " ".join(sorted(self.table))

    def split(self, line):
        """``(options, the rest of the line)``: the options come first; ``--`` ends them."""
        values = dict((k, list(v) if isinstance(v, list) else v) for k, v in self.names.items())
        pos = 0
        while True:
            m = _TOKEN.match(line, pos)
            if m is None:
                return values, ""
            token = m.group(1)
            if token == "--":
                return values, line[m.end():].strip()
            if not token.startswith("-") or token == "-" or token[1:2].isdigit():
                return values, line[m.start(1):].strip()
            if token.startswith("--"):
                option, eq, value = token.partition("=")
            else:  # -o FILE, -oFILE
                option, value = token[:2], token[2:]
                eq = "=" if value else ""
            if option not in self.table:
                raise UsageError("%%%s: unknown option %s (options: %s; end them with -- before a statement that "
                                 "starts with -)" % (self.magic, option, self.usage()))
            name, kind = self.table[option]
            pos = m.end()
            if kind == "flag":
                if eq:
                    raise UsageError("%%%s: %s takes no value" % (self.magic, option))
                values[name] = True
                continue
            if not eq:
                m = _TOKEN.match(line, pos)
                if m is None:
                    raise UsageError("%%%s: %s needs a value" % (self.magic, option))
                value = m.group(1)
                pos = m.end()
            if value[:1] in "'\"":
                try:
                    (value,) = shlex.split(value)
                except ValueError:
                    raise UsageError("%%%s: %s: cannot read the value %s" % (self.magic, option, value)) from None
            if kind == "list":
                values[name].append(value)
            elif kind is str:
                values[name] = value
            else:
                values[name] = kind(option, value)

    def parse(self, line, cell):
        """``(options, code)`` of a line magic (options, then the statement) or a cell magic (options only)."""
        values, rest = self.split(line)
        if cell is None:
            if not rest.strip():
                raise UsageError("%%%s needs a statement to run: %%%s STATEMENT, or %%%%%s on the first line of a cell"
                                 % (self.magic, self.magic, self.magic))
            return values, rest
        if rest.strip():
            raise UsageError("%%%%%s takes options only on its first line (the code goes below it), got %r"
                             % (self.magic, rest))
        return values, cell


_FILTERS = [
    ("--depth", "depth", _whole(1)),
    ("--include", "include", "list"),
    ("--exclude", "exclude", "list"),
    ("--operators", "operators", "flag"),
    ("--limit", "limit", _whole(4)),
    ("--reprs", "reprs", "flag"),
]
TRACE_OPTIONS = _Options("trace", [("-o --output", "output", str), ("-q --quiet", "quiet", "flag")] + _FILTERS)
COUNT_OPTIONS = _Options("count", [("--top", "top", _whole(0)), ("--operators", "operators", "flag")])
PRINT_OPTIONS = _Options("print", [("--results", "results", "flag")] + _FILTERS)


def _filters(opts, cell):
    """The filtering and display options of ``TraceCtx`` and ``PrintCtx``; the cell's own function is left out."""
    return dict(max_depth=opts["depth"], include=opts["include"] or None, exclude=opts["exclude"] + [cell.is_top],
                operators=opts["operators"], limit=80 if opts["limit"] is None else opts["limit"], reprs=opts["reprs"])


def _output_path(path):
    """``path`` made absolute, checked to be writable before anything runs."""
    full = os.path.abspath(os.path.expanduser(path))
    folder = os.path.dirname(full)
    if os.path.isdir(full):
        raise UsageError("%%trace -o %s: it is a directory; give a file path" % path)
    if not os.path.isdir(folder):
        raise UsageError("%%trace -o %s: the directory %s does not exist" % (path, folder))
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError("%%trace -o %s: no permission to create files in %s" % (path, folder))
    return full


def _print(text):
    print(text, file=sys.stdout)  # the stdout of the moment: the notebook's, or a capture's


# -- the magics ------------------------------------------------------------------------------


@magics_class
class ContextMagics(Magics):
    """``%trace``, ``%count`` and ``%print``: run a statement or a cell under a ready-made context."""

    def __init__(self, shell=None, **kwargs):
        super().__init__(shell=shell, **kwargs)
        self.cell_number = None  # the number of the cell running, In[N], if IPython said it

    # IPython counts a cell before running it (when it stores it in the history): the count
    # is then one past the cell's number, which tracebacks show as ``Cell In[N]``.

    def _pre_execute(self):
        self.cell_number = None

    def _pre_run_cell(self, info=None):
        count = self.shell.execution_count
        self.cell_number = count - 1 if getattr(info, "store_history", False) and count > 1 else count

    def _code(self, source):
        return CellCode(self.shell, source, self.cell_number)

    @no_var_expand
    @output_can_be_silenced
    @line_cell_magic
    def trace(self, line, cell=None):
        """Run the statement (or the cell) under TraceCtx and print the tree of the calls it makes.

        %trace [OPTIONS] STATEMENT
        %%trace [OPTIONS]

        Each line is `name(arguments) -> result  [wall time]`, with the calls each call made
        indented under it. The value of a last expression is returned (shown as Out[N]).

        Options:
          -o FILE, --output FILE   also write the calls to FILE: a Chrome trace (Perfetto,
                                   chrome://tracing, speedscope), or an HTML flame graph if
                                   FILE ends with .html
          -q, --quiet              do not print the tree (with -o)
          --depth N                record calls at most N levels deep (1: the calls the code
                                   makes itself); deeper calls run natively
          --include PATTERN        record only callees whose qualified name matches PATTERN,
                                   a glob ('statistics.*') or a dotted prefix ('statistics');
                                   repeatable
          --exclude PATTERN        leave out callees matching PATTERN (repeatable)
          --operators              record operators such as a * b as calls of operator.mul
          --limit N                characters per argument or result shown (default 80)
        End the options with -- before a statement that starts with -.
        """
        __tracebackhide__ = True
        from .ready.tracing import TraceCtx
        from .ready.tree import render_tree

        opts, source = TRACE_OPTIONS.parse(line, cell)
        path = _output_path(opts["output"]) if opts["output"] is not None else None
        code = self._code(source)
        try:
            ctx = TraceCtx(None, keep=True, **_filters(opts, code))
        except (TypeError, ValueError) as exc:
            raise UsageError("%%trace: %s" % exc) from None
        try:
            return code.run(ctx)
        finally:
            if not opts["quiet"]:
                _print(render_tree(ctx.roots, limit=ctx.limit) if ctx.roots else "(no calls recorded)")
            if path is not None:
                try:
                    written = ctx.save(path)
                except OSError as exc:  # reported, without hiding the code's own exception, if any
                    _print("%%trace -o: cannot write %s: %s" % (path, exc.strerror or exc))
                    return None
                _print("%d call%s written to %s%s" % (written, "" if written == 1 else "s", path,
                       "" if path.endswith((".html", ".htm")) else
                       " (open it in https://ui.perfetto.dev, chrome://tracing or https://www.speedscope.app)"))

    @no_var_expand
    @output_can_be_silenced
    @line_cell_magic
    def count(self, line, cell=None):
        """Run the statement (or the cell) under CountCtx and print the calls per function, most called first.

        %count [OPTIONS] STATEMENT
        %%count [OPTIONS]

        The value of a last expression is returned (shown as Out[N]).

        Options:
          --top N       show the N most called functions (default 20)
          --operators   count operators such as a * b as calls of operator.mul
        """
        __tracebackhide__ = True
        from .ready.counting import CountCtx

        opts, source = COUNT_OPTIONS.parse(line, cell)
        code = self._code(source)
        ctx = CountCtx(operators=opts["operators"])
        try:
            return code.run(ctx)
        finally:
            _print(ctx.table(DEFAULT_TOP if opts["top"] is None else opts["top"]))

    @no_var_expand
    @output_can_be_silenced
    @line_cell_magic
    def print(self, line, cell=None):
        """Run the statement (or the cell) under PrintCtx: print each call it makes, indented by depth.

        %print [OPTIONS] STATEMENT
        %%print [OPTIONS]

        The value of a last expression is returned (shown as Out[N]).

        Options:
          --results          also show what each call returned or raised
          --depth N          show calls at most N levels deep (1: the calls the code makes itself)
          --include PATTERN  show only callees matching PATTERN (repeatable)
          --exclude PATTERN  leave out callees matching PATTERN (repeatable)
          --operators        show operators such as a * b as calls of operator.mul
          --limit N          characters per argument or result shown (default 80)
        """
        __tracebackhide__ = True
        from .ready.printing import PrintCtx

        opts, source = PRINT_OPTIONS.parse(line, cell)
        code = self._code(source)
        try:
            ctx = PrintCtx(_print, results=opts["results"], **_filters(opts, code))
        except (TypeError, ValueError) as exc:
            raise UsageError("%%print: %s" % exc) from None
        return code.run(ctx)


def load_ipython_extension(ipython):
    """``%load_ext context.ipython``: register the magics ``%trace``, ``%count`` and ``%print``."""
    previous = getattr(ipython.magics_manager, "registry", {}).get(ContextMagics.__name__)
    if isinstance(previous, ContextMagics):  # loaded again: the earlier instance's callbacks go
        for event, callback in (("pre_execute", previous._pre_execute), ("pre_run_cell", previous._pre_run_cell)):
            try:
                ipython.events.unregister(event, callback)
            except ValueError:
                pass
    magics = ContextMagics(ipython)
    ipython.register_magics(magics)
    ipython.events.register("pre_execute", magics._pre_execute)
    ipython.events.register("pre_run_cell", magics._pre_run_cell)
