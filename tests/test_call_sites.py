"""How call sites are rewritten for a context that overrides only ``overdub``.

Where the stack analysis allows, ``f(x)`` becomes ``STATE.run(f, x)``: the callee stays
on the stack as the first argument of ``STATE.run``, which is the context's ``overdub``.
Elsewhere the call asks ``STATE.callee`` or ``STATE.enter``. These tests check which
form each kind of call site gets, that every form gives the native result, and that code
rewritten this way still runs when it outlives its context.
"""

import dis
import sys

import pytest

import context
from context.activation import _class_plan
from context.rewrite.code import rewrite_code

PY311 = sys.version_info < (3, 12)


def double(x):
    return 2 * x


class Base:
    def scale(self, x):
        return 3 * x


class Child(Base):
    def scale(self, x):
        return super().scale(x) + 1


class Wraps(context.Context):
    """Overrides only ``overdub``: records the name of every call."""

    def overdub(self, f, /, *args, **kwargs):
        self.metadata.append(getattr(f, "__name__", type(f).__name__))
        return context.Context.overdub(self, f, *args, **kwargs)


class Posts(context.Context):
    def posthook(self, out, f, /, *args, **kwargs):
        self.metadata.append(getattr(f, "__name__", type(f).__name__))


def entries_used(fn, cls=Wraps):
    """The ``STATE`` entries that ``fn``'s code rewritten for ``cls`` loads, with their counts."""
    config = _class_plan(cls)[0]
    code = rewrite_code(fn.__code__, config)
    counts = {}
    for instr in dis.get_instructions(code):
        if instr.opname == "LOAD_ATTR" and instr.argval in ("run", "callee", "enter", "enter_kw", "enter_ex"):
            counts[instr.argval] = counts.get(instr.argval, 0) + 1
    return counts


def global_local_method_keyword(x, obj):
    local = double
    return double(x) + local(x) + obj.scale(x) + max(x, -x, key=abs) + int("7", base=8)


def test_plain_call_sites_pass_the_callee_to_run():
    assert entries_used(global_local_method_keyword) == {"run": 5}
    # super().scale(x): 3.11 calls super() first, later versions load the method in one step
    assert entries_used(Child.scale) == {"run": 2 if PY311 else 1}


def test_a_context_with_hooks_keeps_its_call_forms():
    assert "run" not in entries_used(global_local_method_keyword, Posts)


def with_comprehension_argument(xs):
    x = "outer"
    try:
        return sum([double(int(x)) for x in xs]), x
    except ValueError as exc:
        return str(exc)[:10], x


def with_star_arguments(args):
    return double(*args)


@pytest.mark.skipif(PY311, reason="3.11 runs a comprehension as a function of its own, with no handler")
def test_a_handler_inside_the_arguments_restores_the_stack_with_run_beneath():
    # 3.12+ inline the comprehension; its handler, which puts the outer ``x`` back, keeps
    # the stack down to a depth that now counts ``STATE.run`` beneath ``sum``
    assert entries_used(with_comprehension_argument) == {"run": 4}  # sum, double, int, str
    for xs in (["1", "2"], ["1", "y"]):  # "y" fails inside the comprehension
        assert context.overdub(Wraps(metadata=[]), with_comprehension_argument, xs) == with_comprehension_argument(xs)


def test_calls_with_star_arguments_are_swapped_instead():
    assert "run" not in entries_used(with_star_arguments)


def nested_and_failing(xs):
    out = []
    for x in xs:
        try:
            out.append(double(double(int(x))))
        except ValueError as exc:
            out.append(str(exc)[:20])
    return out


@pytest.mark.parametrize("fn, args", [
    (global_local_method_keyword, (5, Child())),
    (with_comprehension_argument, (["1", "2", "x"],)),
    (with_star_arguments, ((4,),)),
    (nested_and_failing, (["1", "x", "3"],)),
    (Child().scale, (2,)),
], ids=["plain", "comprehension", "star", "nested and failing", "super"])
def test_every_form_gives_the_native_result(fn, args):
    ctx = Wraps(metadata=[])
    assert context.overdub(ctx, fn, *args) == fn(*args)
    assert len(ctx.metadata) > 1


def lazy_doubles(xs):
    for x in xs:
        yield double(x)


def test_code_rewritten_for_run_that_outlives_its_context_runs_natively():
    ctx = Wraps(metadata=[])
    g = context.overdub(ctx, lazy_doubles, [1, 2])
    seen = list(ctx.metadata)
    assert list(g) == [2, 4]  # resumed with no context: STATE.run is a plain call
    assert ctx.metadata == seen


def test_code_rewritten_for_run_resumed_under_another_context_is_seen_by_it():
    g = context.overdub(Wraps(metadata=[]), lazy_doubles, [1, 2])
    other = Posts(metadata=[])
    assert context.overdub(other, list, g) == [2, 4]
    assert other.metadata.count("double") == 2
