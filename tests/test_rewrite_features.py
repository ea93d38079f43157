"""The rewriter's per-version features and instruction tables agree with the running CPython.

Every feature is computed with ``>=``/``<`` comparisons (``context/rewrite/features.py``);
the instruction tables (``calls.ENTRIES``, ``calls.METHOD_LOAD_ENTRIES``, the operator
passes' entries) say which feature each handler needs. These tests check, on this
interpreter, that an entry that applies names an instruction ``dis`` knows, that an
instruction-feature that does not apply names one it does not, and that the features
describe the code CPython compiles.
"""

import dis
import sys

import pytest

from context.rewrite import calls, features, operators
from context.rewrite.features import FEATURES, Entry, table

ALL_ENTRIES = (
    calls.ENTRIES + calls.METHOD_LOAD_ENTRIES
    + operators.OPERATOR_ENTRIES + operators.SUBSCRIPT_ENTRIES + operators.ATTRIBUTE_ENTRIES
)

# features that say an instruction exists (where present) or not (where absent)
INSTRUCTION_OF = {
    "HAS_PRECALL": "PRECALL",
    "KW_NAMES_INSTRUCTION": "KW_NAMES",
    "CALL_KW_INSTRUCTION": "CALL_KW",
    "LOAD_METHOD_INSTRUCTION": "LOAD_METHOD",
    "LOAD_SUPER_ATTR": "LOAD_SUPER_ATTR",
    "UNARY_POSITIVE_INSTRUCTION": "UNARY_POSITIVE",
    "CALL_INTRINSIC": "CALL_INTRINSIC_1",
    "SLICE_INSTRUCTIONS": "BINARY_SLICE",
    "TO_BOOL_INSTRUCTION": "TO_BOOL",
    "DIRECTIONLESS_JUMPS": "POP_JUMP_IF_NONE",
}


def test_features_are_version_ranges():
    for f in FEATURES.values():
        assert f.since is not None or f.until is not None, f.name
        expected = (f.since is None or sys.version_info >= f.since) and (f.until is None or sys.version_info < f.until)
        assert f.present == expected == getattr(features, f.name), f.name
        assert f.doc


def _real(name):
    """An instruction of the running interpreter (not one of dis's pseudo-instructions)."""
    return dis.opmap.get(name, 256) < 256


def _applies(entry):
    return entry.needs is None or FEATURES[entry.needs].present


@pytest.mark.parametrize("feature, name", sorted(INSTRUCTION_OF.items()))
def test_instruction_features_match_dis(feature, name):
    assert FEATURES[feature].present == _real(name)


def test_entries_that_apply_name_real_instructions():
    for entry in ALL_ENTRIES:
        assert entry.needs is None or entry.needs in FEATURES, entry
        if _applies(entry):
            assert _real(entry.name), entry
        elif INSTRUCTION_OF.get(entry.needs) == entry.name:
            assert not _real(entry.name), entry


def test_tables_hold_exactly_the_entries_that_apply():
    assert set(calls.HANDLERS) == {e.name for e in calls.ENTRIES if _applies(e)}
    assert set(calls.METHOD_LOADS) == {e.name for e in calls.METHOD_LOAD_ENTRIES if _applies(e)}


def test_table_rejects_unknown_features_and_duplicates():
    with pytest.raises(KeyError):
        table(Entry("NOP", "NO_SUCH_FEATURE", None))
    with pytest.raises(KeyError):
        table(Entry("NOP", None, None), Entry("NOP", None, None))


def _names(f):
    return {i.opname for i in dis.get_instructions(f)}


def test_inlined_comprehensions():
    def f(xs):
        return [x for x in xs]

    nested = any(hasattr(c, "co_code") for c in f.__code__.co_consts)
    assert nested != features.INLINED_COMPREHENSIONS


def test_method_loads_and_null_layout():
    def f(o, xs):
        return o.m(len(xs))

    names = _names(f)
    assert ("LOAD_METHOD" in names) == features.LOAD_METHOD_INSTRUCTION
    load_attr = [i for i in dis.get_instructions(f) if i.opname == "LOAD_ATTR"]
    if features.METHOD_BIT_ON_LOAD_ATTR:
        assert load_attr and load_attr[0].arg & 1  # the method bit
    # where the NULL of ``len(xs)`` goes: 3.13 pushes it after the global
    glob = next(i for i in dis.get_instructions(f) if i.opname == "LOAD_GLOBAL")
    assert glob.arg & 1


def test_keyword_calls():
    def f(g):
        return g(1, k=2)

    names = _names(f)
    assert ("KW_NAMES" in names) == features.KW_NAMES_INSTRUCTION
    assert ("CALL_KW" in names) == features.CALL_KW_INSTRUCTION
    assert ("PRECALL" in names) == features.HAS_PRECALL


def test_return_generator_effect():
    counted = dis.stack_effect(dis.opmap["RETURN_GENERATOR"]) == 1
    assert counted == features.RETURN_GENERATOR_COUNTED


def test_rewriter_uses_features_not_versions():
    import pathlib

    root = pathlib.Path(calls.__file__).parent.parent  # the whole engine, rewriter included
    for path in root.rglob("*.py"):
        text = path.read_text()
        for flag in ("PY311", "PY312", "PY313", "version_info[:2] =="):
            assert flag not in text, (path.name, flag)
