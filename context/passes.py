"""Ready-made rewrite passes. A pass takes a ``bytecode.Bytecode`` and returns one."""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from bytecode import Instr


_LOADS = ("LOAD_CONST", "RETURN_CONST")  # 3.12+ returns a constant directly


def float32_literals(bc):
    """The talk's literal translation: every float constant becomes a ``numpy.float32``."""
    import numpy

    for i, instr in enumerate(bc):
        if isinstance(instr, Instr) and instr.name in _LOADS and type(instr.arg) is float:
            bc[i] = Instr(instr.name, numpy.float32(instr.arg), location=instr.location)
    return bc
