"""The fast codec against the bytecode package, on a large part of the standard library.

``codec.decode`` must give exactly the items ``Bytecode.from_code`` gives (the rewriter's
passes were written against them); ``codec.encode`` of undecorated items must give back
the very code object CPython compiled; and the fast rewrite must give the same
instructions, locations and stack size as the rewrite through the bytecode package
(exception tables are verified against the original inside both).
"""

import dis
import importlib
import types
import warnings

import pytest
from bytecode import Bytecode, Instr, Label, TryBegin, TryEnd

import context
from context.activation import _class_plan
from context.ready.counting import CountCtx
from context.rewrite import code as rewrite_module
from context.rewrite import codec

pytestmark = pytest.mark.skipif(not codec.AVAILABLE, reason="this bytecode package has no fast constructors")

MODULES = """argparse ast asyncio.base_events asyncio.tasks calendar collections configparser
contextlib dataclasses difflib email._header_value_parser email.message enum fractions functools
inspect json.decoder json.encoder pathlib pprint re._parser shlex statistics string textwrap
tomllib._parser typing""".split()


def _codes():
    seen, out = set(), []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        modules = [importlib.import_module(name) for name in MODULES]
    for module in modules:
        stack = []
        for value in vars(module).values():
            if isinstance(value, types.FunctionType):
                stack.append(value.__code__)
            elif isinstance(value, type):
                stack += [f.__code__ for f in vars(value).values() if isinstance(f, types.FunctionType)]
        while stack:
            code = stack.pop()
            if id(code) not in seen:
                seen.add(id(code))
                out.append(code)
                stack += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    return out


CODES = _codes()


def _shape(items, markers=True):
    """Items as comparable tuples: labels and try markers by order, constants by identity."""
    labels = {id(item): n for n, item in enumerate(i for i in items if isinstance(i, Label))}
    tries = {id(item): n for n, item in enumerate(i for i in items if isinstance(i, TryBegin))}
    out = []
    for item in items:
        if isinstance(item, Label):
            out.append(("label", labels[id(item)]))
        elif isinstance(item, TryBegin):
            if markers:
                out.append(("try", labels[id(item.target)], item.push_lasti, item.stack_depth))
        elif isinstance(item, TryEnd):
            if markers:
                out.append(("end", tries[id(item.entry)]))
        else:
            arg = item.arg
            if isinstance(arg, Label):
                arg = ("label", labels[id(arg)])
            elif item.opcode in dis.hasconst:
                arg = ("const", id(arg))
            else:
                arg = (type(arg).__name__, arg)
            loc = item.location
            out.append((item.name, arg, None if loc is None else
                        (loc.lineno, loc.end_lineno, loc.col_offset, loc.end_col_offset)))
    return out


def test_the_corpus_is_large():
    assert len(CODES) > 2000


def test_decode_gives_what_the_bytecode_package_gives():
    for code in CODES:
        expected = _shape(list(Bytecode.from_code(code, conserve_exception_block_stackdepth=True)))
        assert _shape(codec.decode(code)[0]) == expected, code.co_qualname


def test_encode_of_decode_is_the_original_code():
    for code in CODES:
        items, raw = codec.decode(code)
        again = codec.encode(items, code, code.co_stacksize, raw)
        assert again.co_code == code.co_code, code.co_qualname
        assert again.co_exceptiontable == code.co_exceptiontable, code.co_qualname
        assert list(again.co_positions()) == list(code.co_positions()), code.co_qualname
        assert again.co_consts == code.co_consts and again.co_names == code.co_names


def test_fast_rewrite_agrees_with_the_bytecode_package():
    """Same instructions, arguments, locations and stack size. The try markers are left out:
    the bytecode package leaves a jump at the end of a region out of it where the original
    covers it (the fast codec keeps the original's regions; ``verify`` accepts both)."""
    config = _class_plan(CountCtx)[0]
    for code in CODES[::3]:
        fast = rewrite_module._rewrite_fast(code, config)
        bc, original_items = rewrite_module._context_passes(code, config)
        general = rewrite_module._rewrite_general(bc, original_items, code, config)
        assert fast.co_stacksize == general.co_stacksize, code.co_qualname

        def shape(c):
            return _shape(list(Bytecode.from_code(c, conserve_exception_block_stackdepth=True)), markers=False)

        assert shape(fast) == shape(general), code.co_qualname


def test_extended_arguments_and_long_jumps():
    """A function long enough that jumps and constants need EXTENDED_ARG prefixes."""
    body = "\n".join("    if x == %d:\n        y = f(%d.5, x)" % (i, i) for i in range(400))
    namespace = {"f": lambda a, b: a + b}
    exec("def big(x):\n    y = None\n%s\n    return y\n" % body, namespace)
    code = namespace["big"].__code__
    assert any(i.opname == "EXTENDED_ARG" for i in dis.get_instructions(code))
    items, raw = codec.decode(code)
    assert codec.encode(items, code, code.co_stacksize, raw).co_code == code.co_code
    assert context.overdub(context.Context(), namespace["big"], 399) == 399.5 + 399
    assert context.overdub(CountCtx(), namespace["big"], 7) == 14.5


def test_an_unknown_argument_is_unsupported():
    code = (lambda: 1).__code__
    items, raw = codec.decode(code)
    items.insert(0, Instr("LOAD_FAST", "not_a_local"))
    with pytest.raises(codec.Unsupported, match="not_a_local"):
        codec.encode(items, code, code.co_stacksize + 1, raw)


def test_unsupported_code_falls_back_to_the_bytecode_package(monkeypatch):
    def refuse(*args):
        raise codec.Unsupported("refused for the test")

    monkeypatch.setattr(codec, "encode", refuse)

    def victim(xs):
        try:
            return sum(abs(x) for x in xs)
        except TypeError:
            return None

    config = _class_plan(context.Context)[0]
    rewritten = rewrite_module._rewrite(victim.__code__, config)
    assert rewritten is not victim.__code__
    clone = types.FunctionType(rewritten, victim.__globals__)
    assert context.overdub(context.Context(), clone, [-1, 2]) == 3


def test_stack_size_is_only_for_code_without_handlers():
    from context.rewrite import exctable

    def plain(x):
        return [x, (x, x), {x: x}]

    def guarded(x):
        try:
            return plain(x)
        except KeyError:
            return None

    assert exctable.stack_size(plain.__code__) <= plain.__code__.co_stacksize
    with pytest.raises(exctable.ExceptionTableError):
        exctable.stack_size(guarded.__code__)


def test_an_opcode_decode_does_not_know_goes_to_the_general_path(monkeypatch):
    """CPython's ``co_code`` never shows an unknown or instrumented opcode (it deoptimizes
    them), so decode's refusal is a guard: pretend it does not know ``RETURN_VALUE``."""
    def victim(x):
        return x + 1

    kinds = list(codec._KIND)
    kinds[dis.opmap["RETURN_VALUE"]] = codec._UNKNOWN
    monkeypatch.setattr(codec, "_KIND", kinds)
    with pytest.raises(codec.Unsupported, match="RETURN_VALUE"):
        codec.decode(victim.__code__)
    rewritten = rewrite_module._rewrite(victim.__code__, _class_plan(context.Context)[0])
    clone = types.FunctionType(rewritten, victim.__globals__)
    assert context.overdub(context.Context(), clone, 1) == 2
