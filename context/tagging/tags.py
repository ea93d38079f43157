"""Tags: the identity ``enabletagging`` gives a context, and whether it is still live.

A tag is unique per ``enabletagging`` call (a serial number from a global counter,
never derived from the function's code), so two runs of the same code never share
one. It is *live* until the last run of its context finishes; after that, values
carrying it count as their primal. Newer tags belong to more deeply nested runs.
"""

import itertools

_serials = itertools.count(1)


class Tag:
    """The tag of one tagging context; ``serial`` orders tags by creation."""

    __slots__ = ("serial", "context", "runs", "finished", "__weakref__")

    def __init__(self, context):
        self.serial = next(_serials)
        self.context = context
        self.runs = []  # the context's live activations, innermost last
        self.finished = False

    def started(self, act):
        self.runs.append(act)
        self.finished = False

    def ended(self, act):
        if act in self.runs:
            self.runs.remove(act)
        if not self.runs:
            self.finished = True

    @property
    def activation(self):
        """The innermost live activation of the tag's context, or None."""
        return self.runs[-1] if self.runs else None

    def __repr__(self):
        state = "finished" if self.finished else "live"
        return "<tag #%d of %s, %s>" % (self.serial, type(self.context).__name__, state)
