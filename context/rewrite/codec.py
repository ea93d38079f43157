"""Fast conversion between code objects and the rewriter's instruction lists.

The rewriter's passes work on the ``bytecode`` package's abstract items (``Instr`` with
``Label`` jump targets, ``TryBegin``/``TryEnd`` around protected regions). Building those
items with ``Bytecode.from_code`` and assembling them with ``Bytecode.to_code`` is
general (any instruction list, any argument kind, stack sizes and exception depths
computed) and cost about 85% of a rewrite. The rewrite needs much less: it reads a
code object CPython made and gives back one with instructions inserted between the
original ones, whose stack size and exception depths it already knows (``exctable``).
``decode`` and ``encode`` do exactly that:

* ``decode(code)`` gives the items ``Bytecode.from_code(code,
  conserve_exception_block_stackdepth=True)`` gives (the tests compare them on every
  function of a large part of the standard library), reading ``co_code`` once, and
  remembers the raw argument of each instruction.
* ``encode(items, code, stacksize)`` assembles items into a copy of ``code``: the
  original instructions keep their raw arguments; inserted ones are encoded from
  their abstract argument; jump offsets, ``EXTENDED_ARG`` prefixes, inline caches,
  the location table and the exception table are written as CPython's assembler
  writes them.

Anything either function does not know (an argument kind the rewrite never inserts,
a local that the code does not have, a table it cannot map) raises ``Unsupported``, and
the caller uses the ``bytecode`` package instead. ``exctable.verify`` checks the result
either way.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import dis
from itertools import accumulate

from bytecode import Instr, Label, TryBegin, TryEnd, UNSET
from bytecode.instr import CellVar, FreeVar, InstrLocation

from .exctable import parse_table
from .opinfo import CACHE_ENTRIES
from .features import COMPARE_ARG_LOW_BITS, COMPARE_ARG_TO_BOOL_BIT, LOCAL_INDEX_COVERS_CELLS

try:  # the argument classification the package itself uses, so that items are identical
    from bytecode.instr import (
        BITFLAG2_OPCODES, BITFLAG_OPCODES, DUAL_ARG_OPCODES, HAS_ABSOLUTE_JUMP,
        HAS_BACKWARD_RELATIVE_JUMP, HAS_FORWARD_RELATIVE_JUMP,
    )
    from bytecode.concrete import (  # noqa: F401 (the enums the package decodes into)
        BinaryOp, Compare, Intrinsic1Op, Intrinsic2Op, FormatValue,
    )
    AVAILABLE = hasattr(Instr, "_from_trusted") and hasattr(InstrLocation, "_from_tuple")
except ImportError:  # another version of the package: the rewriter uses it whole
    AVAILABLE = False


class Unsupported(Exception):
    """The fast codec does not handle this code or item list; use the ``bytecode`` package."""


_EXTENDED_ARG = dis.opmap["EXTENDED_ARG"]
_NOP = dis.opmap["NOP"]
_OPNAME = dis.opname

# argument kinds, one per opcode
(_NONE, _INT, _CONST, _LOCAL, _DUAL, _NAME, _NAME1, _NAME2, _FREE, _COMPARE, _ENUM,
 _FWD, _BACK, _ABS, _UNKNOWN) = range(15)


_HAS_ARG = frozenset(getattr(dis, "hasarg", range(dis.HAVE_ARGUMENT, 256)))


def _kinds():
    kinds = [_UNKNOWN] * 256  # not an opcode, or an instrumented one: never in a code CPython made
    if not AVAILABLE:
        return kinds, {}
    enums = {dis.opmap[name]: enum for name, enum in (
        ("BINARY_OP", BinaryOp), ("CALL_INTRINSIC_1", Intrinsic1Op), ("CALL_INTRINSIC_2", Intrinsic2Op),
        ("CONVERT_VALUE", FormatValue),
    ) if name in dis.opmap}
    for op in range(256):
        name = _OPNAME[op]
        if name.startswith(("<", "INSTRUMENTED_")) or op == _EXTENDED_ARG:
            continue
        if op not in _HAS_ARG:
            kind = _NONE
        elif op in HAS_FORWARD_RELATIVE_JUMP:
            kind = _FWD
        elif op in HAS_BACKWARD_RELATIVE_JUMP:
            kind = _BACK
        elif op in HAS_ABSOLUTE_JUMP:
            kind = _ABS
        elif op in dis.hasconst:
            kind = _CONST
        elif op in dis.haslocal:
            kind = _DUAL if op in DUAL_ARG_OPCODES else _LOCAL
        elif op in dis.hasname:
            kind = _NAME2 if op in BITFLAG2_OPCODES else _NAME1 if op in BITFLAG_OPCODES else _NAME
        elif op in dis.hasfree:
            kind = _FREE
        elif op in dis.hascompare:
            kind = _COMPARE
        elif op in enums:
            kind = _ENUM
        else:
            kind = _INT
        kinds[op] = kind
    return kinds, enums


_KIND, _ENUMS = _kinds()
_JUMP_KINDS = (_FWD, _BACK, _ABS)


def _locals_lookup(code):
    """What a local or cell index names, as the package spells it."""
    varnames = code.co_varnames
    cells = list(varnames) + [CellVar(n) for n in code.co_cellvars if n not in varnames]
    frees = [FreeVar(n) for n in code.co_freevars]
    return cells, frees


# ----------------------------------------------------------------------------- decoding


def decode(code):
    """``(items, raw)``: the abstract items of ``code`` (as ``Bytecode.from_code`` gives them,
    exception depths kept) and ``{id(instr): (instr, raw argument)}`` for ``encode``."""
    if not AVAILABLE:
        raise Unsupported("the bytecode package lacks the fast constructors")
    co = code.co_code
    n = len(co)
    kinds, caches, opname = _KIND, CACHE_ENTRIES, _OPNAME
    # instructions: (start unit with prefixes, op, raw arg, end unit after caches, unit of the op,
    # whether EXTENDED_ARG prefixes it)
    ops = []
    ext = 0
    start = None
    i = 0
    targets = set()
    while i < n:
        op = co[i]
        a = co[i + 1]
        if op == _EXTENDED_ARG:
            ext = (ext << 8) | a
            if start is None:
                start = i >> 1
            i += 2
            continue
        unit = i >> 1
        arg = (ext << 8) | a
        if start is None:
            start = unit
        end = unit + 1 + caches[op]
        kind = kinds[op]
        if kind == _FWD:
            targets.add(end + arg)
        elif kind == _BACK:
            targets.add(end - arg)
        elif kind == _ABS:
            targets.add(arg)
        ops.append((start, op, arg, end, unit, ext != 0 or start != unit))
        ext = 0
        start = None
        i = end << 1
    if start is not None:
        raise Unsupported("EXTENDED_ARG at the end of the code")

    entries = parse_table(code)
    starts, ends = {}, {}
    for entry in entries:
        s, e, t = entry[0] >> 1, entry[1] >> 1, entry[2] >> 1
        if s in starts or e in ends:
            raise Unsupported("two exception-table entries start or end at one instruction")
        starts[s] = entry
        ends[e] = entry
        targets.add(t)

    consts, names = code.co_consts, code.co_names
    cells, frees = _locals_lookup(code)
    ncells = len(cells)
    local_names = cells + [f for f in frees if f.name not in code.co_varnames] if LOCAL_INDEX_COVERS_CELLS \
        else code.co_varnames
    positions = list(code.co_positions())
    from_trusted = Instr._from_trusted
    from_tuple = InstrLocation._from_tuple

    items = []
    raw = {}
    labels = {}
    open_tries = {}
    tries = []
    jumps = []
    last_pos = last_loc = None
    for start, op, arg, end, unit, extended in ops:
        if start in targets:
            label = labels[start] = Label()
            items.append(label)
        entry = starts.get(start)
        if entry is not None:
            tb = TryBegin(None, entry[4], entry[3])
            open_tries[start] = (tb, entry)
            tries.append((tb, entry))
            items.append(tb)
        kind = kinds[op]
        if kind == _NONE:
            value = UNSET
        elif kind == _INT:
            value = arg
        elif kind == _CONST:
            value = consts[arg]
        elif kind == _NAME1:
            value = (bool(arg & 1), names[arg >> 1])
        elif kind == _NAME:
            value = names[arg]
        elif kind == _LOCAL:
            value = local_names[arg]
        elif kind in _JUMP_KINDS:
            value = None
            jumps.append((len(items), end + arg if kind == _FWD else end - arg if kind == _BACK else arg))
        elif kind == _FREE:
            if arg < ncells:
                value = cells[arg]
                if not isinstance(value, CellVar):
                    value = CellVar(value)
            else:
                value = frees[arg - ncells]
        elif kind == _NAME2:
            value = (bool(arg & 1), bool(arg & 2), names[arg >> 2])
        elif kind == _DUAL:
            value = (local_names[arg >> 4], local_names[arg & 15])
        elif kind == _ENUM:
            value = _ENUMS[op](arg)
        elif kind == _COMPARE:
            value = Compare(_compare_value(arg))
        elif kind == _UNKNOWN:  # the general path says what is wrong (RewriteError)
            raise Unsupported("opcode %s is not understood" % opname[op])
        else:
            raise Unsupported("opcode %s" % opname[op])
        if extended and op == _NOP:
            value = UNSET
        pos = positions[unit]
        if pos != last_pos:
            last_loc = from_tuple(*pos)
            last_pos = pos
        instr = from_trusted(opname[op], op, value, last_loc)
        items.append(instr)
        if kind not in _JUMP_KINDS:
            raw[id(instr)] = (instr, arg)
        entry = ends.get(end)
        if entry is not None:
            opened = open_tries.pop(entry[0] >> 1, None)
            if opened is None:
                raise Unsupported("an exception-table entry ends before it starts")
            items.append(TryEnd(opened[0]))
    if open_tries:
        raise Unsupported("an exception-table entry does not end at an instruction")
    try:
        for index, target in jumps:
            items[index]._arg = labels[target]
        for tb, entry in tries:
            tb.target = labels[entry[2] >> 1]
    except KeyError as exc:
        raise Unsupported("a jump or handler lands inside an instruction") from exc
    return items, raw


def _compare_value(arg):
    """The ``Compare`` value of a raw ``COMPARE_OP`` argument."""
    if COMPARE_ARG_TO_BOOL_BIT:
        return (arg >> 5) + (16 if arg & 16 else 0)
    if COMPARE_ARG_LOW_BITS:
        return arg >> 4
    return arg


# ----------------------------------------------------------------------------- encoding


_UNITS = [1 + n for n in CACHE_ENTRIES]  # code units of an instruction without prefixes
_CACHE_BYTES = [(0,) * (2 * n) for n in CACHE_ENTRIES]


def _extended(arg):
    """``EXTENDED_ARG`` prefixes ``arg`` needs."""
    return 0 if arg < 0x100 else 1 if arg < 0x10000 else 2 if arg < 0x1000000 else 3


class _Tables:
    """Constants, names and locals of the code being assembled, extended on demand."""

    def __init__(self, code):
        self.consts = list(code.co_consts)
        self.const_index = {}
        for i, c in enumerate(self.consts):
            self.const_index.setdefault(id(c), i)
        self.names = list(code.co_names)
        self.name_index = {}
        for i, name in enumerate(self.names):
            self.name_index.setdefault(name, i)
        cells, frees = _locals_lookup(code)
        self.free_index = {}
        for i, c in enumerate(cells):
            self.free_index.setdefault(("cell", c.name if isinstance(c, CellVar) else c), i)
        for i, f in enumerate(frees):
            self.free_index.setdefault(("free", f.name), len(cells) + i)
        local_names = cells + [f for f in frees if f.name not in code.co_varnames] \
            if LOCAL_INDEX_COVERS_CELLS else list(code.co_varnames)
        self.local_index = {}
        for i, v in enumerate(local_names):
            key = v if isinstance(v, str) else ("cell" if isinstance(v, CellVar) else "free", v.name)
            self.local_index.setdefault(key, i)

    def const(self, value):
        i = self.const_index.get(id(value))
        if i is None:
            i = self.const_index[id(value)] = len(self.consts)
            self.consts.append(value)
        return i

    def name(self, value):
        if type(value) is not str:
            raise Unsupported("name argument %r" % (value,))
        i = self.name_index.get(value)
        if i is None:
            i = self.name_index[value] = len(self.names)
            self.names.append(value)
        return i

    def local(self, value):
        key = value if isinstance(value, str) else (
            "cell" if isinstance(value, CellVar) else "free" if isinstance(value, FreeVar) else None, value)
        i = self.local_index.get(key) if key[0] is not None else None
        if i is None:
            raise Unsupported("local %r is not one of the code's" % (value,))
        return i

    def free(self, value):
        kind = "cell" if isinstance(value, CellVar) else "free" if isinstance(value, FreeVar) else None
        i = self.free_index.get((kind, getattr(value, "name", None)))
        if i is None:
            raise Unsupported("cell or free variable %r is not one of the code's" % (value,))
        return i


def _raw_arg(instr, tables):
    """The raw argument of an inserted (or changed) instruction."""
    op = instr._opcode
    kind = _KIND[op]
    arg = instr._arg
    if kind == _NONE:
        return 0
    if kind == _INT:
        if type(arg) is not int:
            raise Unsupported("argument %r of %s" % (arg, instr._name))
        return arg
    if kind == _CONST:
        return tables.const(arg)
    if kind == _NAME:
        return tables.name(arg)
    if kind == _NAME1:
        return (tables.name(arg[1]) << 1) | bool(arg[0])
    if kind == _NAME2:
        return (tables.name(arg[2]) << 2) | (bool(arg[1]) << 1) | bool(arg[0])
    if kind == _LOCAL:
        return tables.local(arg)
    if kind == _DUAL:
        return (tables.local(arg[0]) << 4) | tables.local(arg[1])
    if kind == _FREE:
        return tables.free(arg)
    if kind == _ENUM and isinstance(arg, _ENUMS[op]):
        return int(arg)
    raise Unsupported("%s with argument %r" % (instr._name, arg))


def encode(items, code, stacksize, raw):
    """A copy of ``code`` whose instructions are ``items`` (see the module docstring).

    ``raw`` is what ``decode`` returned with the original items; every ``TryBegin``
    carries its depth already (``exctable.carry_depths``).
    """
    tables = _Tables(code)
    kinds = _KIND
    ops, args, locs, jump_to = [], [], [], []
    label_at = {}  # id(label) -> index of the next instruction
    regions = []  # (first index, end index, TryBegin)
    active = None
    raw_get = raw.get
    for item in items:
        cls = type(item)
        if cls is Instr:
            op = item._opcode
            kind = kinds[op]
            if kind in _JUMP_KINDS:
                target = item._arg
                if type(target) is not Label:
                    raise Unsupported("%s without a label" % item._name)
                jump_to.append((len(ops), kind, target))
                arg = 0
            else:
                known = raw_get(id(item))
                if known is not None and known[0] is item:
                    arg = known[1]
                else:
                    arg = _raw_arg(item, tables)
            ops.append(op)
            args.append(arg)
            locs.append(item._location)
        elif cls is Label:
            label_at[id(item)] = len(ops)
        elif cls is TryBegin:
            if active is not None:
                raise Unsupported("a try region begins inside another")
            active = (len(ops), item)
        elif cls is TryEnd:
            if active is None or item.entry is not active[1]:
                raise Unsupported("a try region ends that is not open")
            if len(ops) > active[0]:
                regions.append((active[0], len(ops), active[1]))
            active = None
        else:
            raise Unsupported("item %r" % (item,))
    if active is not None:
        raise Unsupported("a try region is not closed")
    try:
        jumps = [(i, kind, label_at[id(target)]) for i, kind, target in jump_to]
        handlers = [label_at[id(tb.target)] for _, _, tb in regions]
    except KeyError as exc:
        raise Unsupported("a jump or handler label is not in the code") from exc

    # sizes and offsets, until the jump arguments fit their prefixes
    base = [_UNITS[op] for op in ops]
    sizes = [b if a < 0x100 else b + _extended(a) for b, a in zip(base, args)]
    for _ in range(8):
        offsets = list(accumulate(sizes, initial=0))
        grown = False
        for i, kind, t in jumps:
            end = offsets[i + 1]
            target = offsets[t]
            if kind == _FWD:
                arg = target - end
            elif kind == _BACK:
                arg = end - target
            else:
                arg = target
            if arg < 0:
                raise Unsupported("a jump changed direction")
            args[i] = arg
            size = base[i] + _extended(arg)
            if size != sizes[i]:
                sizes[i] = size
                grown = True
        if not grown:
            break
    else:
        raise Unsupported("jump offsets do not settle")

    out = []
    append, extend, caches = out.append, out.extend, _CACHE_BYTES
    for op, arg, size, b in zip(ops, args, sizes, base):
        if size != b:
            ext = size - b
            while ext:
                append(_EXTENDED_ARG)
                append((arg >> (8 * ext)) & 0xFF)
                ext -= 1
        append(op)
        append(arg & 0xFF)
        if b > 1:
            extend(caches[op])
    return code.replace(
        co_code=bytes(out),
        co_consts=tuple(tables.consts),
        co_names=tuple(tables.names),
        co_linetable=_location_table(sizes, locs, code.co_firstlineno),
        co_exceptiontable=_exception_table(regions, handlers, offsets),
        co_stacksize=stacksize,
    )


def _varint(out, value):
    while value >= 64:
        out.append(64 | (value & 63))
        value >>= 6
    out.append(value)


def _svarint(out, value):
    _varint(out, ((-value) << 1) | 1 if value < 0 else value << 1)


def _location_table(sizes, locs, line):
    """The ``co_linetable`` of instructions of ``sizes`` code units at ``locs`` (PEP 657's format)."""
    out = bytearray()
    n = len(sizes)
    i = 0
    while i < n:
        loc = locs[i]
        units = sizes[i]
        i += 1
        while i < n and locs[i] is loc:
            units += sizes[i]
            i += 1
        lineno = loc.lineno if loc is not None else None
        while units:
            length = min(units, 8)
            units -= length
            if lineno is None:
                out.append(0x80 | (15 << 3) | (length - 1))
                continue
            col, end_col, end_line = loc.col_offset, loc.end_col_offset, loc.end_lineno
            delta = lineno - line
            line = lineno
            if col is None and end_col is None and (end_line is None or end_line == lineno):
                out.append(0x80 | (13 << 3) | (length - 1))
                _svarint(out, delta)
            elif end_line == lineno and 0 <= delta < 3 and col is not None and end_col is not None \
                    and col < 128 and end_col < 128:
                if delta == 0 and col < 80 and 0 <= end_col - col < 16:
                    out.append(0x80 | ((col >> 3) << 3) | (length - 1))
                    out.append(((col & 7) << 4) | (end_col - col))
                else:
                    out.append(0x80 | ((10 + delta) << 3) | (length - 1))
                    out.append(col)
                    out.append(end_col)
            else:
                out.append(0x80 | (14 << 3) | (length - 1))
                _svarint(out, delta)
                _varint(out, (end_line if end_line is not None else lineno) - lineno)
                _varint(out, 0 if col is None else col + 1)
                _varint(out, 0 if end_col is None else end_col + 1)
    return bytes(out)


def _except_varint(out, value, first):
    """Six bits per byte, most significant first; ``first`` marks an entry's first byte."""
    shift = 6
    while value >> shift:
        shift += 6
    mark = 0x80 if first else 0
    while shift > 6:
        shift -= 6
        out.append(mark | 64 | ((value >> shift) & 63))
        mark = 0
    out.append(mark | (value & 63))


def _exception_table(regions, handlers, offsets):
    out = bytearray()
    for (first, end, tb), handler in zip(regions, handlers):
        start = offsets[first]
        _except_varint(out, start, True)
        _except_varint(out, offsets[end] - start, False)
        _except_varint(out, offsets[handler], False)
        _except_varint(out, (tb.stack_depth << 1) | bool(tb.push_lasti), False)
    return bytes(out)
