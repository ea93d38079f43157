"""The four commands, ``print``, ``count``, ``trace`` and ``profile``: the checks of their options, then their runs.

``prepare`` checks the whole command line before anything runs or is opened; ``run_command``
then runs the target under the command's context and reports what it saw.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import argparse
import os
import re
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TextIO

from ..base import Context
from ..ready.chrome import TraceFileWarning
from ..ready.counting import CountCtx, ProfileCtx
from ..ready.printing import PrintCtx
from ..ready.tracing import TraceCtx
from .errors import OutputFailed, UsageError
from .options import PROG, parse_command_line
from .outputs import STDOUT, Lines, check_output, open_output
from .progress import progress_for
from .running import Run, execute
from .targets import Target, load_target, target_label

VIEWERS = "open it in https://ui.perfetto.dev, chrome://tracing or https://www.speedscope.app"


def filters(ns: argparse.Namespace) -> dict[str, Any]:
    """The filtering options of ``print`` and ``trace``, as the contexts take them."""
    return dict(max_depth=ns.depth, include=ns.include, exclude=ns.exclude, operators=ns.operators)


def context_for(ns: argparse.Namespace, prog: str) -> Context:
    """The command's context, built without any file (so its checks of the options run first).

    Also checks the options that do not go together; raises ``UsageError`` naming what is wrong.
    """
    if ns.command == "trace" and ns.format == "html":
        for option, given in (("--max-events", ns.max_events is not None), ("--receivers", ns.receivers)):
            if given:
                raise UsageError("%s trace: %s applies to a Chrome trace file, not to an HTML flame graph (-o %s, "
                                 "--format html)" % (prog, option, ns.output))
    if ns.command == "profile" and ns.format == "pstats" and ns.output is None:
        raise UsageError("%s profile: --format pstats writes the profile to a file: give -o FILE (FILE.prof)" % prog)
    try:
        if ns.command == "print":
            return PrintCtx(None, results=ns.results, qualified=ns.qualified, reprs=ns.reprs, **filters(ns))
        if ns.command == "count":
            return CountCtx(ns.types, operators=ns.operators, via=ns.via)
        if ns.command == "profile":
            return ProfileCtx(ns.types, operators=ns.operators)
        return TraceCtx(None, keep=False, limit=ns.limit, receivers=ns.receivers, reprs=ns.reprs, **filters(ns))
    except (TypeError, ValueError) as exc:
        raise UsageError("%s %s: %s" % (prog, ns.command, exc)) from None


def _output_kind(ns: argparse.Namespace) -> dict[str, Any]:
    """How ``check_output`` checks the command's ``-o`` file."""
    if ns.command == "trace":
        if ns.format == "html":
            return dict(whole="the flame graph")
        if ns.max_events is not None:  # the ring is written whole, through a temporary file
            return dict(seekable=True, whole="the trace file")
        return dict(seekable=True)
    if ns.command == "profile" and ns.format == "pstats":
        return dict(whole="the pstats file")
    return {}


def prepare(argv: Sequence[str] | None, prog: str = PROG) -> tuple[argparse.Namespace, str | None, Target]:
    """``(options, output, target)`` of the command line ``argv`` (default ``sys.argv[1:]``), all checked.

    ``output`` is what ``check_output`` gives for ``-o`` (None without it). Nothing is run
    and no output file is opened; a bad command line raises ``UsageError``.
    """
    ns, args = parse_command_line(sys.argv[1:] if argv is None else argv, prog)
    context_for(ns, prog)
    output = check_output(prog, ns.output, **_output_kind(ns)) if ns.output is not None else None
    if ns.command == "trace" and ns.max_events is not None and output == os.devnull:
        raise UsageError("%s trace: --max-events keeps the last calls in the trace file, and -o %s writes none"
                         % (prog, ns.output))
    target = load_target(ns, args, prog)
    return ns, output, target


def run_command(ns: argparse.Namespace, output: str | None, target: Target, run: Run, prog: str,
                interval: float) -> int:
    """Run the target under the command's context and report; returns the exit status."""
    return _RUNNERS[ns.command](ns, output, target, run, prog, interval)


# -- print -----------------------------------------------------------------------------------


def run_print(ns: argparse.Namespace, output: str | None, target: Target, run: Run, prog: str,
              interval: float) -> int:
    if output is None:
        stream: TextIO = sys.stderr
    elif output == STDOUT:
        stream = sys.stdout
    else:
        stream = open_output(output)
        run.paths.append(output)
    lines = Lines(stream)
    run.on_fork.append(lambda: setattr(lines, "on", False))
    ctx = PrintCtx(lines, results=ns.results, qualified=ns.qualified, reprs=ns.reprs, **filters(ns))
    run.start_progress(progress_for(ns.progress, output not in (None, STDOUT), lambda: lines.lines, interval))
    try:
        status = execute(ctx, target, run)
    finally:
        run.stop_progress()
        if stream not in (sys.stderr, sys.stdout) and not run.child:
            stream.close()
        elif not run.child:
            stream.flush()
    return status


# -- count and profile -----------------------------------------------------------------------


def _table_stream(output: str | None, run: Run) -> TextIO | None:
    """Where a table goes: None for standard error, standard output, or the file opened now."""
    if output == STDOUT:
        return sys.stdout
    if output is None:
        return None
    out = open_output(output)
    run.paths.append(output)
    return out


def _write_table(table: str, out: TextIO | None) -> None:
    if out is None:
        print(table, file=sys.stderr)
    elif out is sys.stdout:
        print(table, file=out)
        out.flush()
    else:
        with out:
            print(table, file=out)


