"""A small data-flow pass over the operand stack, run before calls are rewritten.

It answers two questions for every call instruction:

* Does its NULL slot hold NULL? After method loads are made plain, NULL is pushed only
  by PUSH_NULL and by LOAD_GLOBAL with its NULL bit. The compiler also emits calls whose
  slots both hold objects (decorators, comprehensions, ``assert`` messages, ``__exit__``
  at the end of ``with``); for those the call is ``slot0(slot1, *args)`` in every version.
* Which instruction pushed its callee? When one instruction pushed it and that value is
  used only as a callee, the callee can be swapped for what the context says to call
  right after it is pushed, and the call itself stays an ordinary call.
* Can such a callee instead become the first argument of ``STATE.run``, pushed beneath it?
  That needs an ordinary ``CALL``/``CALL_KW`` (one more argument is then passed), slots
  laid out so that the NULL slot stays where it is, and no ``SWAP`` between the load and
  the call that reaches down to the callee, since one more item lies beneath it. (The
  handlers' stack depths are recomputed by ``bytecode`` when the code is assembled.)
"""

from bytecode import Instr, Label, TryBegin

from .._support import PY313

_CALLS = ("CALL", "CALL_KW", "CALL_FUNCTION_EX")
_UNKNOWN = (False, -1)
_NULL = (True, -1)


def _arg_count(instr):
    """Stack items above the two callee slots."""
    name, arg = instr.name, instr.arg
    if name == "CALL":
        return arg
    if name == "CALL_KW":
        return arg + 1
    return 1 + (arg & 1)  # CALL_FUNCTION_EX


# Instructions known to push without consuming anything.
_PURE_PUSHES = frozenset({
    "LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_AND_CLEAR", "LOAD_FAST_LOAD_FAST", "LOAD_CONST",
    "LOAD_GLOBAL", "LOAD_DEREF", "LOAD_CLOSURE", "LOAD_NAME", "LOAD_BUILD_CLASS",
    "LOAD_ASSERTION_ERROR", "LOAD_LOCALS", "PUSH_NULL", "BUILD_TUPLE", "BUILD_LIST", "BUILD_SET",
    "BUILD_MAP", "RETURN_CONST",
})


def _effect(instr, jump):
    """``(popped, pushed)`` as the bytecode library knows them."""
    try:
        pre, post = instr.pre_and_post_stack_effect(jump)
    except Exception:
        pre, post = instr.stack_effect(jump), 0
    # bytecode's convention: a negative ``pre`` pops, a positive one pushes; a negative
    # ``post`` pops too (``MAP_ADD`` is ``(-1, -1)``: it pops the key and the value)
    popped, pushed = max(-pre, 0), post + max(pre, 0)
    if pushed < 0:
        popped, pushed = popped - pushed, 0
    return popped, pushed


def _consumed(instr, jump):
    """How many top entries ``instr`` may consume: an instruction with no known pops that is
    not a plain load may still replace the top of the stack, so the top counts as used."""
    popped = _effect(instr, jump)[0]
    if popped == 0 and instr.name not in _PURE_PUSHES:
        return 1
    return popped


def _pad(stack, depth):
    return (_UNKNOWN,) * (depth - len(stack)) + stack if len(stack) < depth else stack


def _step(i, instr, stack, jump):
    """The stack after ``instr`` (entries are ``(is_null, producer index)``)."""
    name = instr.name
    if name == "PUSH_NULL":
        return stack + (_NULL,)
    if name == "LOAD_GLOBAL" and instr.arg[0]:
        return stack + (((False, i), _NULL) if PY313 else (_NULL, (False, i)))
    if name == "SWAP":
        s = list(_pad(stack, instr.arg))
        s[-1], s[-instr.arg] = s[-instr.arg], s[-1]
        return tuple(s)
    if name == "COPY":
        stack = _pad(stack, instr.arg)
        copied = (stack[-instr.arg][0], -1)
        s = list(stack)
        s[-instr.arg] = copied
        return tuple(s) + (copied,)
    if name in _CALLS:
        depth = _arg_count(instr) + 2
        return stack[: max(len(stack) - depth, 0)] + ((False, i),)
    if name in ("KW_NAMES", "PRECALL"):
        return stack
    popped, pushed = _effect(instr, jump)
    rest = stack[: max(len(stack) - popped, 0)]
    if pushed == 1 and not instr.has_jump():
        return rest + ((False, i),)
    return rest + (_UNKNOWN,) * pushed


def _merge(old, new, spoiled):
    if len(old) != len(new):
        return old
    merged = []
    for a, b in zip(old, new):
        if a == b:
            merged.append(a)
        else:
            spoiled.update(p for p in (a[1], b[1]) if p >= 0)
            merged.append((a[0] or b[0], -1))
    return tuple(merged)


