"""Generators handed by a nested context's code to natives resume under that context.

A nested context runs natives under the enclosing one, so that the enclosing one sees them
(a nested derivative's NumPy calls are what the outer derivative differentiates). A
generator made by rewritten code and consumed by such a native (``sum(f(i) for i in xs)``,
``"".join(parts())``) would then run its body under the enclosing context, and the nested
one would not see its calls, which it sees when it is the outermost. The natives known to
consume iterables (``CONSUMERS``, and methods such as ``str.join`` and ``list.extend``,
``METHOD_CONSUMERS``) get, in place of such a generator, an iterator that resumes it with
the nested context current. Other natives get
the generator itself (``iter(g) is g``, ``type(g)`` stay as they are).
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import builtins
import collections
import functools
import heapq
import itertools
from types import GeneratorType

from .callbacks import BUILTIN_METHOD_TYPES
from .stackview import is_rewritten
from .state import STATE, switch_to

# natives that take iterables and iterate them (positional arguments); lazy ones (``zip``,
# ``map``, ``enumerate``, ``itertools``) keep the wrapper and resume through it later
CONSUMERS = frozenset(id(f) for f in (
    builtins.sum, builtins.list, builtins.tuple, builtins.sorted, builtins.min, builtins.max,
    builtins.any, builtins.all, builtins.set, builtins.frozenset, builtins.dict, builtins.enumerate,
    builtins.zip, builtins.map, builtins.filter, builtins.next,
    itertools.chain, itertools.chain.from_iterable, itertools.islice, itertools.takewhile,
    itertools.dropwhile, itertools.filterfalse, itertools.starmap, itertools.accumulate,
    itertools.groupby, itertools.zip_longest, itertools.product, itertools.compress, itertools.pairwise,
    itertools.tee, functools.reduce, collections.deque, heapq.merge, heapq.nlargest, heapq.nsmallest,
))
# methods of built-in objects that iterate their argument: ``sep.join(gen)``, ``xs.extend(gen)``
METHOD_CONSUMERS = frozenset({
    (str, "join"), (bytes, "join"), (bytearray, "join"), (list, "extend"), (bytearray, "extend"),
    (set, "update"), (set, "union"), (dict, "update"), (collections.deque, "extend"),
    (collections.deque, "extendleft"), (frozenset, "union"),
})


class ResumedUnder:
    """An iterator over generator ``gen`` that resumes it with activation ``act`` current
    (natively once ``act`` has finished)."""

    __slots__ = ("act", "gen")

    def __init__(self, act, gen):
        self.act = act
        self.gen = gen

    def __iter__(self):
        return self

    def __next__(self):
        act = self.act
        namespace = STATE.__dict__
        if not act.alive or namespace["act"] is act:
            return next(self.gen)
        previous = switch_to(act)
        try:
            return next(self.gen)
        finally:
            switch_to(previous)


def _consumes(f):
    if id(f) in CONSUMERS:
        return True
    return type(f) in BUILTIN_METHOD_TYPES and (type(f.__self__), f.__name__) in METHOD_CONSUMERS


def resumed_arguments(act, f, args):
    """``args`` with each generator made by rewritten code that native ``f`` consumes wrapped
    to resume under ``act`` (a nested activation); ``args`` itself when there is none."""
    if not _consumes(f):
        return args
    changed = None
    for i, a in enumerate(args):
        if type(a) is GeneratorType and is_rewritten(a.gi_code):
            if changed is None:
                changed = list(args)
            changed[i] = ResumedUnder(act, a)
    return args if changed is None else tuple(changed)

