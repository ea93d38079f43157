"""Generated call-heavy programs (``engine_programs.py``) give under every kind of context
exactly what they give natively: the same values, side effects in the same order, the same
exception and message (a printing context's output aside).

CI runs a few dozen programs per context; ``PYCASSETTE_DIFFERENTIAL_SEEDS=N`` runs N
(``python -m pytest tests/test_engine_differential.py``).
"""

import contextlib
import io
import os
import sys

import pytest

import context
from context import Context, overdub
from context.ready.named import context_factory
from tests.helpers import OverdubOnly, Post, Pre

sys.path.insert(0, os.path.dirname(__file__))
from engine_programs import program  # noqa: E402

SEEDS = range(int(os.environ.get("PYCASSETTE_DIFFERENTIAL_SEEDS", "40")))


def _named(name):
    make = context_factory(name)
    return lambda f: make(f)


CONTEXTS = {
    "empty": lambda f: Context(),
    "prehook": lambda f: Pre(),
    "posthook": lambda f: Post(),
    "overdub": lambda f: OverdubOnly(),
    "count": _named("count"),
    "trace": lambda f: context.TraceCtx(keep=True),
    "tagging": _named("tagging"),
    "print": _named("print"),
    "profile": _named("profile"),
    "count via monitoring": lambda f: context.CountCtx(via="monitoring"),
}


def _outcome(run):
    try:
        return "returned", repr(run())
    except Exception as exc:  # noqa: BLE001 (what the program raises is what is compared)
        return "raised", type(exc).__name__, str(exc)


def _main(seed):
    namespace = {"__name__": "generated_%d" % seed}
    exec(compile(program(seed), "<generated %d>" % seed, "exec"), namespace)
    return namespace["main"]


@pytest.mark.parametrize("name", sorted(CONTEXTS))
def test_generated_programs_give_what_they_give_natively(name):
    make = CONTEXTS[name]
    differ = []
    for seed in SEEDS:
        native = _outcome(_main(seed))
        main = _main(seed)  # a fresh module: its log starts empty
        with contextlib.redirect_stdout(io.StringIO()):  # (what PrintCtx prints)
            under = _outcome(lambda: overdub(make(main), main))
        if under != native:
            differ.append((seed, native, under))
    assert not differ, "seed %d: natively %r, under the context %r" % differ[0]


def test_the_programs_reach_what_they_are_meant_to():
    outcomes = [_outcome(_main(seed)) for seed in SEEDS]
    assert sum(o[0] == "returned" for o in outcomes) >= len(outcomes) // 2
    assert any(o[0] == "raised" for o in outcomes)  # an exception that escapes main is compared too
    text = "".join(program(seed) for seed in SEEDS)
    for form in ("k17=17", "engine_named(f=", "super().m(", "yield from", "sorted(", "with Resource",
                 "functools.partial(", "except ValueError"):
        assert form in text