def _entry_states(items):
    """Stack state before each reachable index, and producers spoiled by merging paths."""
    labels = {id(item): i for i, item in enumerate(items) if isinstance(item, Label)}
    seen = {}
    spoiled = set()
    work = [(0, ())]
    while work:
        i, stack = work.pop()
        while i < len(items):
            if i in seen:
                merged = _merge(seen[i], stack, spoiled)
                if merged == seen[i]:
                    break
                stack = merged
            seen[i] = stack
            item = items[i]
            if isinstance(item, TryBegin):
                depth = item.stack_depth
                base = _pad(stack, depth)[len(_pad(stack, depth)) - depth :] if depth else ()
                work.append((labels[id(item.target)], base + (_UNKNOWN,) * (2 if item.push_lasti else 1)))
            if not isinstance(item, Instr):
                i += 1
                continue
            if item.has_jump():
                work.append((labels[id(item.arg)], _step(i, item, stack, True)))
                if item.is_uncond_jump():
                    break
            elif item.is_final():
                break
            stack = _step(i, item, stack, False)
            i += 1
    return seen, spoiled


class CallSites:
    """What the analysis found: ``null_slot(call)`` and ``direct_producers``/``direct_calls``."""

    def __init__(self, items):
        seen, spoiled = _entry_states(items)
        self._null = {}
        callee_of = {}
        for i, stack in seen.items():
            instr = items[i]
            if not isinstance(instr, Instr) or instr.name in ("SWAP", "PUSH_NULL", "KW_NAMES", "PRECALL"):
                continue
            if instr.name == "YIELD_VALUE":
                # The frame may resume after its context ended: a callee loaded before the
                # suspension is asked for at the call instead (see ``_overdub_only`` in activation).
                spoiled.update(p for _, p in stack if p >= 0)
            if instr.name == "COPY":
                if len(stack) >= instr.arg and stack[-instr.arg][1] >= 0:
                    spoiled.add(stack[-instr.arg][1])
                continue
            if instr.name in _CALLS:
                n = _arg_count(instr)
                slots = _pad(stack, n + 2)[-(n + 2):]
                null_slot = slots[1] if PY313 else slots[0]
                self._null[id(instr)] = null_slot[0]
                at = 0 if PY313 or not null_slot[0] else 1
                others = slots[:at] + slots[at + 1 :]
                callee_of[id(instr)] = slots[at][1]
            else:
                popped = max(_consumed(instr, False), _consumed(instr, True) if instr.has_jump() else 0)
                others = stack[len(stack) - popped :] if popped else ()
            spoiled.update(p for _, p in others if p >= 0)
        self.direct_producers = {p for p in callee_of.values() if p >= 0} - spoiled
        self.direct_calls = {c for c, p in callee_of.items() if p in self.direct_producers}
        self.argument_producers, self.argument_calls, self.null_swaps = self._argument_form(
            items, seen, callee_of)

    def _argument_form(self, items, seen, callee_of):
        """Direct callees that can be passed to ``STATE.run`` as its first argument.

        Returns the producers, their calls, and (3.13) the PUSH_NULLs after which the
        NULL must be swapped beneath the callee (``[run, c, NULL]`` -> ``[run, NULL, c]``).
        """
        reached = set()  # callees that a SWAP reaches
        for i, stack in seen.items():
            item = items[i]
            if isinstance(item, Instr) and item.name == "SWAP":
                reached.update(p for _, p in _pad(stack, item.arg)[-item.arg:] if p >= 0)
        producers, calls, null_swaps = set(), set(), set()
        by_id = {id(item): item for item in items if isinstance(item, Instr)}
        for call_id, p in callee_of.items():
            if p not in self.direct_producers or p in reached or by_id[call_id].name not in ("CALL", "CALL_KW"):
                continue
            if not self._null.get(call_id, True):
                ok = True  # [c, x]: c(x, ...) becomes run(c, x, ...)
            elif PY313:
                producer = items[p]
                next_item = items[p + 1] if p + 1 < len(items) else None
                if producer.name == "LOAD_GLOBAL" and producer.arg[0]:
                    ok = True  # pushed [c, NULL]
                elif isinstance(next_item, Instr) and next_item.name == "PUSH_NULL":
                    ok = True
                    null_swaps.add(p + 1)
                else:
                    ok = False
            else:
                after = seen.get(p + 1, ())  # the stack just after the producer
                ok = len(after) >= 2 and after[-2][0]  # the NULL already lies beneath the callee
            if ok:
                producers.add(p)
                calls.add(call_id)
        return producers, calls, null_swaps

    def null_slot(self, instr):
        """True when the call's NULL slot holds NULL (an ordinary call)."""
        return self._null.get(id(instr), True)
