"""Tags: the identity ``enabletagging`` gives a context, and whether it is still live.

A tag is unique per ``enabletagging`` call (a serial number from a global counter,
never derived from the function's code), so two runs of the same code never share
one. It is *live* until the last run of its context finishes; after that, values
carrying it count as their primal. Newer tags belong to more deeply nested runs.

A tag is *used* once a value carrying it has been made. The native guard checks natives
only while a used tag exists that has run (or was used inside some run: the tag of a
nested run, made just before it starts); its values, live or dead, may then reach
natives, which must see a dead layer as its primal. Otherwise natives are called as they
are, from the user's frame (see ``guard``). Values tagged outside any run, for a context
not yet running (``x = tag(1.0, ctx)`` kept for later), do not wake the guard until
that context runs. A finished tag lets go of its context, so that it is freed (and the
guard sleeps again) as soon as neither the context nor a value carrying it is referenced.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import itertools
import weakref

from ..state import STATE

_serials = itertools.count(1)
# The used tags that have run (or were used inside a run): id(tag) -> weak reference (a
# tag leaves when it is freed). Empty when no native can receive a tagged value.
LIVE_USED = {}


def live_values():
    """Whether natives may receive live tagged values (the native guard has work to do)."""
    return bool(LIVE_USED)


def _enter(tag):
    key = id(tag)
    LIVE_USED[key] = weakref.ref(tag, lambda ref: LIVE_USED.pop(key, None))


class Tag:
    """The tag of one tagging context; ``serial`` orders tags by creation."""

    __slots__ = ("serial", "context", "kind", "runs", "finished", "used", "__weakref__")

    def __init__(self, context):
        self.serial = next(_serials)
        self.context = context  # None once finished (no cycle with the context's ``_tag``)
        self.kind = type(context)
        self.runs = []  # the context's live activations, innermost last
        self.finished = False
        self.used = False  # a value carrying this tag has been made

    def mark_used(self):
        """A value carrying this tag is being made (``Tagged.__init__`` and ``tag`` call this)."""
        if not self.used:
            self.used = True
            if not self.finished and (self.runs or STATE.act is not None):
                _enter(self)

    def started(self, act):
        self.runs.append(act)
        self.finished = False
        if self.context is None:
            self.context = act.ctx
        if self.used and id(self) not in LIVE_USED:
            _enter(self)

    def ended(self, act):
        if act in self.runs:
            self.runs.remove(act)
        if not self.runs:
            self.finished = True
            self.context = None  # only live tags' contexts are used (dispatch strips dead layers)

    @property
    def activation(self):
        """The innermost live activation of the tag's context, or None."""
        return self.runs[-1] if self.runs else None

    def __repr__(self):
        state = "finished" if self.finished else "live"
        return "<tag #%d of %s, %s>" % (self.serial, self.kind.__name__, state)
