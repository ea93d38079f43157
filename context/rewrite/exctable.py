"""Exception-table stack depths: carried over from the original, then verified.

The ``bytecode`` package recomputes the stack depth of every exception-table entry
when it assembles code, and that computation can be wrong (it takes the smallest
depth seen along one path between a ``TryBegin`` and its ``TryEnd``; a bare ``raise``
in a ``try/finally`` inside an ``except`` handler, for example). The interpreter trusts
the table when it unwinds, so a wrong depth crashes it. This module therefore never
lets the package choose a depth:

* ``carry_depths`` walks the original and the rewritten instruction lists (abstract
  ``bytecode`` items) and gives every ``TryBegin`` its original depth plus what the
  rewrite leaves on the stack where the ``try`` starts (the difference between the
  two walks' depths there: ``STATE.run`` pushed beneath a callee whose arguments hold
  an inlined comprehension, say). It also returns the largest depth of the walk, the
  code's stack size.
* ``verify`` then checks the assembled code object against the original, from the
  raw bytes, with CPython's own ``dis.stack_effect``: every instruction reached with
  one depth, no entry deeper than the stack at any instruction it covers, the
  distance between an entry's depth and the stack where its region starts the same
  as in the original for the corresponding handler, the same ``lasti`` flags, and a
  ``co_stacksize`` that holds the deepest stack.

Anything that fails raises ``ExceptionTableError``; the rewriter turns it into a
``RewriteError`` naming the function, so broken code is never run.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import dis

from bytecode import Instr, Label, TryBegin, TryEnd

from .features import RETURN_GENERATOR_COUNTED
from .opinfo import CACHE_ENTRIES, info

_HAVE_ARGUMENT = dis.HAVE_ARGUMENT
_EXTENDED_ARG = dis.opmap["EXTENDED_ARG"]
_JUMPS = frozenset(getattr(dis, "hasjump", ()) or dis.hasjrel) | frozenset(dis.hasjabs)
_ABSOLUTE = frozenset(dis.hasjabs)
_BACKWARD = frozenset(op for op in _JUMPS if "JUMP_BACKWARD" in dis.opname[op])
_UNCONDITIONAL = frozenset(
    dis.opmap[n] for n in ("JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT") if n in dis.opmap
)
_TERMINAL = frozenset(
    dis.opmap[n] for n in ("RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE") if n in dis.opmap
) | _UNCONDITIONAL
_GENERATOR_FLAGS = 0x20 | 0x80 | 0x200  # GENERATOR | COROUTINE | ASYNC_GENERATOR



class ExceptionTableError(Exception):
    """A rewritten code object's exception table or stack size is not provably right."""


# ----------------------------------------------------------------------------- reading


def parse_table(code):
    """``[(start, end, target, depth, lasti)]`` (byte offsets, ``end`` exclusive)."""
    data = code.co_exceptiontable
    entries = []
    pos, n = 0, len(data)

    def varint():
        nonlocal pos
        b = data[pos]
        pos += 1
        value = b & 63
        while b & 64:
            b = data[pos]
            pos += 1
            value = (value << 6) | (b & 63)
        return value

    while pos < n:
        start = varint() * 2
        end = start + varint() * 2
        target = varint() * 2
        dl = varint()
        entries.append((start, end, target, dl >> 1, bool(dl & 1)))
    return entries


def decode(code):
    """``[(offset, opcode, arg, next_offset, jump_target, op_offset)]`` for the real instructions.

    ``offset`` includes any ``EXTENDED_ARG`` prefix (jumps land there); ``op_offset`` is
    the opcode's own, which the interpreter looks up in the exception table.
    """
    raw = code.co_code
    out = []
    ext = 0
    i, n = 0, len(raw)
    start = 0
    while i < n:
        op, arg = raw[i], raw[i + 1] | ext
        nxt = i + 2 + 2 * CACHE_ENTRIES[op]
        if op == _EXTENDED_ARG:
            ext = arg << 8
            i = nxt
            continue
        ext = 0
        target = None
        if op in _JUMPS:
            if op in _ABSOLUTE:
                target = arg * 2
            elif op in _BACKWARD:
                target = nxt - 2 * arg
            else:
                target = nxt + 2 * arg
        out.append((start, op, arg, nxt, target, i))
        i = start = nxt
    return out


