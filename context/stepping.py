"""``@ctx`` on a generator, coroutine or async generator function: each step of what it returns runs under ``ctx``.

Calling a generator or coroutine function runs none of its body: it returns an object
whose code runs later, a step at each ``next``/``send``/``throw`` (at each suspension of
an ``await``). ``run_outermost`` ends the context's activation when the call returns,
so that body would run with no context current, seen by nothing. The decorator instead
returns a generator (a coroutine, an async generator) that drives the one made under
the context: one activation lasts from the first step to the end (the object finished,
closed, or dropped), made current for each step and put aside between steps, so that
the code between steps (the consumer, the other tasks of an event loop) runs under
whatever is current there.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import functools
import inspect
from sys import _getframe  # bound now: a program may delete or replace it (attrs' tests do)

from .activation import Activation
from .depth import lower_for, raise_for
from .state import STATE, switch_to
from .tracebacks import strip_engine_frames


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


def drive(run, start, finish=True):
    """A generator yielding what the object ``start()`` makes (under ``run``) yields, each of
    its steps under ``run``'s activation; values sent and exceptions thrown go on to it.
    ``finish``: end the activation when this object ends (not for one ``asend`` of many)."""
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
        if finish:
            run.finish()


class Steps:
    """An awaitable whose ``__await__`` is ``drive``: what a decorated coroutine function awaits."""

    __slots__ = ("driver",)

    def __init__(self, driver):
        self.driver = driver

    def __await__(self):
        return self.driver


def stepped(ctx, fn):
    """What ``@ctx`` makes of ``fn`` if it is a generator, coroutine or async generator
    function (a function of the same kind, each step of its object under ``ctx``), else None.
    The wrapper's own frame stays in tracebacks, as any decorator's; the engine's others go."""
    if inspect.isasyncgenfunction(fn):
        @functools.wraps(fn)
        async def iterated_under_context(*args, **kwargs):
            run = StepRun(ctx)
            try:
                agen = run.step(functools.partial(ctx.overdub, fn, *args, **kwargs))
                method, value = agen.asend, None
                while True:
                    try:  # each awaitable of ``asend``/``athrow`` is driven a step at a time
                        item = await Steps(drive(run, functools.partial(method, value), finish=False))
                    except StopAsyncIteration:
                        return
                    try:
                        value = yield item
                    except GeneratorExit:
                        await Steps(drive(run, agen.aclose, finish=False))
                        raise
                    except BaseException as exc:
                        method, value = agen.athrow, exc
                    else:
                        method = agen.asend
            except BaseException as exc:
                if type(exc) is not GeneratorExit:
                    strip_engine_frames(exc)
                raise
            finally:
                run.finish()

        return iterated_under_context
    if inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def steps_under_context(*args, **kwargs):
            try:
                return (yield from drive(StepRun(ctx), functools.partial(ctx.overdub, fn, *args, **kwargs)))
            except BaseException as exc:
                if type(exc) is not GeneratorExit:
                    strip_engine_frames(exc)
                raise

        return steps_under_context
    if inspect.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def awaited_under_context(*args, **kwargs):
            try:
                return await Steps(drive(StepRun(ctx), functools.partial(ctx.overdub, fn, *args, **kwargs)))
            except BaseException as exc:
                strip_engine_frames(exc)
                raise

        return awaited_under_context
    return None
