"""Pullbacks for reverse mode: derived from elementwise forward rules, or from ``defvjp`` rules.

An elementwise forward rule is a product by a factor: ``jvp(g, ans, x, y) = g * c`` with ``c``
broadcast as the function broadcasts its arguments. Its transpose multiplies the result's
cotangent ``u`` by the same factor, so the pullback of argument ``x`` is the forward rule
applied to ``u`` itself, summed over the axes along which ``x`` was broadcast (``unbroadcast``).
Real values only: reverse mode refuses complex ones.

Rule code: the backward pass calls these under the context that encloses the derivative,
so that a derivative of a gradient (forward over reverse) differentiates them.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import dis
import threading
from types import FunctionType

import numpy as np

from context.state import native_call_ex
from context.tagging.values import primal

from ..engine.buffers import snapshot
from ..engine.broadcast_sums import number as _number, unbroadcast  # noqa: F401  (re-exported)



def _detached(values, root, below=None):
    """``values`` with the arrays of memory block ``root`` (plain, or carrying an enclosing forward
    derivative's tangents) replaced by copies of them as they stand now, with the tangents of the
    forward derivatives older than tag ``below`` (the saving run's: see ``buffers.snapshot``)."""
    out = list(values)
    for i, v in enumerate(out):
        m = v if type(v) is np.ndarray else primal(v)
        if type(m) is np.ndarray:
            r = m
            while isinstance(r.base, np.ndarray):
                r = r.base
            if r is root:
                out[i] = snapshot(v, below)
    return out


class _FromJvp:
    """The pullback of argument ``i`` of an elementwise function, from its forward rule."""

    __slots__ = ("jvp", "ans", "primals", "kwargs", "i", "mask", "trimmed")

    def __init__(self, jvp, ans, primals, kwargs, i):
        self.jvp, self.ans, self.primals, self.kwargs, self.i = jvp, ans, primals, kwargs, i
        self.trimmed = False  # whether arrays its rule does not read were dropped (see ``trim``)
        self.mask = None  # where= of a ufunc: the elements computed (the others send nothing back)

    def detach(self, root, below=None):
        """Keep copies of the saved arrays in memory block ``root`` (about to be written), as values of the run of tag ``below``."""
        self.primals, self.ans = _detached(self.primals, root, below), _detached([self.ans], root, below)[0]

    def __call__(self, u):
        return self.applied(_direct, u)

    def applied(self, call, u):
        """``self(u)``, with the forward rule and what computes on its term called through ``call``
        (the backward pass passes the running context's entry for calls: see ``engine/backward.py``)."""
        primals = self.primals
        if self.mask is not None:  # where= of a ufunc: the elements left out were computed too; their terms are dropped
            with np.errstate(all="ignore"):
                term = call(self.jvp, (u, self.ans, *primals), self.kwargs)
                term = call(np.where, (self.mask, term, 0.0), _NO_KWARGS)
            return unbroadcast(term, primals[self.i])
        try:
            if call is _direct:  # (no context runs: the rule called without that frame)
                term = self.jvp(u, self.ans, *primals, **self.kwargs)
            else:
                term = call(self.jvp, (u, self.ans, *primals), self.kwargs)
        except (ZeroDivisionError, ValueError, OverflowError):  # Python numbers at a singular point
            term = call(_singular, (self.jvp, u, self.ans, primals, self.kwargs), _NO_KWARGS)
        if UNTOUCHED.on:
            term = _zero_where_untouched(call, term, u)
        return unbroadcast(term, primals[self.i])


class _Untouched(threading.local):
    on = False  # set by the backward pass (``engine/backward.py``) when it makes a pass again, in its thread


UNTOUCHED = _Untouched()


def _zero_where_untouched(call, term, u):
    """``term`` with 0 where the cotangent ``u`` is 0, if it is not finite there (no ``0 * inf``): a
    constant 0, which an enclosing derivative sees as one."""
    p, pu = primal(term), primal(u)
    finite = np.isfinite(p)
    if np.all(finite):
        return term
    untouched = np.broadcast_to(pu == 0, np.shape(p)) & ~finite
    if not np.any(untouched):
        return term
    zero = np.zeros((), dtype=np.result_type(p))
    if type(p) is not np.ndarray:  # a number: all of it
        return zero[()]
    return call(np.where, (untouched, zero, term), _NO_KWARGS)


_NO_KWARGS: dict = {}


_direct = native_call_ex  # f(*args, **kwargs): what the backward pass passes when no context runs


def _singular(jvp, u, ans, primals, kwargs):
    """A forward rule's term for numbers whose Python arithmetic raised: the rule in IEEE arithmetic."""
    with np.errstate(all="ignore"):
        return float(jvp(np.float64(u), np.float64(ans), *map(_ieee, primals), **kwargs))


def run_pull(call, pull, u):
    """``pull(u)`` for the backward pass, which runs natively (``engine/backward.py``): a pullback
    of these rule tables applies its rule through ``call`` (``applied``); any other is called
    through ``call`` whole."""
    applied = getattr(pull, "applied", None)
    if applied is not None:
        return applied(call, u)
    return call(pull, (u,), _NO_KWARGS)


def _ieee(v):
    return np.float64(v) if type(v) in (float, int) else v


def from_jvp(jvp):
    """The maker of pullbacks for one argument of an elementwise ``defjvp`` rule.

    A pullback keeps only the arrays its rule reads (``trim``): ``jvp(g, ans, x)`` for ``exp``
    reads ``ans`` and not ``x``, for ``x * y`` the other factor and not ``ans``. Argument ``i``'s
    shape is needed in any case (``unbroadcast``)."""
    plan = _UNPLANNED

    def make(ans, primals, kwargs, i):
        nonlocal plan
        pull = _FromJvp(jvp, ans, primals, kwargs, i)
        if plan is not None and _large(ans):  # (the result is the largest array of an elementwise function)
            if plan is _UNPLANNED:
                plan = _unread(_parameters_read(jvp), ())
                if plan is None:
                    return pull
            trim(pull, plan, (i,))
        return pull

    return make


TRIM_FROM = 4096  # elements: smaller arrays are kept whatever a rule reads (trimming would cost more)
_UNPLANNED = ()  # a rule's plan before its first large pullback (reading its code costs: not at import)
_ZEROS = bytes(32)  # what stand-ins read: one zero of any float or complex type


def _unread(reads, shape_only):
    """``(drop ans, positions of primals not read or read for their shape only)`` for a rule, from
    ``_parameters_read``'s answer and its ``shape_only`` positions; None when it reads them all."""
    if reads is None:
        return None
    unread = tuple(k for k in range(len(reads) - 1) if not reads[k + 1] or k in shape_only)
    if reads[0] and not unread:
        return None
    return not reads[0], unread, frozenset(shape_only)


def trim(pull, plan, shapes):
    """Drop from ``pull`` the float or complex arrays of at least ``TRIM_FROM`` elements (also ones
    an enclosing derivative carries) that its rule does not read (``plan``, from ``_unread``):
    ``ans`` and primals become None, or, where their shape is needed (``shapes``, and the rule's
    ``shape_only`` positions), a read-only plain stand-in of that shape and type whose elements
    all share one zero. Sets ``pull.trimmed`` when anything was dropped.

    (A tape that keeps every intermediate array alive makes each new one fresh memory, whose
    first touch costs as much as the arithmetic on it; autograd's closures keep only what they
    read too.)"""
    drop_ans, unread, shape_only = plan
    if drop_ans and _large(pull.ans):
        pull.ans = None
        pull.trimmed = True
    primals = pull.primals
    out = None
    for k in unread:
        if k < len(primals) and _large(primals[k]):
            if out is None:
                out = list(primals)
            if k in shapes or k in shape_only:
                v = primal(primals[k])
                out[k] = np.ndarray(v.shape, v.dtype, _ZEROS, 0, (0,) * v.ndim)
            else:
                out[k] = None
    if out is not None:
        pull.primals = tuple(out)
        pull.trimmed = True


def _large(a):
    """Whether ``a`` is (or, being differentiated by an enclosing derivative, stands for) a float or
    complex array of at least ``TRIM_FROM`` elements."""
    if type(a) is not np.ndarray:
        a = primal(a)
        if type(a) is not np.ndarray:
            return False
    return a.size >= TRIM_FROM and a.dtype.kind in "fc"


def _parameters_read(fn):
    """For ``fn(g, ans, *args)``: a tuple saying, for ``ans`` and each later positional parameter,
    whether ``fn``'s code reads it; None when that cannot be told (not a plain function, ``*args``,
    a call of ``locals`` or ``vars``)."""
    code = getattr(fn, "__code__", None)
    if type(fn) is not FunctionType or code is None or code.co_flags & 0x04 or {"locals", "vars"} & set(code.co_names):
        return None
    params = code.co_varnames[:code.co_argcount]
    read = set(code.co_cellvars)  # captured by an inner function: read there
    for ins in dis.get_instructions(code):
        if ins.opname.startswith(("LOAD_FAST", "LOAD_DEREF", "LOAD_CLOSURE")):
            read.update(ins.argval if isinstance(ins.argval, tuple) else (ins.argval,))
    return tuple(name in read for name in params[1:])


class _FromVjp:
    """The pullback of argument ``i`` from a ``defvjp`` rule ``vjp(u, ans, *args, **kwargs)``."""

    __slots__ = ("vjp", "ans", "primals", "kwargs", "trimmed")

    def __init__(self, vjp, ans, primals, kwargs):
        self.vjp, self.ans, self.primals, self.kwargs = vjp, ans, primals, kwargs
        self.trimmed = False

    def detach(self, root, below=None):
        """Keep copies of the saved arrays in memory block ``root`` (about to be written), as values of the run of tag ``below``."""
        self.primals, self.ans = _detached(self.primals, root, below), _detached([self.ans], root, below)[0]

    def __call__(self, u):
        return self.vjp(u, self.ans, *self.primals, **self.kwargs)

    def applied(self, call, u):
        """``self(u)``, the rule called through ``call`` (see ``_FromJvp.applied``)."""
        if call is _direct:
            return self.vjp(u, self.ans, *self.primals, **self.kwargs)
        return call(self.vjp, (u, self.ans, *self.primals), self.kwargs)


def from_vjp(vjp):
    """The maker of pullbacks for one argument of a ``defvjp`` rule. The pullback keeps only the
    arrays the rule reads (``trim``); a rule that reads some arguments for their shape only says
    so in its ``shape_only`` attribute (positions), as the rules of ``np.sum`` and ``np.mean`` do."""
    plan = _UNPLANNED

    def make(ans, primals, kwargs, i):
        nonlocal plan
        pull = _FromVjp(vjp, ans, primals, kwargs)
        if plan is _UNPLANNED:
            plan = _unread(_parameters_read(vjp), tuple(getattr(vjp, "shape_only", ())))
        if plan is not None:
            trim(pull, plan, ())
        return pull

    return make