_effects = {}  # (opcode, arg, jump) -> dis.stack_effect


def _effect(op, arg, jump):
    key = (op, arg, jump)
    try:
        return _effects[key]
    except KeyError:
        pass
    if op >= _HAVE_ARGUMENT:
        effect = dis.stack_effect(op, arg, jump=jump)
    else:
        effect = dis.stack_effect(op, jump=jump)
    _effects[key] = effect
    return effect


def _covering(instrs, entries):
    """Index of the entry covering each instruction (by its opcode's offset), or None."""
    covering = [None] * len(instrs)
    order = sorted(range(len(entries)), key=lambda e: entries[e][0])
    k = 0
    for e in order:
        start, end = entries[e][0], entries[e][1]
        while k < len(instrs) and instrs[k][5] < start:
            k += 1
        j = k
        while j < len(instrs) and instrs[j][5] < end:
            if covering[j] is not None:
                raise ExceptionTableError("exception-table entries overlap at offset %d" % instrs[j][5])
            covering[j] = e
            j += 1
    return covering


def simulate(code, entries=None):
    """Stack depth before every reachable instruction, and the deepest stack.

    Returns ``(instrs, depths, covering, deepest)``: ``depths[k]`` is None for an
    unreachable instruction. Handlers are entered at their entry's depth plus the
    exception (and ``lasti``). Raises ``ExceptionTableError`` where paths meet with
    different depths, where the stack would go negative, or where a jump or handler
    leads into the middle of an instruction.
    """
    if entries is None:
        entries = parse_table(code)
    instrs = decode(code)
    index = {ins[0]: k for k, ins in enumerate(instrs)}
    covering = _covering(instrs, entries)
    depth = [None] * len(instrs)
    seeded = set()
    initial = 1 if (not RETURN_GENERATOR_COUNTED and code.co_flags & _GENERATOR_FLAGS) else 0
    work = [(0, initial)] if instrs else []
    deepest = initial
    effects = _effects

    def reach(k, d, why, where):
        if k is None:
            raise ExceptionTableError("%s leads into the middle of an instruction" % (why % where))
        if d < 0:
            raise ExceptionTableError("stack underflow before offset %d" % instrs[k][0])
        work.append((k, d))

    while work:
        k, d = work.pop()
        while k < len(instrs):
            old = depth[k]
            if old is not None:
                if old != d:
                    raise ExceptionTableError(
                        "offset %d is reached with stack depths %d and %d" % (instrs[k][0], old, d)
                    )
                break
            depth[k] = d
            if d > deepest:
                deepest = d
            e = covering[k]
            if e is not None and e not in seeded:
                seeded.add(e)
                _, _, target, edepth, lasti = entries[e]
                reach(index.get(target), edepth + 1 + lasti, "the handler of entry %d", e)
                deepest = max(deepest, edepth + 1 + lasti)
            offset, op, arg, nxt, target, _ = instrs[k]
            if target is not None:
                reach(index.get(target), d + _effect(op, arg, True), "the jump at %d", offset)
                if op in _UNCONDITIONAL:
                    break
            if op in _TERMINAL:
                break
            jump = False if target is not None else None
            effect = effects.get((op, arg, jump))
            d += effect if effect is not None else _effect(op, arg, jump)
            if d < 0:
                raise ExceptionTableError("stack underflow after offset %d" % offset)
            k += 1
    return instrs, depth, covering, deepest


# ----------------------------------------------------------------------------- carrying


