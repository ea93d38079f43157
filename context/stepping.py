"""``@ctx`` on a generator function or a coroutine function: each step of what it returns runs under ``ctx``.

Calling a generator or coroutine function runs none of its body: it returns an object
whose code runs later, a step at each ``next``/``send``/``throw`` (at each suspension of
an ``await``). ``run_outermost`` ends the context's activation when the call returns,
so that body would run with no context current, seen by nothing. The decorator instead
returns a generator (a coroutine) that drives the one made under the context: one
activation lasts from the first step to the end (the object finished, closed, or
dropped), made current for each step and put aside between steps, so that the code
between steps (the consumer, the other tasks of an event loop) runs under whatever is
current there.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from sys import _getframe  # bound now: a program may delete or replace it (attrs' tests do)

from .activation import Activation
from .depth import lower_for, raise_for
from .state import STATE, switch_to


class StepRun:
    """The activation of ``ctx`` that the steps of one generator or coroutine share."""

    __slots__ = ("ctx", "act")

    def __init__(self, ctx):
        self.ctx = ctx
        self.act = None  # made at the first step, nested in what is current then

    def step(self, fn, *args):
        """``fn(*args)`` with the activation current, as ``run_outermost`` runs its call."""
        act = self.act
        if act is None:
            act = self.act = Activation(self.ctx, STATE.act, _getframe(1))
        previous = STATE.act
        key = object()
        try:  # each step undone in a finally of its own, whatever interrupts it (Ctrl-C)
            switch_to(act)
            try:
                raise_for(act, key)
                return fn(*args)
            finally:
                lower_for(key)
        finally:
            switch_to(previous)

    def finish(self):
        if self.act is not None:
            self.act.finish()


def drive(run, start):
    """A generator yielding what the object ``start()`` makes (under ``run``) yields, each of
    its steps under ``run``'s activation; values sent and exceptions thrown go on to it."""
    try:
        it = run.step(start)
        method, value = it.send, None
        while True:
            try:
                item = run.step(method, value)
            except StopIteration as stop:
                return stop.value
            try:
                value = yield item
            except GeneratorExit:
                run.step(it.close)
                raise
            except BaseException as exc:
                method, value = it.throw, exc
            else:
                method = it.send
    finally:
        run.finish()


class Steps:
    """An awaitable whose ``__await__`` is ``drive``: what a decorated coroutine function awaits."""

    __slots__ = ("driver",)

    def __init__(self, driver):
        self.driver = driver

    def __await__(self):
        return self.driver
