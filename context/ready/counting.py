"""``CountCtx``: count calls, optionally only those whose arguments all have given types.

``ProfileCtx``: count and time them, per function and per caller, as ``cProfile`` does,
and write the profile in ``cProfile``'s format for ``pstats``.
"""

from __future__ import annotations

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import marshal
import os
from collections import Counter
from collections.abc import Callable
from types import BuiltinFunctionType, FunctionType, MethodType, ModuleType
from typing import Any

from ..base import Context
from ..clock import clock_ns
from ..state import STATE as _STATE, switch_to
from . import lsprof, monitoring
from .chrome import atomic_write
from .display import callee_key, callee_name
from .options import OperatorsOption

_run = Context.overdub
VIAS = ("engine", "monitoring", "profile")


def _check_types(types, who="CountCtx"):
    if types is None:
        return None
    if isinstance(types, type):
        return types
    if isinstance(types, tuple) and types and all(isinstance(t, type) for t in types):
        return types
    raise TypeError(
        "%s: types must be a type or a non-empty tuple of types (as for isinstance), got %r" % (who, types)
    )


class CountCtx(OperatorsOption, Context):
    """Counts the calls made under it, in total and per function.

    With ``types`` (a type or a tuple of types), a call counts only when it has at least
    one argument and every argument, positional or keyword, is an instance of them: the
    talk's ``Count{T}`` example. ``operators=True`` also counts operators as calls of
    ``operator.*``. ``ctx.total`` is the number of calls counted; ``ctx.counts`` maps each
    function's qualified name to its count (most called first); ``ctx.table(top)`` renders it.

    ``via`` chooses how calls are seen. ``"engine"`` (the default): the engine's call
    path with a prehook, exactly what any context sees, on every supported version, nested
    in other contexts or not. ``"monitoring"``: CPython's ``sys.monitoring`` events (3.12+),
    several times cheaper, for a run that is not nested in another context; it also counts
    the special methods the interpreter calls implicitly (``__eq__`` for ``==``, property
    getters), as ``cProfile`` does, and ``with ctx:`` then works in any code. ``"profile"``:
    cProfile's own C profiler (``_lsprof``), on every version, at cProfile's cost; it sees
    what cProfile sees (the same special methods; a class's ``__init__`` rather than the
    class; from 3.12 every thread's calls while it runs). Where a mechanism cannot apply
    (3.11 for monitoring, ``types`` or ``operators``, a nested run, every monitoring tool id
    taken, another profiler active) the engine counts instead. See ``monitoring.py`` and
    ``lsprof.py``.

    ``ProfileCtx`` (below) also times the calls and writes ``pstats`` files.
    """

    def __new__(cls, *args: Any, via: str = "engine", **kwargs: Any) -> CountCtx:
        if via not in VIAS:
            raise ValueError("CountCtx: via must be 'engine', 'monitoring' or 'profile', got %r" % (via,))
        if via != "engine" and cls is CountCtx and (args[0] if args else kwargs.get("types")) is None \
                and not kwargs.get("operators"):
            if via == "profile":
                cls = ProfiledCountCtx
            elif monitoring.available():
                cls = MonitoredCountCtx
        return super().__new__(cls, *args, **kwargs)

    def __init__(self, types: type | tuple[type, ...] | None = None, *, operators: bool = False,
                 via: str = "engine") -> None:
        super().__init__(metadata=None)
        self.types = _check_types(types)
        self.via = getattr(type(self), "mechanism", "engine")
        self.total = 0
        self._by_key = Counter()
        self._names = {}

    def prehook(self, f: Callable[..., Any], /, *args: Any, **kwargs: Any) -> None:
        types = self.types
        if types is not None:
            if not (args or kwargs):
                return
            for a in args:
                if not isinstance(a, types):
                    return
            for a in kwargs.values():
                if not isinstance(a, types):
                    return
        self.total += 1
        key = callee_key(f)
        self._by_key[key] += 1
        if key not in self._names:
            self._names[key] = callee_name(f)

    @property
    def counts(self) -> dict[str, int]:
        """``{qualified name: calls}``, most called first (functions sharing a name are added up)."""
        merged = Counter()
        for key, n in self._by_key.items():
            merged[self._names[key]] += n
        return dict(merged.most_common())

    def table(self, top: int | None = None) -> str:
        """The per-function counts as aligned text: ``count  name`` lines, most called first, then the total."""
        rows = list(self.counts.items())
        hidden = 0
        if top is not None:
            hidden = len(rows) - top if len(rows) > top else 0
            rows = rows[:top]
        width = max([len(str(n)) for _, n in rows] + [len(str(self.total))])
        lines = ["%*d  %s" % (width, n, name) for name, n in rows]
        if hidden:
            lines.append("%*s  (%d more function%s)" % (width, "...", hidden, "" if hidden == 1 else "s"))
        lines.append("%*d  calls in total" % (width, self.total))
        return "\n".join(lines)

    def reset(self) -> None:
        """Forget every count."""
        self.total = 0
        self._by_key.clear()
        self._names.clear()


