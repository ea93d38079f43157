"""The forms a context is used in besides ``overdub``: ``@ctx`` and ``with ctx:``."""

import threading
import traceback

import pytest

import context
from context.state import STATE


class Names(context.Context):
    def __init__(self):
        super().__init__(metadata=[])

    def prehook(self, f, *args, **kwargs):
        self.metadata.append(getattr(f, "__name__", repr(f)))


def helper(x):
    return abs(x) + 1


def work(x):
    return helper(x) * 2


def test_a_decorated_function_runs_under_the_context_at_every_call():
    ctx = Names()
    decorated = ctx(work)
    assert decorated(-3) == 8 and decorated(1) == 4
    assert ctx.metadata == ["helper", "abs", "helper", "abs"]
    assert decorated.__name__ == "work" and decorated.__wrapped__ is work
    assert STATE.act is None


def test_decorator_syntax_on_functions_and_methods():
    ctx = Names()

    @ctx
    def main(x, *, scale=1):
        return helper(x) * scale

    class Box:
        def __init__(self, v):
            self.v = v

        @ctx
        def size(self):
            return helper(self.v)

    assert main(2, scale=3) == 9
    assert Box(-5).size() == 6
    assert ctx.metadata == ["helper", "abs", "helper", "abs"]


def test_a_decorated_function_keeps_native_exceptions_and_tracebacks():
    ctx = Names()

    @ctx
    def fails(x):
        return helper(x) + None

    with pytest.raises(TypeError) as info:
        fails(1)
    native = None
    try:
        helper(1) + None
    except TypeError as exc:
        native = exc
    assert str(info.value) == str(native)
    names = [entry.name for entry in traceback.extract_tb(info.value.__traceback__)]
    # as with any decorator, the wrapper's frame is there; no other engine frame is
    assert names == [test_a_decorated_function_keeps_native_exceptions_and_tracebacks.__name__,
                     "under_context", "fails"]
    assert STATE.act is None


def test_a_decorated_generator_function_runs_each_step_under_the_context():
    import inspect

    ctx = Marks()
    log = []

    @ctx
    def numbers(n):
        try:
            for i in range(n):
                mark_a()
                try:
                    got = yield i
                except KeyError as exc:  # thrown in: caught, and the generator goes on
                    got = "caught %s" % exc
                log.append(got)
            return "done"
        finally:
            mark_d()  # under the context when closed too

    assert inspect.isgeneratorfunction(numbers) and numbers.__name__ == "numbers"
    g = numbers(3)
    assert g.__name__ == "numbers" and ctx.metadata == []  # nothing runs before the first step
    assert next(g) == 0
    mark_b()  # the consumer's own call, between steps: not the context's
    assert g.send("x") == 1
    assert g.throw(KeyError("k")) == 2
    with pytest.raises(StopIteration) as stop:
        g.send("y")
    assert stop.value.value == "done" and log == ["x", "caught 'k'", "y"]
    assert ctx.metadata == ["mark_a", "mark_a", "mark_a", "mark_d"]
    assert STATE.act is None

    ctx.metadata.clear()

    def delegate():
        return (yield from numbers(5))

    g = delegate()
    assert [next(g), next(g)] == [0, 1]
    g.close()  # its finally runs under the context
    assert ctx.metadata == ["mark_a", "mark_a", "mark_d"] and STATE.act is None


def test_a_decorated_generator_keeps_native_exceptions():
    ctx = Marks()

    def plain():
        yield 1
        helper("not a number")

    decorated = ctx(plain)
    errors = []
    for make in (plain, decorated):
        with pytest.raises(TypeError) as info:
            list(make())
        errors.append(info.value)
    assert str(errors[0]) == str(errors[1])
    names = [[entry.name for entry in traceback.extract_tb(e.__traceback__)] for e in errors]
    here = test_a_decorated_generator_keeps_native_exceptions.__name__
    assert names[0] == [here, "plain", "helper"]
    # as with any decorator, the wrapper's frame is there; no other engine frame is
    assert names[1] == [here, "steps_under_context", "plain", "helper"]


