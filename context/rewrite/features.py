"""What the rewriter needs to know about the running CPython, as named features.

Each feature is a change in the bytecode that some CPython version made, tested with
``>=``/``<`` against ``sys.version_info`` so that a later version inherits it. The
rewriter branches on these names, never on an exact version; the instruction handlers
(``calls.HANDLERS``, ``calls.METHOD_LOADS``, ``operators``) are tables whose entries
name the feature they need (see ``table``). ``FEATURES`` lists them all, with the
versions that have them, for the documentation and the tests.

Adding a CPython version: add a feature for each change in its call sequences (with
``since=``), give the old ones an ``until=`` where the new version drops them, and add
table entries for new instructions (docs/rewriting.md, "Adding a CPython version").
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import sys
from typing import NamedTuple


class Feature(NamedTuple):
    name: str
    since: tuple  # first version that has it, or None: every supported version
    until: tuple  # first version that no longer has it, or None
    doc: str
    present: bool


FEATURES = {}


def _feature(name, doc, since=None, until=None):
    present = (since is None or sys.version_info >= since) and (until is None or sys.version_info < until)
    FEATURES[name] = Feature(name, since, until, doc, present)
    return present


HAS_PRECALL = _feature(
    "HAS_PRECALL", "CALL is preceded by PRECALL with the same argument count", until=(3, 12))
KW_NAMES_INSTRUCTION = _feature(
    "KW_NAMES_INSTRUCTION", "keyword names reach CALL through a KW_NAMES instruction before it", until=(3, 13))
CALL_KW_INSTRUCTION = _feature(
    "CALL_KW_INSTRUCTION", "calls with keywords are CALL_KW, the names tuple on top of the arguments",
    since=(3, 13))
LOAD_METHOD_INSTRUCTION = _feature(
    "LOAD_METHOD_INSTRUCTION", "method loads are LOAD_METHOD (argument: the name)", until=(3, 12))
METHOD_BIT_ON_LOAD_ATTR = _feature(
    "METHOD_BIT_ON_LOAD_ATTR", "LOAD_ATTR's argument is (method bit, name); the bit makes it a method load",
    since=(3, 12))
LOAD_SUPER_ATTR = _feature(
    "LOAD_SUPER_ATTR", "super().name is one LOAD_SUPER_ATTR (argument: method bit, zero-argument bit, name)",
    since=(3, 12))
INLINED_COMPREHENSIONS = _feature(
    "INLINED_COMPREHENSIONS", "list, set and dict comprehensions run in their function's frame (PEP 709)",
    since=(3, 12))
NULL_AFTER_CALLABLE = _feature(
    "NULL_AFTER_CALLABLE", "call stack layout [callable, NULL|self, args...] (before: [NULL|callable, "
    "callable|self, args...]); LOAD_GLOBAL's NULL bit pushes the NULL after the global", since=(3, 13))
UNARY_POSITIVE_INSTRUCTION = _feature(
    "UNARY_POSITIVE_INSTRUCTION", "+x is UNARY_POSITIVE", until=(3, 12))
CALL_INTRINSIC = _feature(
    "CALL_INTRINSIC", "CALL_INTRINSIC_1/2 run helpers by number; +x is CALL_INTRINSIC_1 INTRINSIC_UNARY_POSITIVE",
    since=(3, 12))
SLICE_INSTRUCTIONS = _feature(
    "SLICE_INSTRUCTIONS", "x[a:b] loads and stores are BINARY_SLICE/STORE_SLICE (before: BUILD_SLICE and a "
    "subscript)", since=(3, 12))
TO_BOOL_INSTRUCTION = _feature(
    "TO_BOOL_INSTRUCTION", "UNARY_NOT and conditional jumps take exact bools, made by TO_BOOL", since=(3, 13))
RETURN_GENERATOR_COUNTED = _feature(
    "RETURN_GENERATOR_COUNTED", "stack effects count the value RETURN_GENERATOR leaves for the POP_TOP "
    "after it (before, a generator's stack walk starts one deep)", since=(3, 13))
DIRECTIONLESS_JUMPS = _feature(
    "DIRECTIONLESS_JUMPS", "conditional jumps are POP_JUMP_IF_* (before: POP_JUMP_FORWARD_IF_* and "
    "POP_JUMP_BACKWARD_IF_*)", since=(3, 12))

LOCAL_INDEX_COVERS_CELLS = _feature(
    "LOCAL_INDEX_COVERS_CELLS", "LOAD_FAST and its kin may index cells and free variables too (their index "
    "counts every local)", since=(3, 13))
COMPARE_ARG_LOW_BITS = _feature(
    "COMPARE_ARG_LOW_BITS", "COMPARE_OP's argument holds the comparison above four low bits", since=(3, 12))
COMPARE_ARG_TO_BOOL_BIT = _feature(
    "COMPARE_ARG_TO_BOOL_BIT", "COMPARE_OP's argument holds the comparison above five low bits, one of them "
    "asking for an exact bool", since=(3, 13))


class Entry(NamedTuple):
    """One row of an instruction table: ``name`` is handled by ``handler`` where ``needs`` holds."""

    name: str
    needs: str  # a key of FEATURES, or None: every supported version
    handler: object


def table(*entries):
    """``{instruction name: handler}`` for the entries whose feature the running CPython has."""
    out = {}
    for entry in entries:
        if entry.needs is not None and entry.needs not in FEATURES:
            raise KeyError("unknown feature %r for %s" % (entry.needs, entry.name))
        if entry.needs is None or FEATURES[entry.needs].present:
            if entry.name in out:
                raise KeyError("two handlers for %s on this version" % entry.name)
            out[entry.name] = entry.handler
    return out
