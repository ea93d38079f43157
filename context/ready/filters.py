"""Which callees a ready-made context shows: include and exclude patterns on qualified names."""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from fnmatch import fnmatchcase

from .display import callee_key, callee_name


def _as_patterns(spec, what):
    if spec is None:
        return ()
    if isinstance(spec, str) or callable(spec):
        spec = (spec,)
    try:
        spec = tuple(spec)
    except TypeError:
        spec = (spec,)
    for item in spec:
        if not (isinstance(item, str) or callable(item)):
            raise TypeError(
                "%s: expected a pattern string (e.g. 'tomllib.*'), a predicate on the callee, or a "
                "sequence of them; got %s %r" % (what, type(item).__name__, item)
            )
    return spec


def _matches(item, f, name):
    if callable(item):
        return bool(item(f))
    return name == item or name.startswith(item + ".") or fnmatchcase(name, item)


class CalleeFilter:
    """Decides, once per callee (see ``callee_key``), whether its calls are shown.

    ``include`` and ``exclude`` are each a pattern, a predicate ``pred(f) -> bool`` or a
    sequence of them. A pattern is a glob on the qualified name (``module.qualname``);
    a plain dotted name also matches everything under it (``tomllib`` matches
    ``tomllib._parser.loads``). A callee is shown when it matches some ``include``
    (or none is given) and no ``exclude``.
    """

    def __init__(self, include=None, exclude=None):
        self.include = _as_patterns(include, "include")
        self.exclude = _as_patterns(exclude, "exclude")
        self.everything = not self.include and not self.exclude
        self._verdicts = {}

    def shows(self, f):
        if self.everything:
            return True
        key = callee_key(f)
        verdict = self._verdicts.get(key)
        if verdict is None:
            name = callee_name(f)
            verdict = (not self.include or any(_matches(i, f, name) for i in self.include)) and not any(
                _matches(e, f, name) for e in self.exclude
            )
            self._verdicts[key] = verdict
        return verdict
