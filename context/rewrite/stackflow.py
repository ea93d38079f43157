"""Which call sites have a NULL in their callee slot: a small data-flow pass over the stack.

After method loads are made plain, NULL is pushed only by PUSH_NULL and by LOAD_GLOBAL
with its NULL bit. The compiler also emits calls whose slots both hold objects
(decorators, comprehensions, ``assert`` messages, ``__exit__`` at the end of ``with``);
for those, the object in the NULL slot is the callable (3.11/3.12) or the first
argument (3.13), and the call is ``slot0(slot1, *args)`` in every version.
"""

from bytecode import Instr, Label, TryBegin

from .._support import PY313

_CALLS = ("CALL", "CALL_KW", "CALL_FUNCTION_EX")


def _callee_slot_depth(instr):
    """Depth from the top of the stack of the slot that holds NULL for an ordinary call."""
    name, arg = instr.name, instr.arg
    if name == "CALL":
        n = arg
    elif name == "CALL_KW":
        n = arg + 1
    else:  # CALL_FUNCTION_EX
        n = 1 + (arg & 1)
    return n + 1 if PY313 else n + 2


def _effect(instr, jump):
    try:
        pre, post = instr.pre_and_post_stack_effect(jump)
    except Exception:
        pre, post = instr.stack_effect(jump), 0
    # bytecode's convention: a negative ``pre`` pops, a positive one pushes
    return max(-pre, 0), post + max(pre, 0)


def _step(instr, stack, jump):
    name = instr.name
    if name == "PUSH_NULL":
        return stack + (True,)
    if name == "LOAD_GLOBAL" and instr.arg[0]:
        return stack + ((False, True) if PY313 else (True, False))
    if name in ("SWAP", "COPY") and len(stack) < instr.arg:
        stack = (False,) * (instr.arg - len(stack)) + stack
    if name == "SWAP":
        s = list(stack)
        s[-1], s[-instr.arg] = s[-instr.arg], s[-1]
        return tuple(s)
    if name == "COPY":
        return stack + (stack[-instr.arg],)
    if name in _CALLS:
        # pops the arguments and both callee slots, pushes the result
        depth = _callee_slot_depth(instr) + (1 if PY313 else 0)
        return stack[: len(stack) - depth] + (False,)
    if name in ("KW_NAMES", "PRECALL"):
        return stack
    popped, pushed = _effect(instr, jump)
    return stack[: len(stack) - popped] + (False,) * pushed


def null_slot_calls(items):
    """``{id(call instruction): True if its callee slot holds NULL}`` for reachable calls."""
    labels = {id(item): i for i, item in enumerate(items) if isinstance(item, Label)}
    result = {}
    seen = {}
    work = [(0, ())]
    while work:
        i, stack = work.pop()
        while i < len(items):
            if seen.get(i) == stack:
                break
            seen[i] = stack
            item = items[i]
            if isinstance(item, TryBegin):
                base = ((False,) * item.stack_depth + stack)[-item.stack_depth :] if item.stack_depth else ()
                handler = base + (False,) * (2 if item.push_lasti else 1)
                work.append((labels[id(item.target)], handler))
            if not isinstance(item, Instr):
                i += 1
                continue
            if item.name in _CALLS:
                depth = _callee_slot_depth(item)
                result[id(item)] = len(stack) >= depth and stack[-depth]
            if item.has_jump():
                work.append((labels[id(item.arg)], _step(item, stack, True)))
                if item.is_uncond_jump():
                    break
                stack = _step(item, stack, False)
            elif item.is_final():
                break
            else:
                stack = _step(item, stack, False)
            i += 1
    return result
