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
  handlers' stack depths then grow by that item: see ``exctable``.)
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import dis
import enum

from bytecode import UNSET, Instr, Label, TryBegin

from .features import NULL_AFTER_CALLABLE
from .opinfo import pre_and_post, stack_effect

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
        pre, post = pre_and_post(instr, jump)
    except Exception:
        pre, post = stack_effect(instr, jump), 0
    # bytecode's convention: a negative ``pre`` pops, a positive one pushes; a negative
    # ``post`` pops too (``MAP_ADD`` is ``(-1, -1)``: it pops the key and the value)
    popped, pushed = max(-pre, 0), post + max(pre, 0)
    if pushed < 0:
        popped, pushed = popped - pushed, 0
    return popped, pushed


def _consumed(instr, popped):
    """How many top entries ``instr`` may consume: an instruction with no known pops that is
    not a plain load may still replace the top of the stack, so the top counts as used."""
    if popped == 0 and instr.name not in _PURE_PUSHES:
        return 1
    return popped


def _pad(stack, depth):
    return (_UNKNOWN,) * (depth - len(stack)) + stack if len(stack) < depth else stack


# What ``_ops`` records for each item, by its first field.
_OTHER, _PUSH_NULL, _GLOBAL_NULL, _SWAP, _COPY, _CALL, _KEEP, _TRY = range(8)
_NEXT, _BRANCH, _GOTO, _FINAL = range(4)  # how control leaves an instruction
_KINDS = {"PUSH_NULL": _PUSH_NULL, "SWAP": _SWAP, "COPY": _COPY, "KW_NAMES": _KEEP, "PRECALL": _KEEP}
_KINDS.update((name, _CALL) for name in _CALLS)


_HASCONST = frozenset(dis.hasconst)
# Opcodes whose effect never depends on their argument: none, a constant, a local, a cell or
# free variable, or a jump target (the label).
_ARG_FREE = frozenset(
    op for op in range(256)
    if op not in getattr(dis, "hasarg", range(dis.HAVE_ARGUMENT, 256))
    or op in _HASCONST or op in dis.haslocal or op in dis.hasfree
    or op in dis.hasjrel or op in dis.hasjabs
)
_templates = {}  # _template_key(instr) -> its ``_ops`` entry (with no jump target)


def _template_key(item):
    """What an instruction's ``_ops`` entry depends on: its opcode and the part of its argument
    that sets its effect (the int, or the flag of ``(flag, name)``; no other argument does),
    or None where that is not known."""
    op, arg = item._opcode, item._arg
    if op in _ARG_FREE:
        return op
    kind = type(arg)
    if kind is int:
        return (op, arg)
    if kind is str:  # a name
        return op
    if arg is UNSET:
        return op
    if isinstance(arg, enum.Enum):  # one of bytecode's enums (Compare...)
        return (op, type(arg), arg)
    if isinstance(arg, int):  # another kind of int: not known
        return None
    if isinstance(arg, tuple):
        return (op, "flag", arg[0]) if arg and type(arg[0]) is bool else None
    return (op, None)


def _op(item, target):
    name = item.name
    kind = _KINDS.get(name, _OTHER)
    n = 0
    if kind == _OTHER and name == "LOAD_GLOBAL" and item.arg[0]:
        kind = _GLOBAL_NULL
    elif kind == _SWAP or kind == _COPY:
        n = item.arg
    elif kind == _CALL:
        n = _arg_count(item) + 2
    effect = _effect(item, False)
    if item.has_jump():
        jump_effect = _effect(item, True)
        flow = _GOTO if item.is_uncond_jump() else _BRANCH
        consumed = max(_consumed(item, effect[0]), _consumed(item, jump_effect[0]))
    else:
        jump_effect = None
        flow = _FINAL if item.is_final() else _NEXT
        consumed = _consumed(item, effect[0])
    return (kind, n, flow, target, effect, jump_effect, consumed)


def _ops(items):
    """What the walk needs of each item, read once: ``None`` for labels and other markers,
    ``(_TRY, handler index, entries pushed)`` for a ``TryBegin``, else ``(kind, n, flow,
    jump target, effect, jump effect, consumed)``: ``n`` is the argument of ``SWAP``/``COPY``
    and the stack items a call takes; the effects are ``(popped, pushed)`` pairs, and
    ``consumed`` what the call-site search counts as used (see ``_consumed``)."""
    labels = {id(item): i for i, item in enumerate(items) if isinstance(item, Label)}
    ops = []
    templates = _templates
    for item in items:
        if type(item) is not Instr and not isinstance(item, Instr):
            if isinstance(item, TryBegin):
                ops.append((_TRY, labels.get(id(item.target)), item))
            else:
                ops.append(None)
            continue
        key = _template_key(item)
        op = templates.get(key) if key is not None else None
        if op is None:
            op = _op(item, None)
            if key is not None:
                templates[key] = op
        if op[2] == _BRANCH or op[2] == _GOTO:
            op = op[:3] + (labels.get(id(item._arg)),) + op[4:]
        ops.append(op)
    return ops


