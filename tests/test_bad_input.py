"""Bad input and failing user code: clear errors, exceptions that keep their type
and traceback, and opting functions out of rewriting."""

import inspect
import math
import traceback

import bytecode
import pytest

import context
from tests.helpers import Recorder, note, record


def plain(x):
    return math.sqrt(x)


def test_non_context_first_argument_is_a_type_error_naming_it():
    for bad in (42, None, "ctx", plain, context.Context):  # the class, not an instance
        with pytest.raises(TypeError) as info:
            context.overdub(bad, plain, 4.0)
        msg = str(info.value)
        assert "ctx" in msg or "Context" in msg, msg


def test_non_callable_function_is_a_type_error():
    for bad in (42, None, "plain", [plain]):
        with pytest.raises(TypeError):
            context.overdub(context.Context(), bad)


# ------------------------------------------------- hooks and primitives raising


class Boom(Exception):
    pass


def inner(x):
    return x + 1


def outer(x):
    return inner(x) * 2


def _line_of(obj, marker):
    lines, start = inspect.getsourcelines(obj)
    (offset,) = [i for i, line in enumerate(lines) if marker in line]
    return start + offset


class PreBoom(context.Context):
    def prehook(self, f, /, *args, **kwargs):
        if f is inner:
            raise Boom("prehook")  # prehook raise


class PostBoom(context.Context):
    def posthook(self, out, f, /, *args, **kwargs):
        if f is inner:
            raise Boom("posthook %r" % (out,))  # posthook raise


class PrimBoom(context.Context):
    pass


@PrimBoom.primitive(inner)
def _inner_boom(ctx, x):
    raise Boom("primitive")  # primitive raise


@pytest.mark.parametrize("cls, message, where", [
    (PreBoom, "prehook", (PreBoom.prehook, "# prehook raise")),
    (PostBoom, "posthook 2", (PostBoom.posthook, "# posthook raise")),
    (PrimBoom, "primitive", (_inner_boom, "# primitive raise")),
])
def test_hook_or_primitive_exception_propagates_with_its_traceback(cls, message, where):
    with pytest.raises(Boom) as info:
        context.overdub(cls(), outer, 1)
    assert type(info.value) is Boom and info.value.args == (message,)
    tb = traceback.extract_tb(info.value.__traceback__)
    assert (tb[-1].filename, tb[-1].lineno) == (__file__, _line_of(*where))
    # the user's frame that made the call is in the traceback too
    assert any(fs.filename == __file__ and fs.name == "outer" for fs in tb)


def test_context_usable_after_a_hook_raised():
    with pytest.raises(Boom):
        context.overdub(PreBoom(), outer, 1)
    assert context.overdub(PreBoom(), plain, 9.0) == 3.0
    assert context.overdub(context.Context(), outer, 1) == 4


# ------------------------------------------------------------------ RewriteError


def test_rewrite_error_is_an_exception_class():
    assert issubclass(context.RewriteError, Exception)
    err = context.RewriteError("cannot rewrite")
    assert str(err) == "cannot rewrite"
    with pytest.raises(context.RewriteError):
        raise err


def underflow_stack(code):
    """A pass that leaves bytecode no interpreter could run: pops from an empty stack."""
    for _ in range(3):
        code.insert(len(code) - 1, bytecode.Instr("POP_TOP"))
    return code


class Underflow(context.Context):
    passes = (underflow_stack,)


def victim(x):
    return x + 1


def test_bytecode_that_cannot_be_rewritten_raises_rewrite_error():
    with pytest.raises(context.RewriteError) as info:
        context.overdub(Underflow(), victim, 1)
    assert "victim" in str(info.value)


def test_rewrite_error_can_be_avoided_by_opting_out():
    class Careful(Underflow):
        def canrecurse(self, f, /, *args, **kwargs):
            return f is not victim and super().canrecurse(f, *args, **kwargs)

    assert context.overdub(Careful(), victim, 1) == 2


def test_pass_returning_something_else_is_a_type_error():
    class Bad(context.Context):
        passes = (lambda code: None,)

    with pytest.raises(TypeError):
        context.overdub(Bad(), victim, 1)


# -------------------------------------------------------- opting out: canrecurse


def opaque(x):
    note("inside opaque")
    return x * 3


def visible(x):
    note("inside visible")
    return x + 3


class OptOut(Recorder):
    def canrecurse(self, f, /, *args, **kwargs):
        return f is not opaque and super().canrecurse(f, *args, **kwargs)


def test_canrecurse_false_runs_the_function_natively():
    def g():
        return opaque(2) + visible(2)

    ctx = OptOut(metadata=[])
    assert context.overdub(ctx, g) == 11
    names = [n for n, _, _ in ctx.metadata]
    notes = [a[0] for n, a, _ in ctx.metadata if n == "note"]
    assert "opaque" in names and "visible" in names   # both calls are seen ...
    assert notes == ["inside visible"]                # ... only one is entered


def test_canrecurse_false_at_the_top_runs_natively():
    ctx = OptOut(metadata=[])
    assert context.overdub(ctx, opaque, 5) == 15
    assert ctx.metadata == []


def test_module_level_canrecurse_consults_the_context():
    assert context.canrecurse(OptOut(metadata=[]), opaque, 1) is False
    assert context.canrecurse(OptOut(metadata=[]), visible, 1) is True
    assert context.canrecurse(context.Context(), visible, 1) is True


def test_default_fallback_calls_natively_and_can_be_overridden():
    class Loud(context.Context):
        def canrecurse(self, f, /, *args, **kwargs):
            return False

        def fallback(self, f, /, *args, **kwargs):
            self.metadata.append(getattr(f, "__name__", "?"))
            return f(*args, **kwargs)

    ctx = Loud(metadata=[])
    out = context.overdub(ctx, visible, 1)
    assert out == 4
    assert ctx.metadata == ["visible"]

    out, names, notes = record(visible, 1)
    assert out == 4 and notes == ["inside visible"]
