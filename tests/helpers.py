"""Shared helpers for the test suite: recording and counting contexts."""

import collections

import context


def name_of(f):
    """The name a test uses for a callee: its qualified name, else its repr."""
    name = getattr(f, "__qualname__", None)
    return name if isinstance(name, str) else repr(f)


def note(label):
    """A marker call: code under test calls it so a test can see the call was hooked."""
    return label


class Pre(context.Context):
    """An empty prehook: the direct strategy with a hook (every call site asks ``enter``)."""

    def prehook(self, f, /, *args, **kwargs):
        pass


class Post(context.Context):
    """An empty posthook: the observing strategy."""

    def posthook(self, out, f, /, *args, **kwargs):
        pass


class OverdubOnly(context.Context):
    """Overrides only ``overdub``: call sites call it (``STATE.run``)."""

    def overdub(self, f, /, *args, **kwargs):
        return super().overdub(f, *args, **kwargs)


class Recorder(context.Context):
    """Appends ``(name_of(f), args, kwargs)`` to ``self.metadata`` (a list) for every hooked call."""

    def prehook(self, f, /, *args, **kwargs):
        self.metadata.append((name_of(f), args, kwargs))


class OverdubRecorder(context.Context):
    """Appends ``(name_of(f), args, kwargs)`` to ``self.metadata`` (a list) for every call,
    the top one included.

    It overrides only ``overdub``, so its code calls ``STATE.run(f, *args)``: the form of
    call site rewritten for such contexts.
    """

    def overdub(self, f, /, *args, **kwargs):
        self.metadata.append((name_of(f), args, kwargs))
        return context.Context.overdub(self, f, *args, **kwargs)


class Counter(context.Context):
    """Counts hooked calls by ``name_of(f)`` in ``self.metadata`` (a ``collections.Counter``)."""

    def prehook(self, f, /, *args, **kwargs):
        self.metadata[name_of(f)] += 1


def record(fn, *args, recorder=Recorder, **kwargs):
    """Run ``fn`` under a fresh ``recorder``; return (result, names, notes).

    ``names`` lists the names of every call made inside, in order; ``notes`` lists the
    labels of the calls of ``note``.
    """
    ctx = recorder(metadata=[])
    out = context.overdub(ctx, fn, *args, **kwargs)
    calls = ctx.metadata[1:] if recorder is OverdubRecorder else ctx.metadata  # not the top call
    names = [name for name, _, _ in calls]
    notes = [a[0] for name, a, _ in calls if name == "note" and len(a) == 1]
    return out, names, notes


def count(fn, *args, **kwargs):
    """Run ``fn`` under a fresh Counter; return (result, counter)."""
    ctx = Counter(metadata=collections.Counter())
    out = context.overdub(ctx, fn, *args, **kwargs)
    return out, ctx.metadata


def assert_same(native, dubbed):
    """Identical results: same type, same repr, equal (floats compared exactly)."""
    assert type(dubbed) is type(native)
    assert repr(dubbed) == repr(native)
    assert dubbed == native
