"""Recorded calls as an indented text tree: one line per call, children indented two spaces."""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

from .display import callee_name
from .showing import format_arguments, short_repr


def outcome_text(record, limit, reprs=False):
    """What a call gave, as shown after ``->``: the result's repr, ``raised <exception>``, or ``...`` while running."""
    if record.exception is not None:
        return "raised " + short_repr(record.exception, limit, reprs)
    if record.end_ns is None:
        return "... (still running)"
    return short_repr(record.result, limit, reprs)


def call_line(record, limit, qualified=False, reprs=False):
    """``name(a, b, k=v) -> result  [0.123 ms]`` for one record."""
    line = "%s(%s) -> %s" % (
        callee_name(record.callee, qualified),
        format_arguments(record.args, record.kwargs, limit, reprs),
        outcome_text(record, limit, reprs),
    )
    if record.end_ns is not None:
        line += "  [%.3f ms]" % ((record.end_ns - record.start_ns) / 1e6)
    return line


def render_tree(roots, max_depth=None, limit=80, qualified=False, reprs=False):
    """The records ``roots`` and their descendants down to ``max_depth`` (roots: 0), one line each
    (``reprs``: values shown with the program's own ``__repr__`` methods, see ``showing``)."""
    lines = []
    todo = [(0, r) for r in reversed(roots)]
    while todo:  # iterative: a deep recursion recorded under a context may be deeper than Python's limit
        depth, record = todo.pop()
        lines.append("  " * depth + call_line(record, limit, qualified, reprs))
        if max_depth is None or depth < max_depth:
            todo.extend([(depth + 1, c) for c in reversed(record.children)])
    return "\n".join(lines)
