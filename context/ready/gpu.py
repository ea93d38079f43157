"""``GPUCtx``: run NumPy code on a GPU (CuPy), unchanged.

Host arrays entering the run move to the device once; NumPy functions with a device
counterpart are replaced by it (see ``substitutions``); the others run on the host and
are reported; results come back to the host. See docs/gpu.md.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from sys import _getframe  # bound now: a program may delete or replace it (attrs' tests do)
import warnings
from types import MappingProxyType

from ..base import Context
from ..resolve import is_engine_code
from ..rewrite.operators import BINARY_OPS, COMPARE_OPS
from ..activation import entered
from ..state import STATE
from .devices import resolve_device
from .substitutions import Entry, context_table
from .transfers import ARRAYS, DEVICE, HOST, TAGGED, Mover, TransferReport

_OPERATORS = BINARY_OPS + COMPARE_OPS


def _user_stacklevel():
    """The ``stacklevel`` for a ``warnings.warn`` in the caller that names the user's line:
    the first frame up the stack that is not the engine's (this package's, AD's)."""
    frame = _getframe(2)  # stacklevel k of the caller's warn is our _getframe(k)
    level = 2
    while frame is not None and is_engine_code(frame.f_code):
        frame = frame.f_back
        level += 1
    return level if frame is not None else 2


class GPUHostFallbackWarning(UserWarning):
    """A NumPy function with no device counterpart ran on the host (its arrays moved there and back)."""


class _Run:
    """One top-level run: its activation, its moves, and whether it is nested in another context."""

    __slots__ = ("act", "mover", "nested")

    def __init__(self, act, mover):
        self.act = act
        self.mover = mover
        self.nested = act.parent is not None