def test_a_decorated_coroutine_function_runs_under_the_context_while_awaited():
    import asyncio
    import inspect

    ctx = Marks()

    @ctx
    async def job(n):
        total = 0
        for i in range(n):
            mark_a()
            await asyncio.sleep(0)  # other tasks run meanwhile, not under the context
            total += i
        return total

    async def other():
        for _ in range(3):
            mark_b()
            await asyncio.sleep(0)

    async def main():
        return await asyncio.gather(job(3), other())

    assert inspect.iscoroutinefunction(job)
    assert asyncio.run(main()) == [3, None]
    assert ctx.metadata == ["mark_a"] * 3
    assert STATE.act is None

    ctx.metadata.clear()

    @ctx
    async def forever():
        try:
            while True:
                mark_a()
                await asyncio.sleep(0)
        finally:
            mark_d()

    async def cancel():
        task = asyncio.ensure_future(forever())
        await asyncio.sleep(0)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            return "cancelled"

    assert asyncio.run(cancel()) == "cancelled"
    assert ctx.metadata[-1] == "mark_d" and set(ctx.metadata) == {"mark_a", "mark_d"}
    assert STATE.act is None


def test_a_decorated_async_generator_function_runs_each_step_under_the_context():
    import asyncio
    import inspect

    ctx = Marks()

    @ctx
    async def ticks(n):
        try:
            for i in range(n):
                mark_a()
                await asyncio.sleep(0)
                try:
                    got = yield i
                except KeyError:
                    got = "caught"
                if got is not None:
                    mark_b()
        finally:
            mark_d()

    async def main():
        out = [i async for i in ticks(2)]
        g = ticks(5)
        out.append(await g.asend(None))
        out.append(await g.asend("sent"))
        out.append(await g.athrow(KeyError("k")))
        await g.aclose()  # its finally runs under the context
        mark_c()  # not the context's
        return out

    assert inspect.isasyncgenfunction(ticks)
    assert asyncio.run(main()) == [0, 1, 0, 1, 2]
    assert ctx.metadata == ["mark_a", "mark_a", "mark_d", "mark_a", "mark_b", "mark_a", "mark_b", "mark_a",
                            "mark_d"]
    assert STATE.act is None


def test_a_decorated_function_nests_under_a_running_context():
    outer, inner = Names(), Names()
    decorated = inner(work)

    def run():
        return decorated(2)

    assert context.overdub(outer, run) == 6
    assert inner.metadata == ["helper", "abs"]
    assert "work" not in inner.metadata
    assert STATE.act is None


