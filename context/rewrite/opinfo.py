"""Stack effects of instructions, from a per-opcode table where the argument does not matter.

The stack analysis (``stackflow``) and the exception-table walk (``exctable``) ask for the
effect of every instruction, often several times. Most opcodes' effects do not depend on
their argument (``LOAD_FAST``, ``STORE_ATTR``, ``POP_JUMP_IF_FALSE``...): for those the
answer is read from a table filled once per opcode, and is exactly what ``bytecode``'s
``Instr.stack_effect`` and ``Instr.pre_and_post_stack_effect`` return; for the others
(``CALL``, ``BUILD_TUPLE``, ``LOAD_GLOBAL``...) those methods are asked.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import dis

from bytecode import instr as _bytecode_instr

# inline cache entries (code units) after each opcode, by opcode
if isinstance(dis._inline_cache_entries, dict):  # 3.13: by name
    CACHE_ENTRIES = [dis._inline_cache_entries.get(dis.opname[op], 0) for op in range(256)]
else:
    CACHE_ENTRIES = list(dis._inline_cache_entries) + [0] * (256 - len(dis._inline_cache_entries))

_JUMPS = (None, True, False)
_PROBES = tuple(range(32)) + tuple(1 << k for k in range(5, 17))
# bytecode's own tables of pre/post effects; without them (another bytecode release) every
# pre/post effect is asked of the instruction
_STATIC = getattr(_bytecode_instr, "STATIC_STACK_EFFECTS", None)
_DYNAMIC = getattr(_bytecode_instr, "DYNAMIC_STACK_EFFECTS", None)

_table = {}  # opcode -> (effects, has_jump, unconditional, final); effects: {jump: (effect,
# (pre, post) or None)}, or None where the argument matters


def _fixed(op):
    """The effects of ``op`` for each ``jump``, if they do not depend on its argument."""
    try:
        effects = {}
        for jump in _JUMPS:
            if op < dis.HAVE_ARGUMENT:
                effect = dis.stack_effect(op, jump=jump)
            else:
                found = {dis.stack_effect(op, arg, jump=jump) for arg in _PROBES}
                if len(found) != 1:
                    return None
                effect = found.pop()
            if _STATIC is None or _DYNAMIC is None or op in _DYNAMIC:
                pre_post = None
            else:
                pre_post = _STATIC.get(op, (effect, 0))
            effects[jump] = (effect, pre_post)
        return effects
    except ValueError:  # not a real opcode: let the instruction answer
        return None


def info(instr):
    """``(effects, has_jump, unconditional jump, final)`` for ``instr``'s opcode (see ``_table``)."""
    op = instr.opcode
    try:
        return _table[op]
    except KeyError:
        found = _table[op] = (_fixed(op), instr.has_jump(), instr.is_uncond_jump(), instr.is_final())
        return found


def stack_effect(instr, jump=None):
    """``instr.stack_effect(jump)``."""
    fixed = info(instr)[0]
    if fixed is None:
        return instr.stack_effect(jump)
    return fixed[jump][0]


def pre_and_post(instr, jump):
    """``instr.pre_and_post_stack_effect(jump)``."""
    fixed = info(instr)[0]
    if fixed is None or fixed[jump][1] is None:
        return instr.pre_and_post_stack_effect(jump)
    return fixed[jump][1]