def _observed_call(f, args, kwargs):
    """``f(*args, **kwargs)`` from a frame of the engine's that starts while the calls are observed,
    so that a profiler sees the top call as the engine's (and leaves it out)."""
    return f(*args, **kwargs)


class _ObservedCountCtx(CountCtx):
    """A ``CountCtx`` whose outermost runs and blocks run natively while a mechanism of CPython's
    observes them (``_start``/``_stop``, given by the subclass); nested runs count the engine's way."""

    mechanism = "engine"

    def overdub(self, f: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        act = _STATE.act
        if act is None or act.ctx is not self or act.parent is not None:
            return _run(self, f, *args, **kwargs)  # a call inside a nested run: the engine's way
        counting = self._start(top=f)
        if counting is None:
            return act.default_run(f, args, kwargs)
        try:
            previous = switch_to(None)  # f runs natively: code rewritten earlier must not see this run
            try:
                return _observed_call(f, args, kwargs)
            finally:
                switch_to(previous)
        finally:
            self._stop(counting)

    def prehook(self, f: Callable[..., Any], /, *args: Any, **kwargs: Any) -> None:
        CountCtx.prehook(self, f, *args, **kwargs)  # nested runs count the engine's way

    def __enter__(self) -> _ObservedCountCtx:
        if _STATE.act is not None:
            super().__enter__()  # inside a run: the block form of any context
            self._blocks().append(None)
            return self
        counting = self._start(top=None)
        if counting is None:
            super().__enter__()  # raises: the block runs natively and the mechanism is taken
        self._blocks().append(counting)
        return self

    def __exit__(self, *exc_info: Any) -> bool:
        counting = self._blocks().pop()
        if counting is None:
            return super().__exit__(*exc_info)
        self._stop(counting)
        return False

    @property
    def total(self) -> int:
        """Calls counted, including those of runs still going where the mechanism tells (for progress lines)."""
        return self._total + sum(self._live_total(c) for c in self.__dict__.get("_live", ()))

    @total.setter
    def total(self, value: int) -> None:
        self._total = value

    def _blocks(self):
        blocks = self.__dict__.get("_open_blocks")
        if blocks is None:
            blocks = self._open_blocks = []
        return blocks

    def _start(self, top):
        """Start observing (``top``: the run's top function, None for a block); None if it cannot.

        Observing begins last: the natives called here must not be seen (a profiler cannot
        tell who called them in a frame that began before it did)."""
        counting = self._begin(top)
        if counting is None:
            return None
        live = self.__dict__.setdefault("_live", [])
        live.append(counting)
        if not self._observe(counting):
            live.remove(counting)
            return None
        return counting

    def _observe(self, counting):
        return True

    def _stop(self, counting):
        self._live.remove(counting)
        self._total += self._end(counting)


class MonitoredCountCtx(_ObservedCountCtx):
    """``CountCtx(via="monitoring")`` where ``sys.monitoring`` can count (see ``CountCtx``)."""

    mechanism = "monitoring"

    def _begin(self, top):
        return monitoring.start_counting({}, {}, skip_top=top is not None)

    def _end(self, counting):
        monitoring.stop_counting(counting)
        by_key = self._by_key
        for key, n in counting.by_key.items():
            by_key[key] += n
        for key, name in counting.names.items():
            self._names.setdefault(key, name)
        return sum(counting.by_key.values())

    def _live_total(self, counting):
        return sum(counting.by_key.values())


class ProfiledCountCtx(_ObservedCountCtx):
    """``CountCtx(via="profile")``: cProfile's C profiler counts (see ``CountCtx`` and ``lsprof.py``)."""

    mechanism = "profile"

    def _begin(self, top):
        return lsprof.profiler()

    def _observe(self, profiler):
        return lsprof.enable(profiler)  # the top call and the bookkeeping are the engine's: not counted

    def _end(self, profiler):
        return lsprof.stop(profiler, self._by_key, self._names)

    def _live_total(self, counting):
        return 0  # the profiler's counts are read when it stops


# -- ProfileCtx: counts and wall times per function, pstats output ---------------------------

_SORTS = {
    "cumulative": "cumulative", "cumtime": "cumulative", "cum": "cumulative",
    "tottime": "tottime", "time": "tottime", "own": "tottime",
    "calls": "calls", "ncalls": "calls",
    "name": "name",
}


def _check_sort(sort, who):
    found = _SORTS.get(sort) if isinstance(sort, str) else None
    if found is None:
        raise ValueError("%s: sort must be 'cumulative', 'tottime', 'calls' or 'name' (or pstats' 'cumtime', "
                         "'time', 'ncalls'), got %r" % (who, sort))
    return found


def pstats_label(f: Any) -> tuple[str, int, str]:
    """The key cProfile gives a callee: ``(file, first line, name)``, or ``("~", 0, "<...>")`` for the rest.

    Python functions (and methods of them) are ``(co_filename, co_firstlineno, co_name)``;
    a builtin function is ``<built-in method module.name>`` and a method of a builtin
    object ``<method 'name' of 'type' objects>``, as cProfile names them; a class is its
    type's own repr (``<class 'int'>``, not a metaclass's), and any other callee ``<built-in method qualified.name>``.
    """
    kind = type(f)
    if kind is MethodType:
        f = f.__func__
        kind = type(f)
    if kind is FunctionType:
        code = f.__code__
        return (code.co_filename, code.co_firstlineno, code.co_name)
    if kind is BuiltinFunctionType:
        owner = f.__self__
        if owner is not None and type(owner) is not ModuleType:
            for klass in type(owner).__mro__:
                found = klass.__dict__.get(f.__name__)
                if found is not None:
                    return ("~", 0, repr(found))
        module = f.__module__
        if isinstance(module, str):
            return ("~", 0, "<built-in method %s.%s>" % (module, f.__name__))
        return ("~", 0, "<built-in method %s>" % f.__name__)
    if issubclass(kind, type):
        return ("~", 0, type.__repr__(f))  # (as cProfile would: not a metaclass's own repr)
    return ("~", 0, "<built-in method %s>" % callee_name(f))


def _location(label):
    return "" if label[0] == "~" else "%s:%d" % (label[0], label[1])


class ProfileCtx(OperatorsOption, Context):
    """Counts the calls made under it and times them: own and cumulative wall time per function.

    What ``cProfile`` measures, for every call the engine routes through a context (natives,
    classes and their Python ``__init__``, callbacks from natives; operators with
    ``operators=True``), including the top call. ``types`` counts (and times) only calls
    whose arguments are all instances of them, as in ``CountCtx``; the time of a call not
    counted is its nearest counted caller's own time. Per function: ``calls``, primitive
    (non-recursive) calls, own time (``tottime``: minus the counted calls it made) and
    cumulative time (``cumtime``: counted once for a recursive function, at its outermost
    call), and the same for each caller.

    ``ctx.total`` and ``ctx.counts`` are ``CountCtx``'s (here with the top call);
    ``ctx.table(top=None, sort="cumulative")`` renders the profile, ``ctx.dump_stats(path)``
    writes it in the format of ``cProfile`` for ``pstats.Stats(path)``, and ``pstats.Stats(ctx)``
    reads it directly. Times are ``context.clock.clock_ns`` wall times (rewriting code excluded) and include the
    context's own work on the calls made inside (as cProfile's do).

    ``ProfileCtx`` overrides ``overdub``, so every call pays for two clock readings and a
    few dictionary steps: ``CountCtx``, which only counts, stays on the engine's prehook
    fast path. Not thread safe: use one context per thread.
    """

    def __init__(self, types: type | tuple[type, ...] | None = None, *, operators: bool = False) -> None:
        super().__init__(metadata=None)
        self.types = _check_types(types, "ProfileCtx")
        self._entries = {}  # callee_key -> [calls, recursive calls, own ns, cumulative ns, active, {caller key: sub}]
        self._labels = {}  # callee_key -> (qualified name, pstats label)
        self._stack = []  # per counted call running: [callee key, entry, sub entry, children's ns]
        self.stats = {}

    def overdub(self, f: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        types = self.types
        act = _STATE.act
        if act is None or act.ctx is not self:
            act = None
        if types is not None and not _all_instances(types, args, kwargs):
            if act is not None:
                return act.default_run(f, args, kwargs)
            return _run(self, f, *args, **kwargs)
        key = callee_key(f)
        entry = self._entries.get(key)
        if entry is None:
            entry = self._entries[key] = [0, 0, 0, 0, 0, {}]
            self._labels[key] = (callee_name(f), pstats_label(f))
        stack = self._stack
        caller = stack[-1][0] if stack else None
        callers = entry[5]
        sub = callers.get(caller)
        if sub is None:
            sub = callers[caller] = [0, 0, 0, 0, 0]
        entry[4] += 1
        sub[4] += 1
        frame = [key, 0]
        stack.append(frame)
        start = clock_ns()
        try:
            if act is not None:
                return act.default_run(f, args, kwargs)
            return _run(self, f, *args, **kwargs)
        finally:
            elapsed = clock_ns() - start
            stack.pop()
            if stack:
                stack[-1][1] += elapsed
            own = elapsed - frame[1]
            entry[0] += 1
            entry[2] += own
            entry[4] -= 1
            if entry[4]:
                entry[1] += 1
            else:
                entry[3] += elapsed
            sub[0] += 1
            sub[2] += own
            sub[4] -= 1
            if sub[4]:
                sub[1] += 1
            else:
                sub[3] += elapsed

    # -- counts, as CountCtx ------------------------------------------------------------

    @property
    def total(self) -> int:
        """The number of calls counted (the top call included)."""
        return sum(e[0] for e in self._entries.values())

    @property
    def counts(self) -> dict[str, int]:
        """``{qualified name: calls}``, most called first (functions sharing a name are added up)."""
        merged = Counter()
        for key, entry in self._entries.items():
            merged[self._labels[key][0]] += entry[0]
        return dict(merged.most_common())

    def reset(self) -> None:
        """Forget every count and time (not while a run is under way)."""
        self._entries.clear()
        self._labels.clear()
        self.stats = {}

    # -- the profile ----------------------------------------------------------------------

    def profile(self) -> dict[str, tuple[int, int, float, float, tuple[str, int, str]]]:
        """Per function: ``{qualified name: (calls, primitive calls, own s, cumulative s, pstats label)}``.

        Functions that share a qualified name and a label are added up.
        """
        rows = {}
        for key, (nc, rc, own, cum, _, _) in self._entries.items():
            row = rows.setdefault(self._labels[key], [0, 0, 0, 0])
            row[0] += nc
            row[1] += rc
            row[2] += own
            row[3] += cum
        shared = Counter(name for name, _ in rows)
        out = {}
        for (name, label), (nc, rc, own, cum) in rows.items():
            if shared[name] > 1:  # two functions of one name (redefined, say): tell them apart
                name = "%s (%s)" % (name, _location(label) or label[2])
            out[name] = (nc, nc - rc, own / 1e9, cum / 1e9, label)
        return out

    def create_stats(self) -> None:
        """Set ``self.stats`` to the profile in cProfile's form; ``pstats.Stats(ctx)`` calls it."""
        stats = {}
        labels = self._labels
        for key, (nc, rc, own, cum, _, callers) in self._entries.items():
            label = labels[key][1]
            cc = nc - rc
            row = stats.get(label)
            if row is None:
                row = stats[label] = [0, 0, 0, 0, {}]
            row[0] += cc
            row[1] += nc
            row[2] += own / 1e9
            row[3] += cum / 1e9
            for caller, (snc, src, sown, scum, _) in callers.items():
                if caller is None:
                    continue  # a top call: no caller, as in cProfile
                caller_label = labels[caller][1]
                prev = row[4].get(caller_label, (0, 0, 0.0, 0.0))
                # cProfile's callers hold (calls, primitive calls, own, cumulative): pstats reads them so
                row[4][caller_label] = (prev[0] + snc, prev[1] + snc - src, prev[2] + sown / 1e9, prev[3] + scum / 1e9)
        self.stats = {label: tuple(row) for label, row in stats.items()}

    def dump_stats(self, path: str | os.PathLike[str]) -> None:
        """Write the profile to ``path`` in cProfile's format (marshal), for ``pstats.Stats(path)`` and its tools."""
        self.create_stats()
        atomic_write(path, [marshal.dumps(self.stats)])

    def table(self, top: int | None = None, sort: str = "cumulative") -> str:
        """The profile as aligned text, one line per function, sorted by ``sort`` (largest first), then totals.

        ``sort``: ``"cumulative"`` (cumulative time), ``"tottime"`` (own time), ``"calls"`` or
        ``"name"``; ``top=N`` shows the first ``N`` functions. ``calls`` shows ``all/primitive``
        for a recursive function; times are in milliseconds.
        """
        order = _check_sort(sort, "ProfileCtx.table")
        rows = list(self.profile().items())
        index = {"cumulative": 3, "tottime": 2, "calls": 0}.get(order)
        if index is None:
            rows.sort(key=lambda r: r[0])
        else:
            rows.sort(key=lambda r: (-r[1][index], r[0]))
        total_calls = sum(r[1][0] for r in rows)
        total_own = sum(r[1][2] for r in rows)
        hidden = 0
        if top is not None:
            hidden = max(len(rows) - top, 0)
            rows = rows[:top]
        cells = [("%d/%d" % (nc, cc) if nc != cc else "%d" % nc, "%.3f" % (own * 1e3), "%.3f" % (cum * 1e3),
                  name + ("  (%s)" % _location(label) if _location(label) else ""))
                 for name, (nc, cc, own, cum, label) in rows]
        heads = ("calls", "own ms", "cum ms", "function")
        widths = [max([len(heads[i])] + [len(c[i]) for c in cells]) for i in range(3)]
        lines = ["%*s  %*s  %*s  %s" % (widths[0], heads[0], widths[1], heads[1], widths[2], heads[2], heads[3])]
        lines += ["%*s  %*s  %*s  %s" % (widths[0], c[0], widths[1], c[1], widths[2], c[2], c[3]) for c in cells]
        if hidden:
            lines.append("%*s  (%d more function%s)" % (widths[0], "...", hidden, "" if hidden == 1 else "s"))
        lines.append("%d calls in total, %.3f ms" % (total_calls, total_own * 1e3))
        return "\n".join(lines)


def _all_instances(types, args, kwargs):
    if not (args or kwargs):
        return False
    for a in args:
        if not isinstance(a, types):
            return False
    for a in kwargs.values():
        if not isinstance(a, types):
            return False
    return True
