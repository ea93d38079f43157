"""``CountCtx``: count calls, optionally only those whose arguments all have given types."""

from collections import Counter

from ..base import Context
from .display import callee_key, callee_name
from .options import OperatorsOption


def _check_types(types):
    if types is None:
        return None
    if isinstance(types, type):
        return types
    if isinstance(types, tuple) and types and all(isinstance(t, type) for t in types):
        return types
    raise TypeError(
        "CountCtx: types must be a type or a non-empty tuple of types (as for isinstance), got %r" % (types,)
    )


class CountCtx(OperatorsOption, Context):
    """Counts the calls made under it, in total and per function.

    With ``types`` (a type or a tuple of types), a call counts only when it has at least
    one argument and every argument, positional or keyword, is an instance of them: the
    talk's ``Count{T}`` example. ``operators=True`` also counts operators as calls of
    ``operator.*``. ``ctx.total`` is the number of calls counted; ``ctx.counts`` maps each
    function's qualified name to its count (most called first); ``ctx.table(top)`` renders it.
    """

    def __init__(self, types=None, *, operators=False):
        super().__init__(metadata=None)
        self.types = _check_types(types)
        self.total = 0
        self._by_key = Counter()
        self._names = {}

    def prehook(self, f, /, *args, **kwargs):
        types = self.types
        if types is not None:
            if not (args or kwargs):
                return
            for a in args:
                if not isinstance(a, types):
                    return
            for a in kwargs.values():
                if not isinstance(a, types):
                    return
        self.total += 1
        key = callee_key(f)
        self._by_key[key] += 1
        if key not in self._names:
            self._names[key] = callee_name(f)

    @property
    def counts(self):
        """``{qualified name: calls}``, most called first (functions sharing a name are added up)."""
        merged = Counter()
        for key, n in self._by_key.items():
            merged[self._names[key]] += n
        return dict(merged.most_common())

    def table(self, top=None):
        """The per-function counts as aligned text: ``count  name`` lines, most called first, then the total."""
        rows = list(self.counts.items())
        hidden = 0
        if top is not None:
            hidden = len(rows) - top if len(rows) > top else 0
            rows = rows[:top]
        width = max([len(str(n)) for _, n in rows] + [len(str(self.total))])
        lines = ["%*d  %s" % (width, n, name) for name, n in rows]
        if hidden:
            lines.append("%*s  (%d more function%s)" % (width, "...", hidden, "" if hidden == 1 else "s"))
        lines.append("%*d  calls in total" % (width, self.total))
        return "\n".join(lines)

    def reset(self):
        """Forget every count."""
        self.total = 0
        self._by_key.clear()
        self._names.clear()