class GPUCtx(Context):
    """Runs NumPy code on a GPU: ``context.overdub(GPUCtx(), f, *args)``.

    ``device``: None for CuPy on the current CUDA device, or a ``Device`` (see
    ``context.ready.devices``). Without a usable GPU, ``GPUCtx()`` raises
    ``GPUUnavailableError``, and ``GPUCtx(host_fallback=True)`` runs on the host,
    counting the calls it would have moved. ``keep_on_device``: leave the arrays of the
    result on the device. ``substitutions``: ``{numpy_function: device_function or name}``
    added to (and winning over) the table built by name. ``warn``: warn once per function
    that runs on the host for lack of a counterpart (``GPUHostFallbackWarning``).

    ``ctx.report`` (a ``TransferReport``) adds up moves and calls over every run;
    ``ctx.substitutions`` is the table in use.
    """

    intercept_operators = True

    def __init__(self, device=None, *, host_fallback=False, keep_on_device=False, substitutions=None, warn=True):
        super().__init__()
        self.device = resolve_device(device, host_fallback)
        self.keep_on_device = bool(keep_on_device)
        self.warn = bool(warn)
        self.report = TransferReport(self.device)
        table = context_table(self.device, substitutions)
        self._entries = dict(table)
        if not self.device.host_memory:  # operators mixing host and device arrays move the host one
            for op in _OPERATORS:
                self._entries[id(op)] = Entry(op, None, "operator." + op.__name__, False, True, operator=True)
        self._table = table
        self._runs = {}  # activation -> _Run, while a top-level run is going on
        self._warned = set()

    def __repr__(self):
        return "%s(device=%r, keep_on_device=%r)" % (type(self).__name__, self.device.name, self.keep_on_device)

    @property
    def substitutions(self):
        """The table in use: ``{numpy_function: device_function}`` (read-only).

        With the host fallback each NumPy function maps to itself: it runs on the host.
        """
        return MappingProxyType({e.fn: e.target for e in self._table.values() if e.target is not None})

    def overdub(self, f, /, *args, **kwargs):
        run = self._runs.get(STATE.act)
        if run is None:
            return self._top(f, args, kwargs)
        entry = self._entries.get(id(f))
        if entry is None:
            return Context.overdub(self, f, *args, **kwargs)
        return self._call(run, entry, args, kwargs)

    # ---- the top-level call: arguments in, result out ---------------------------------------

    def _top(self, f, args, kwargs):
        with entered(self) as act:
            run = _Run(act, Mover(self.device, self.report))
            self._runs[act] = run
            self.report.runs += 1
            try:
                mover = run.mover
                if mover.host_types:
                    args = mover.to_device(args, "arguments")
                    if kwargs:
                        kwargs = mover.to_device(kwargs, "arguments")
                entry = self._entries.get(id(f))
                if entry is None:
                    out = Context.overdub(self, f, *args, **kwargs)
                else:
                    out = self._call(run, entry, args, kwargs)
                if not self.keep_on_device:
                    out = mover.to_host(out, "result")
                return out
            finally:
                del self._runs[act]
                run.mover.memo.clear()

    # ---- calls of NumPy functions and operators -------------------------------------------

    def _call(self, run, entry, args, kwargs):
        mover = run.mover
        if entry.operator:  # an operator mixing host and device arrays moves the host one
            if len(args) == 2:
                a, b = args
                found = mover.operand(a) | mover.operand(b)
                if found == ARRAYS:
                    args = mover.to_device(args, entry.name)
            return self._native(run, entry.fn, args, kwargs)
        flags = mover.scan(args)
        if kwargs:
            flags |= mover.scan(kwargs.values())
        if entry.target is None:
            return self._on_host(run, entry, flags, args, kwargs)
        if not flags & ARRAYS and not entry.creation:  # np.exp(1.0): left alone
            return self._as_usual(run, entry, args, kwargs)
        self.report.on_device[entry.name] += 1
        if flags & HOST:
            args = mover.to_device(args, entry.name)
            if kwargs:
                kwargs = mover.to_device(kwargs, entry.name)
        if self.device.is_host:  # the host fallback: counted, and run on the host as it is
            return self._native(run, entry.fn, args, kwargs)
        if flags & TAGGED:
            # The NumPy function itself: an enclosing context (AD) has the rule for tagged
            # values, and the rule's NumPy calls reach the device arrays' own functions
            # (CuPy implements __array_ufunc__ and __array_function__).
            return self._as_usual(run, entry, args, kwargs)
        return self._native(run, entry.target, args, kwargs)

    def _native(self, run, fn, args, kwargs):
        """``fn`` called natively: under the enclosing context when this one is nested."""
        if run.nested:
            return self.fallback(fn, *args, **kwargs)
        return fn(*args, **kwargs)

    def _as_usual(self, run, entry, args, kwargs):
        """The call as it is: natively for NumPy's functions (never recursed into), else the default."""
        if not entry.native:
            return Context.overdub(self, entry.fn, *args, **kwargs)
        return self._native(run, entry.fn, args, kwargs)

    def _on_host(self, run, entry, flags, args, kwargs):
        """A NumPy function with no counterpart: on the host, its device arrays moved there and back."""
        if not flags & DEVICE:
            return self._as_usual(run, entry, args, kwargs)
        self.report.on_host[entry.name] += 1
        if self.warn and entry.name not in self._warned:
            self._warned.add(entry.name)
            warnings.warn(GPUHostFallbackWarning(
                "%s has no counterpart on %s: it ran on the host, its device arrays copied to the host and "
                "its results back; give it one with GPUCtx(substitutions={%s: device_function}) or "
                "context.ready.substitutions.register_substitution(%s, device_function_or_name), "
                "or pass warn=False" % (entry.name, self.device.name, entry.name, entry.name)
            ), stacklevel=_user_stacklevel())
        mover = run.mover
        if not mover.host_types:
            return self._as_usual(run, entry, args, kwargs)
        args = mover.to_host(args, entry.name)
        if kwargs:
            kwargs = mover.to_host(kwargs, entry.name)
        out = self._as_usual(run, entry, args, kwargs)
        return mover.to_device(out, entry.name, memo=False)
