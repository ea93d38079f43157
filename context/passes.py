"""Ready-made rewrite passes. A pass takes a ``bytecode.Bytecode`` and returns one."""

from bytecode import Instr


def float32_literals(bc):
    """The talk's literal translation: every float constant becomes a ``numpy.float32``."""
    import numpy

    for i, instr in enumerate(bc):
        if isinstance(instr, Instr) and instr.name == "LOAD_CONST" and type(instr.arg) is float:
            bc[i] = Instr("LOAD_CONST", numpy.float32(instr.arg), location=instr.location)
    return bc
