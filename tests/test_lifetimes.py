"""Code that outlives its context (generators resumed later) runs natively, with no hooks."""

import pytest

import context


def inner(x):
    return x + 1


def gen():
    # the callee ``inner`` is loaded before the frame is suspended at the yield
    yield inner((yield "paused"))


class Posts(context.Context):
    def posthook(self, out, f, /, *args, **kwargs):
        self.metadata.append(getattr(f, "__name__", None))


class Plain(context.Context):
    pass


def test_generator_resumed_after_its_context_fires_no_hook():
    ctx = Posts(metadata=[])
    g = context.overdub(ctx, gen)
    assert next(g) == "paused"  # created under the context, run outside it
    assert g.send(41) == 42
    assert ctx.metadata == []


def test_same_under_an_empty_context():
    g = context.overdub(Plain(), lambda: gen())
    assert next(g) == "paused" and g.send(1) == 2


class Wraps(context.Context):
    """Overrides only ``overdub``: call sites call it directly, with no liveness check."""

    def overdub(self, f, /, *args, **kwargs):
        self.metadata.append(getattr(f, "__name__", None))
        return context.Context.overdub(self, f, *args, **kwargs)


@pytest.mark.parametrize("make", [Posts, Wraps], ids=["posthook", "overdub only"])
def test_suspended_call_resumed_after_the_context_ends_runs_natively(make):
    ctx = make(metadata=[])

    def start():
        g = gen()
        assert next(g) == "paused"
        return g

    g = context.overdub(ctx, start)
    seen = list(ctx.metadata)
    assert g.send(1) == 2  # inner was loaded before the yield: resumed after overdub returned, it runs natively
    assert ctx.metadata == seen


def test_await_between_load_and_call_under_an_overdub_only_context():
    import asyncio

    async def value():
        return 41

    async def main():
        return inner(await value())

    ctx = Wraps(metadata=[])
    assert context.overdub(ctx, lambda: asyncio.run(main())) == 42
    assert "inner" in ctx.metadata and "value" in ctx.metadata