def run_count(ns: argparse.Namespace, output: str | None, target: Target, run: Run, prog: str,
              interval: float) -> int:
    out = _table_stream(output, run)
    ctx = CountCtx(ns.types, operators=ns.operators, via=ns.via)
    status = _execute_counting(ctx, ns, target, run, interval)
    if run.child:
        return status
    _write_table(ctx.table(ns.top), out)
    return status


def _execute_counting(ctx: CountCtx | ProfileCtx, ns: argparse.Namespace, target: Target, run: Run,
                      interval: float) -> int:
    """Run the target under a counting context, with a progress line of its running total."""
    run.start_progress(progress_for(ns.progress, True, _tolerant(lambda: ctx.total), interval))
    try:
        return execute(ctx, target, run)
    finally:
        run.stop_progress()


def _tolerant(count: Callable[[], int]) -> Callable[[], int]:
    """``count`` for the progress thread: the last number it gave if it fails (a dict changed under it)."""
    last = [0]

    def calls() -> int:
        try:
            last[0] = count()
        except RuntimeError:
            pass
        return last[0]

    return calls


def run_profile(ns: argparse.Namespace, output: str | None, target: Target, run: Run, prog: str,
                interval: float) -> int:
    to_pstats = ns.format == "pstats"
    out = None if to_pstats else _table_stream(output, run)
    ctx = ProfileCtx(ns.types, operators=ns.operators)
    status = _execute_counting(ctx, ns, target, run, interval)
    if run.child:
        return status
    table = ctx.table(ns.top, sort=ns.sort)
    if not to_pstats:
        _write_table(table, out)
        return status
    print(table, file=sys.stderr)
    if output == os.devnull:
        print("%s: -o %s: no pstats file written" % (prog, ns.output), file=sys.stderr)
        return status
    assert output is not None
    try:
        ctx.dump_stats(output)
    except OSError as exc:
        print("%s: cannot write the pstats file %s: %s" % (prog, ns.output, exc.strerror or exc), file=sys.stderr)
        return status or 1
    print("%s: profile of %d calls written to %s (read it with python -m pstats %s, or pstats.Stats)"
          % (prog, ctx.total, ns.output, ns.output), file=sys.stderr)
    return status


# -- trace -----------------------------------------------------------------------------------


@contextmanager
def _trace_warnings_reported_here(path: str | None) -> Iterator[None]:
    """The warnings about the trace file ``path`` that the command reports itself (the file failed, calls were
    dropped) are not shown while the block runs; any other warning is."""
    with warnings.catch_warnings():
        if path is not None:
            warnings.filterwarnings("ignore", re.escape("TraceCtx: could not write the trace file %s (" % path),
                                    TraceFileWarning)
            warnings.filterwarnings("ignore", r"TraceCtx: max_events=\d+ kept the last \d+ of \d+ calls in %s; "
                                    % re.escape(path), TraceFileWarning)
        yield


def run_trace(ns: argparse.Namespace, output: str | None, target: Target, run: Run, prog: str,
              interval: float) -> int:
    nowhere = output == os.devnull
    html = ns.format == "html" and not nowhere
    streamed = None if nowhere or html else output
    try:
        ctx = TraceCtx(streamed, keep=ns.tree or html, limit=ns.limit,
                       max_events=ns.max_events if streamed is not None else None, receivers=ns.receivers,
                       values=ns.values, reprs=ns.reprs, **filters(ns))
    except OSError as exc:
        raise OutputFailed(exc) from None
    if streamed is not None:
        run.paths.append(streamed)
    run.start_progress(progress_for(ns.progress, True, lambda: ctx.calls, interval))
    with _trace_warnings_reported_here(streamed):
        try:
            status = execute(ctx, target, run)
        finally:
            run.stop_progress()
            if not run.child:
                ctx.close()
    if run.child:
        return status
    if ns.tree:
        print(ctx.render(), file=sys.stderr)
    if nowhere:
        print("%s: %d calls recorded (-o %s: no trace file written)" % (prog, ctx.calls, ns.output), file=sys.stderr)
        return status
    if html:
        assert output is not None
        try:
            ctx.save(output, "html", title="Flame graph of %s" % target_label(ns))
        except OSError as exc:
            print("%s: cannot write the flame graph %s: %s" % (prog, ns.output, exc.strerror or exc),
                  file=sys.stderr)
            return status or 1
        print("%s: %d calls recorded in %s (a flame graph: open it in a web browser)" % (prog, ctx.calls, ns.output),
              file=sys.stderr)
        return status
    error = ctx.file_error
    if error is not None:
        why = error.strerror or str(error)
        if why.startswith("cannot write"):  # already names the file (chrome._path_error)
            why = why.rpartition(": ")[2]
        print("%s: cannot write the trace file %s: %s; the run went on without it, and the partial file was removed"
              % (prog, ns.output, why), file=sys.stderr)
        return status or 1
    if ctx.dropped_events:
        print("%s: %d calls recorded, the last %d kept in %s (--max-events; %s)"
              % (prog, ctx.calls, ctx.calls - ctx.dropped_events, ns.output, VIEWERS), file=sys.stderr)
    else:
        print("%s: %d calls recorded in %s (%s)" % (prog, ctx.calls, ns.output, VIEWERS), file=sys.stderr)
    return status


_RUNNERS: dict[str, Callable[[argparse.Namespace, str | None, Target, Run, str, float], int]] = {
    "print": run_print, "count": run_count, "trace": run_trace, "profile": run_profile,
}