def test_decorated_functions_on_threads():
    ctx = context.CountCtx()
    decorated = ctx(work)
    results = []
    threads = [threading.Thread(target=lambda: results.append(decorated(3))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [8] * 4
    assert ctx.counts["test_forms.helper"] == 4 if "test_forms.helper" in ctx.counts else \
        sum(n for name, n in ctx.counts.items() if name.endswith("helper")) == 4


def test_decorating_something_not_callable_is_refused_at_once():
    with pytest.raises(TypeError, match=r"@Names: expected a function to decorate, got int"):
        Names()(42)


def test_a_with_block_inside_a_running_context_runs_its_calls_under_the_block_context():
    outer, inner = Names(), Names()

    def run():
        before = helper(-1)
        with inner as entered:
            same = entered is inner
            during = work(2)
            current = type(STATE.act.ctx)
        after = helper(-2)
        return before, same, during, current, after, type(STATE.act.ctx)

    out = context.overdub(outer, run)
    assert out == (2, True, 6, Names, 3, Names)
    # the with statement's own __exit__ call is made at the end of the block, under it
    assert inner.metadata == ["work", "helper", "abs", "type", "__exit__"]
    assert outer.metadata.count("helper") == 2  # before and after the block
    assert "work" not in outer.metadata
    assert STATE.act is None


def test_a_with_block_sees_the_calls_of_generators_that_natives_consume():
    outer, inner, alone = Marks(), Marks(), Marks()

    def body():
        total = sum(mark_a() or 1 for _ in range(3))  # resumed by sum, a native
        text = "".join(str(mark_b()) for _ in range(2))
        pairs = list(zip((mark_c() for _ in range(2)), "ab"))  # resumed later, through zip
        pairs.extend(mark_d() for _ in range(1))  # a method of a built-in object
        return total, text, len(pairs)

    def run():
        with inner:
            return body()

    assert context.overdub(outer, run) == context.overdub(alone, body) == (3, "NoneNone", 3)
    assert inner.metadata == alone.metadata == ["mark_a"] * 3 + ["mark_b"] * 2 + ["mark_c"] * 2 + ["mark_d"]
    assert outer.metadata == []  # the block's generators are the block's


def test_a_with_block_that_raises_restores_the_enclosing_context():
    outer, inner = Names(), Names()

    def run():
        try:
            with inner:
                helper("not a number")
        except TypeError as exc:
            caught = str(exc)
        return caught, STATE.act.ctx is outer

    caught, restored = context.overdub(outer, run)
    assert "bad operand type for abs()" in caught and restored
    assert inner.metadata == ["helper", "abs", "__exit__"]


def mark_a():
    pass


def mark_b():
    pass


def mark_c():
    pass


def mark_d():
    pass


class Marks(context.Context):
    """Records the calls of the ``mark_`` functions (and asks nothing else of its callees)."""

    def __init__(self):
        super().__init__(metadata=[])

    def prehook(self, f, *args, **kwargs):
        name = getattr(f, "__name__", "")
        if type(name) is str and name.startswith("mark_"):
            self.metadata.append(name)


def _marks(ctx):
    return ctx.metadata


def test_a_with_block_spanning_an_await_raises_and_loses_no_call_of_the_enclosing_context():
    import asyncio

    outer, inner = Marks(), Marks()

    async def one():
        with inner:
            mark_d()
            await asyncio.sleep(0)  # the other task runs meanwhile
            mark_a()

    async def two():
        await asyncio.sleep(0)
        mark_b()

    async def main():
        results = await asyncio.gather(one(), two(), return_exceptions=True)
        mark_c()
        return results

    error, other = context.overdub(outer, lambda: asyncio.run(main()))
    assert isinstance(error, RuntimeError) and other is None
    assert str(error).startswith("with Marks: the block's frame was suspended (at a yield or an await) "
                                 "and resumed under another context")
    assert "context.overdub(ctx, f)" in str(error)
    assert _marks(inner) == ["mark_d"]
    # the other task's call and the calls after the block are the enclosing context's, as they
    # would be had the block not been suspended (the block's call after the await went there too)
    assert set(_marks(outer)) == {"mark_a", "mark_b", "mark_c"}
    assert STATE.act is None


def test_a_with_block_spanning_a_yield_stays_current_while_the_generator_is_suspended():
    outer, inner = Marks(), Marks()

    def gen():
        with inner:
            yield 1
            mark_a()

    def consume():
        out = [x for x in gen() if mark_b() is None]  # mark_b runs while gen is suspended in its block
        mark_c()
        return out

    assert context.overdub(outer, consume) == [1]
    assert _marks(inner) == ["mark_b", "mark_a"]  # as decimal.localcontext() in a generator: dynamic scope
    assert _marks(outer) == ["mark_c"]


def test_a_with_block_of_a_generator_resumed_under_another_context_raises():
    outer, other, inner = Marks(), Marks(), Marks()

    def gen():
        with inner:
            yield 1
            mark_a()

    def start():
        g = gen()
        next(g)
        return g

    g = context.overdub(outer, start)
    with pytest.raises(RuntimeError, match="resumed under another context"):
        context.overdub(other, list, g)
    assert STATE.act is None
    # closed while suspended in the block (dropped, or close()), from anywhere: no error
    for close in (lambda g: g.close(), lambda g: context.overdub(other, g.close)):
        g = context.overdub(outer, start)
        close(g)
        assert g.gi_frame is None
    assert STATE.act is None


def test_a_with_block_in_code_that_runs_natively_is_refused_at_once():
    ctx = Names()
    with pytest.raises(TypeError) as info:
        with ctx:
            work(1)  # never reached
    message = str(info.value)
    assert message.startswith("with Names: this block runs natively")
    assert "@ctx" in message and "overdub" in message
    assert ctx.metadata == [] and STATE.act is None


def test_trace_ctx_with_block_traces_inside_a_run_and_warns_when_it_traced_nothing(tmp_path):
    tracer = context.TraceCtx(keep=True)

    def run():
        with tracer:
            helper(-2)
        return helper(3)

    assert context.overdub(context.Context(), run) == 4
    # the block's call and the with statement's own exit; not the call after the block
    assert [r.name.rsplit(".", 1)[-1] for r in tracer.roots] == ["helper", "__exit__"]
    assert [r.name for r in tracer.roots[0].children] == ["abs"]

    quiet = context.TraceCtx(tmp_path / "t.json")
    with pytest.warns(RuntimeWarning, match="nothing was traced; the block runs natively"):
        with quiet:
            work(1)
    with context.TraceCtx(tmp_path / "u.json") as used:  # the file-closing form stays quiet
        context.overdub(used, work, 1)
    assert used.calls == 3  # work, helper, abs
