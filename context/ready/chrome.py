"""Chrome trace-event JSON, written as a stream: the file format behind ``TraceCtx(file)``.

The file is the format's object form::

    {"displayTimeUnit": "ms", "otherData": {...}, "traceEvents": [
    {"ph": "B", "name": "tomllib._parser.loads", "cat": "python", "ts": 0.0, "pid": 1, "tid": 1, "args": {...}},
    ...
    ]}

Each call is a pair of duration events, ``"B"`` when it starts and ``"E"`` when it ends,
written in the order they happen, so they nest like the calls (per thread) while the
file is being written. ``ts`` is in microseconds since the start of the trace.
``checkpoint()`` writes the closing ``]}`` and moves back over it, so the file is a
complete JSON document between runs even if ``close()`` is never called; the next
event overwrites the trailer.

Perfetto (ui.perfetto.dev), ``chrome://tracing`` and speedscope read these files.
Two rules keep all three happy: every ``"E"`` event repeats its ``"B"`` event's name
(speedscope matches them by name), and timestamps strictly increase within the file
(the writer moves a tie forward by a nanosecond: speedscope orders events with equal
timestamps by guesswork).
"""

import json
import os
import time
from json.encoder import encode_basestring_ascii as _json_str  # a str as a JSON string literal (ASCII)

TRAILER = b"\n]}\n"


def open_trace_file(path):
    """Create (or truncate) ``path`` for writing; a failure names the path."""
    try:
        path = os.fspath(path)
    except TypeError:
        raise TypeError("trace file: expected None, a str or an os.PathLike path, got %s %r"
                        % (type(path).__name__, path)) from None
    try:
        return path, open(path, "wb", buffering=1 << 16)
    except OSError as exc:
        folder = os.path.dirname(os.path.abspath(path))
        why = exc.strerror or str(exc)
        if not os.path.isdir(folder):
            why = "the directory %s does not exist" % folder
        raise type(exc)(exc.errno, "cannot write the trace file %s: %s" % (path, why), path) from None


class ChromeTraceWriter:
    """Streams duration events to a Chrome trace-event JSON file.

    ``begin(name, cat, args_text, ns)`` opens an event and ``end(key, text, ns)`` closes
    the innermost open one (``key`` is ``"result"`` or ``"exception"``); ``ns`` are
    ``time.perf_counter_ns()`` readings, shown relative to ``t0_ns``. Events carry
    ``pid`` and ``tid`` (set ``tid`` before writing events of another thread).
    Events are written in batches; ``checkpoint()`` writes them and makes the file a
    complete document; ``close()`` ends the events still open, finishes the file and
    closes it (twice is fine).
    """

    BATCH = 512  # events held in memory before they are written

    def __init__(self, path, *, t0_ns=None, other_data=None):
        self.path, self._fh = open_trace_file(path)
        self.t0_ns = time.perf_counter_ns() if t0_ns is None else t0_ns
        self.pid = os.getpid()
        self.events = 0
        self._open = []  # the name and category (JSON text) of each event begun and not yet ended
        self._heads = {}  # (name, cat) -> that JSON text
        self._last_ns = -1  # the last timestamp written, relative to t0_ns: the next one is later
        self._batch = []
        self._resume_at = None  # where the trailer starts, after a checkpoint
        self.tid = 0
        header = {"displayTimeUnit": "ms", "otherData": dict(other_data or {})}
        self._fh.write(json.dumps(header)[:-1].encode() + b', "traceEvents": [\n')

    @property
    def tid(self):
        return self._tid

    @tid.setter
    def tid(self, tid):
        self._tid = tid
        self._ids = '"pid": %d, "tid": %d, ' % (self.pid, tid)

    @property
    def closed(self):
        return self._fh is None

    def _event(self, ph, head, ns, args):
        """Queue one event: ``ph``, its name and category (``head``), the time ``ns``, ``args`` (JSON text)."""
        ns -= self.t0_ns
        if ns <= self._last_ns:  # strictly increasing: equal timestamps would be ordered by guesswork
            ns = self._last_ns + 1
        self._last_ns = ns
        batch = self._batch
        batch.append('{"ph": "%s", %s"ts": %d.%03d, %s"args": %s}' % (ph, head, ns // 1000, ns % 1000, self._ids, args))
        if len(batch) >= self.BATCH:
            self._flush_batch()

    def _flush_batch(self):
        batch = self._batch
        if not batch:
            return
        fh = self._fh
        if self._resume_at is not None:  # overwrite the trailer written by the last checkpoint
            fh.seek(self._resume_at)
            self._resume_at = None
            fh.write(b",\n")
        elif self.events:
            fh.write(b",\n")
        fh.write(",\n".join(batch).encode())
        self.events += len(batch)
        batch.clear()

    def begin(self, name, cat, args_text, ns):
        """Open an event for a call of ``name`` (a str) in category ``cat``, showing its arguments."""
        if self._fh is None:
            return
        head = self._heads.get((name, cat))
        if head is None:
            head = self._heads[(name, cat)] = '"name": %s, "cat": %s, ' % (_json_str(name), _json_str(cat))
        self._open.append(head)
        self._event("B", head, ns, '{"args": %s}' % _json_str(args_text))

    def end(self, key, text, ns):
        """Close the innermost open event, with ``{key: text}`` as its arguments."""
        if self._fh is not None and self._open:
            self._event("E", self._open.pop(), ns, "{%s: %s}" % (_json_str(key), _json_str(text)))

    def checkpoint(self):
        """Write the queued events and the closing ``]}``, and flush: the file is now a complete document."""
        fh = self._fh
        if fh is None or (self._resume_at is not None and not self._batch):
            return
        self._flush_batch()
        self._resume_at = fh.tell()
        fh.write(TRAILER)
        fh.truncate()
        fh.flush()

    def close(self):
        """End the events still open (their calls had not returned), finish the file and close it."""
        if self._fh is None:
            return
        ns = time.perf_counter_ns()
        while self._open:
            self.end("unfinished", "the trace was closed before this call returned", ns)
        self.checkpoint()
        fh, self._fh = self._fh, None
        fh.close()


def write_tree(path, roots, *, t0_ns, describe, outcome, tid=0, other_data=None):
    """Write the call records ``roots`` (and their children) to ``path`` as a Chrome trace file.

    ``describe(record)`` gives ``(name, cat, args_text)`` for a record's ``B`` event and
    ``outcome(record)`` gives ``(key, text)`` for its ``E`` event. A record whose call is
    still running (``end_ns`` None) ends at the time of writing. Returns the number of events.
    """
    writer = ChromeTraceWriter(path, t0_ns=t0_ns, other_data=other_data)
    writer.tid = tid
    try:
        todo = [(False, r) for r in reversed(roots)]
        while todo:
            closing, rec = todo.pop()
            if closing:
                key, text = outcome(rec)
                writer.end(key, text, rec.end_ns if rec.end_ns is not None else time.perf_counter_ns())
            else:
                writer.begin(*describe(rec), rec.start_ns)
                todo.append((True, rec))
                todo.extend([(False, c) for c in reversed(rec.children)])
    finally:
        writer.close()
    return writer.events
