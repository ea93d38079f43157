"""Code transformation passes: the talk's 32-bit literal pass and user-written
passes over ``bytecode.Bytecode``."""

import bytecode
import numpy as np

import context


class Float32(context.Context):
    passes = (context.passes.float32_literals,)


def half(x):
    return x * 0.5


def tenth(x):
    return x * 0.1


def literal():
    return 0.25


def calls_literal():
    return literal()


def int_literal():
    return 3


def test_float32_literals_keeps_float32_arithmetic_in_float32():
    out = context.overdub(Float32(), half, np.float32(3.0))
    assert type(out) is np.float32
    assert out == np.float32(1.5)


def test_float32_literals_changes_the_literal_itself():
    # natively: a Python float
    assert type(half(3)) is float and type(literal()) is float
    # under the pass the constant is a float32, so int * float32 -> float32
    out = context.overdub(Float32(), half, 3)
    assert type(out) is np.float32 and out == 1.5
    # a returned constant (RETURN_CONST on 3.12+) is converted too
    out = context.overdub(Float32(), literal)
    assert type(out) is np.float32 and out == 0.25


def test_float32_literals_rounds_the_value_to_32_bits():
    out = context.overdub(Float32(), tenth, np.float64(1.0))
    assert out == float(np.float32(0.1))
    assert out != 0.1
    assert tenth(np.float64(1.0)) == 0.1


def test_float32_literals_applies_to_callees():
    out = context.overdub(Float32(), calls_literal)
    assert type(out) is np.float32 and out == 0.25


def test_float32_literals_leaves_integers_alone():
    out = context.overdub(Float32(), int_literal)
    assert type(out) is int and out == 3


def test_pass_does_not_leak_into_native_code_or_other_contexts():
    context.overdub(Float32(), half, 3)
    assert type(half(3)) is float
    assert type(context.overdub(context.Context(), half, 3)) is float
    assert type(context.overdub(context.Context(), calls_literal)) is float


# --------------------------------------------------------- user-written passes

SEEN = []


def eighth_to_eight(code):
    """Replace the float constant 0.125 with 8.0 wherever it is loaded or returned."""
    SEEN.append(type(code))
    for instr in code:
        if (isinstance(instr, bytecode.Instr) and instr.name in ("LOAD_CONST", "RETURN_CONST")
                and type(instr.arg) is float and instr.arg == 0.125):
            instr.arg = 8.0
    return code


class Eighths(context.Context):
    passes = (eighth_to_eight,)


def scale(x):
    return x * 0.125


def returns_eighth():
    return 0.125


def scale_twice(x):
    return scale(x) + returns_eighth()


def test_user_pass_replaces_a_constant():
    SEEN.clear()
    assert scale(2.0) == 0.25
    assert context.overdub(Eighths(), scale, 2.0) == 16.0
    assert SEEN and all(t is bytecode.Bytecode for t in SEEN)


def test_user_pass_applies_to_callees_and_returned_constants():
    assert scale_twice(2.0) == 0.375
    assert context.overdub(Eighths(), scale_twice, 2.0) == 24.0
    assert context.overdub(context.Context(), scale_twice, 2.0) == 0.375


def test_passes_compose_in_order():
    def times_two_to_three(code):
        for instr in code:
            if (isinstance(instr, bytecode.Instr) and instr.name == "LOAD_CONST"
                    and type(instr.arg) is float and instr.arg == 8.0):
                instr.arg = 3.0
        return code

    class Both(context.Context):
        passes = (eighth_to_eight, times_two_to_three)

    class Reversed(context.Context):
        passes = (times_two_to_three, eighth_to_eight)

    assert context.overdub(Both(), scale, 2.0) == 6.0       # 0.125 -> 8.0 -> 3.0
    assert context.overdub(Reversed(), scale, 2.0) == 16.0  # 0.125 -> 8.0 only


def test_subclass_inherits_passes():
    class Sub(Eighths):
        pass

    assert context.overdub(Sub(), scale, 2.0) == 16.0