def _walk(items, flags, handler_depth):
    """Walk the abstract items: ``(depth before each index, depth at each TryBegin, handler depths)``.

    The normal flow is walked first; then each handler some of whose region is reached
    is entered at ``handler_depth(tbs, at_try)`` (``tbs``: that handler's ``TryBegin``s,
    ``at_try``: the depth where each reached ``TryBegin`` starts), or later if that
    returns None, and the walk goes on from there. Returns the deepest stack as well.
    """
    n = len(items)
    labels = {}  # id(label) -> its index
    handlers = {}  # id(handler label) -> its TryBegins
    region, current = [], None  # the TryBegin whose region holds each index, or None
    for i, item in enumerate(items):
        if not isinstance(item, Instr):
            if isinstance(item, Label):
                labels[id(item)] = i
            elif isinstance(item, TryBegin):
                current = item
                handlers.setdefault(id(item.target), []).append(item)
            elif isinstance(item, TryEnd) and current is not None and item.entry is current:
                current = None
        region.append(current)
    depth = [None] * n
    at_try = {}  # id(TryBegin) -> depth where it starts
    entered = {}  # id(handler label) -> depth of its handler
    needed = {}  # handlers whose region is reached, in the order met
    initial = 1 if (not RETURN_GENERATOR_COUNTED and flags & _GENERATOR_FLAGS) else 0
    work = [(0, initial)] if n else []
    deepest = initial
    while True:
        while work:
            i, d = work.pop()
            while i < n:
                old = depth[i]
                if old is not None:
                    if old != d:
                        raise ExceptionTableError("item %d is reached with stack depths %d and %d" % (i, old, d))
                    break
                if d < 0:
                    raise ExceptionTableError("stack underflow at item %d" % i)
                depth[i] = d
                if d > deepest:
                    deepest = d
                item = items[i]
                if not isinstance(item, Instr):
                    if isinstance(item, TryBegin):
                        at_try[id(item)] = d
                    i += 1
                    continue
                tb = region[i]
                if tb is not None and id(tb.target) not in entered:
                    needed.setdefault(id(tb.target), tb)
                effects, jumps, unconditional, final = info(item)
                if jumps:
                    target = labels.get(id(item.arg))
                    if target is None:
                        raise ExceptionTableError("a jump target label is missing from the code")
                    work.append((target, d + (effects[True][0] if effects else item.stack_effect(True))))
                    if unconditional:
                        break
                    d += effects[False][0] if effects else item.stack_effect(False)
                else:
                    if final:
                        break
                    d += effects[None][0] if effects else item.stack_effect()
                i += 1
        for key, tb in list(needed.items()):
            hd = handler_depth(handlers[key], at_try)
            if hd is None:
                continue
            del needed[key]
            entered[key] = hd
            target = labels.get(key)
            if target is None:
                raise ExceptionTableError("a handler label is missing from the code")
            work.append((target, hd + 1 + tb.push_lasti))
            deepest = max(deepest, hd + 1 + tb.push_lasti)
        if not work:
            if needed:
                raise ExceptionTableError("no try region of a handler is reached where it starts")
            return depth, at_try, entered, deepest


def carry_depths(original_items, items, flags):
    """Give every ``TryBegin`` in ``items`` its depth; return the stack size the code needs.

    ``original_items`` are the items ``Bytecode.from_code(..., conserve_exception_block_
    stackdepth=True)`` produced, whose ``TryBegin`` objects carry CPython's own depths.
    The rewrite keeps those objects. A handler's depth is its original depth plus the
    items the rewrite keeps beneath it: the smallest difference between the two walks'
    depths where one of its regions starts (where its ``try`` is set up, the stack
    holds exactly the handler's depth, so every added item lies beneath it; anywhere
    in the region, items lying beneath the handler's depth stay). A handler that the
    original does not have (one added by a user's pass) gets the smallest depth where
    one of its regions starts. ``verify`` checks the result.
    """
    original = {id(item): item.stack_depth for item in original_items if isinstance(item, TryBegin)}
    if not all(isinstance(d, int) for d in original.values()):
        raise ExceptionTableError("the original items carry no exception-table depths")

    def given(tbs, at_try):
        return tbs[0].stack_depth

    # where the original's tries start (no try: nothing to carry, and no walk needed)
    o_at = _walk(original_items, flags, given)[1] if original else {}

    def carry(tbs, at_try):
        added = [at_try[id(tb)] - o_at[id(tb)] for tb in tbs if id(tb) in at_try and id(tb) in o_at]
        if added:
            return original[id(tbs[0])] + min(added)
        if any(id(tb) in original for tb in tbs):
            return None  # wait until one of its regions is reached where it starts
        here = [at_try[id(tb)] for tb in tbs if id(tb) in at_try]
        return min(here) if here else None

    _, _, entered, deepest = _walk(items, flags, carry)
    for item in items:
        if isinstance(item, TryBegin):
            depth = entered.get(id(item.target))
            if depth is None:  # never entered: keep the original's (or any sound) depth
                depth = original.get(id(item), 0)
            item.stack_depth = depth
    return deepest