def _step(i, op, stack, jump):
    """The stack after the instruction ``op`` at ``i`` (entries are ``(is_null, producer index)``)."""
    kind = op[0]
    if kind == _OTHER:
        popped, pushed = op[5] if jump else op[4]
        rest = stack[: len(stack) - popped] if popped <= len(stack) else ()
        if pushed == 1 and op[2] != _BRANCH and op[2] != _GOTO:  # pushed by this instruction (not a jump)
            return rest + ((False, i),)
        return rest + (_UNKNOWN,) * pushed if pushed else rest
    if kind == _PUSH_NULL:
        return stack + (_NULL,)
    if kind == _GLOBAL_NULL:
        return stack + (((False, i), _NULL) if NULL_AFTER_CALLABLE else (_NULL, (False, i)))
    if kind == _SWAP:
        n = op[1]
        s = list(_pad(stack, n))
        s[-1], s[-n] = s[-n], s[-1]
        return tuple(s)
    if kind == _COPY:
        n = op[1]
        stack = _pad(stack, n)
        copied = (stack[-n][0], -1)
        s = list(stack)
        s[-n] = copied
        return tuple(s) + (copied,)
    if kind == _CALL:
        return stack[: max(len(stack) - op[1], 0)] + ((False, i),)
    return stack  # KW_NAMES, PRECALL


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


def _entry_states(items, ops):
    """Stack state before each reachable index, and producers spoiled by merging paths."""
    seen = {}
    spoiled = set()
    work = [(0, ())]
    n = len(items)
    while work:
        i, stack = work.pop()
        while i < n:
            old = seen.get(i)
            if old is not None:
                if old == stack:
                    break
                merged = _merge(old, stack, spoiled)
                if merged == old:
                    break
                stack = merged
            seen[i] = stack
            op = ops[i]
            if op is None:
                i += 1
                continue
            if op[0] == _TRY:
                tb = op[2]
                depth = tb.stack_depth
                base = _pad(stack, depth)[len(_pad(stack, depth)) - depth :] if depth else ()
                work.append((op[1], base + (_UNKNOWN,) * (2 if tb.push_lasti else 1)))
                i += 1
                continue
            flow = op[2]
            if flow == _BRANCH or flow == _GOTO:
                work.append((op[3], _step(i, op, stack, True)))
                if flow == _GOTO:
                    break
            elif flow == _FINAL:
                break
            stack = _step(i, op, stack, False)
            i += 1
    return seen, spoiled


class CallSites:
    """What the analysis found: ``null_slot(call)``, ``direct_producers``/``direct_calls``
    and ``argument_form()``."""

    def __init__(self, items):
        self._null = {}
        self._argument = None
        if not any(isinstance(item, Instr) and item.name in _CALLS for item in items):
            # no call site: nothing to find (``null_slot`` is True for any call)
            self.direct_producers, self.direct_calls = set(), set()
            self._analysed = None
            return
        ops = _ops(items)
        seen, spoiled = _entry_states(items, ops)
        callee_of = {}
        for i, stack in seen.items():
            op = ops[i]
            if op is None or op[0] == _TRY:
                continue
            kind = op[0]
            if kind == _SWAP or kind == _PUSH_NULL or kind == _KEEP:
                continue
            instr = items[i]
            if instr.name == "YIELD_VALUE":
                # The frame may resume after its context ended: a callee loaded before the
                # suspension is asked for at the call instead (see ``_overdub_only`` in activation).
                spoiled.update(p for _, p in stack if p >= 0)
            if kind == _COPY:
                if len(stack) >= instr.arg and stack[-instr.arg][1] >= 0:
                    spoiled.add(stack[-instr.arg][1])
                continue
            if kind == _CALL:
                slots = _pad(stack, op[1])[-op[1]:]
                null_slot = slots[1] if NULL_AFTER_CALLABLE else slots[0]
                self._null[id(instr)] = null_slot[0]
                at = 0 if NULL_AFTER_CALLABLE or not null_slot[0] else 1
                others = slots[:at] + slots[at + 1 :]
                callee_of[id(instr)] = slots[at][1]
            else:
                popped = op[6]
                others = stack[len(stack) - popped :] if popped else ()
            spoiled.update(p for _, p in others if p >= 0)
        self.direct_producers = {p for p in callee_of.values() if p >= 0} - spoiled
        self.direct_calls = {c for c, p in callee_of.items() if p in self.direct_producers}
        self._analysed = (items, seen, callee_of)

    def argument_form(self):
        """``(producers, calls, null_swaps)`` for passing callees to ``STATE.run`` (see
        ``_argument_form``), worked out on the first request: only configurations with
        ``callee_as_argument`` ask."""
        if self._argument is None:
            analysed = self._analysed
            self._argument = self._argument_form(*analysed) if analysed else (set(), set(), set())
        return self._argument

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
            elif NULL_AFTER_CALLABLE:
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