# ----------------------------------------------------------------------------- checking


def _handlers(entries, instrs, depth, covering):
    """Handlers in code order: ``[(target, depth, lasti, gap)]``.

    ``gap`` is the smallest difference between the stack where one of the handler's
    regions starts and the handler's depth (0 where the compiler set up the ``try``),
    or None when no region is reached.
    """
    found = {}
    for start, _, target, edepth, lasti in entries:
        old = found.get(target)
        if old is not None and old[:2] != [edepth, lasti]:
            raise ExceptionTableError("the handler at %d has two depths or lasti flags" % target)
        found[target] = [edepth, lasti, None]
    previous = None
    for k, e in enumerate(covering):
        if e is not None and e != previous and depth[k] is not None:  # where an entry starts
            gap = depth[k] - entries[e][3]
            v = found[entries[e][2]]
            v[2] = gap if v[2] is None else min(v[2], gap)
        previous = e
    return [(t,) + tuple(v) for t, v in sorted(found.items())]


def check_code(code):
    """Check one code object on its own; return ``(handlers, deepest)`` (see ``_handlers``).

    Every reachable instruction has one depth, no entry is deeper than the stack at an
    instruction it covers (the interpreter would have nothing to pop down to), and
    ``co_stacksize`` holds the deepest stack.
    """
    entries = parse_table(code)
    instrs, depth, covering, deepest = simulate(code, entries)
    if code.co_stacksize < deepest:
        raise ExceptionTableError("co_stacksize %d < deepest stack %d" % (code.co_stacksize, deepest))
    for k, e in enumerate(covering):
        if e is not None and depth[k] is not None and depth[k] < entries[e][3]:
            start, end, target, edepth, _ = entries[e]
            raise ExceptionTableError(
                "entry %d-%d -> %d has depth %d but the stack holds %d at offset %d"
                % (start, end, target, edepth, depth[k], instrs[k][5])
            )
    return _handlers(entries, instrs, depth, covering), deepest


def stack_size(code):
    """The deepest stack of ``code``, which has no exception table, from its raw bytes (checked
    as ``check_code`` checks: one depth per instruction, never below zero)."""
    if code.co_exceptiontable:
        raise ExceptionTableError("stack_size is for code without an exception table")
    return simulate(code, [])[3]


def verify(original, rewritten):
    """Raise ``ExceptionTableError`` unless ``rewritten``'s table is provably right.

    ``check_code`` on the rewritten code, then a comparison with the original: handlers
    correspond in code order (the rewrite keeps the ``TryBegin``/``TryEnd`` structure
    and the order of labels); each pair has the same ``lasti`` flag and the same
    smallest distance between the handler's depth and the stack where one of its
    regions starts (what the rewrite leaves on the stack beneath the handler's depth
    moves both; ``check_code`` already showed the depth is never above the stack).
    """
    r_handlers, _ = check_code(rewritten)
    o_entries = parse_table(original)
    if o_entries:
        instrs, depth, covering, _ = simulate(original, o_entries)
        o_handlers = _handlers(o_entries, instrs, depth, covering)
    else:  # no handler to compare with
        o_handlers = []
    if len(o_handlers) != len(r_handlers):
        raise ExceptionTableError(
            "%d handlers in the original, %d in the rewritten code" % (len(o_handlers), len(r_handlers))
        )
    for (ot, od, ol, o_gap), (rt, rd, rl, r_gap) in zip(o_handlers, r_handlers):
        if ol != rl:
            raise ExceptionTableError("handler at %d/%d: lasti flags differ" % (ot, rt))
        if o_gap != r_gap:
            raise ExceptionTableError(
                "handler at %d (depth %d, %s above it where a region starts) became %d (depth %d, %s)"
                % (ot, od, o_gap, rt, rd, r_gap)
            )


def assemble(bc, original_items, original, compare=True):
    """``bc.to_code()`` with carried-over exception depths and our stack size, verified.

    ``compare``: also check the table against ``original``'s (False when a user's pass
    may have changed the try structure; the code is then checked on its own).
    """
    stacksize = carry_depths(original_items, list(bc), bc.flags)
    new = bc.to_code(stacksize=stacksize, compute_exception_stack_depths=False)
    if compare:
        verify(original, new)
    else:
        check_code(new)
    return new
