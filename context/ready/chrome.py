"""Chrome trace-event JSON files: the format behind ``TraceCtx(file)`` and ``TraceCtx.save``.

The file is the format's object form, one complete event (``"ph": "X"``) per call::

    {"displayTimeUnit": "ms", "otherData": {...}, "traceEvents": [
    {"ph": "M", "name": "process_name", "ts": 0, "pid": 4242, "tid": 4242, "args": {"name": "python"}},
    {"ph": "M", "name": "thread_name", "ts": 0, "pid": 4242, "tid": 4242, "args": {"name": "MainThread"}},
    {"ph": "X", "name": "mod.leaf", "cat": "python", "ts": 12.345, "dur": 1.250, "pid": 4242, "tid": 4242,
     "args": {"args": "3", "result": "4", "file": "/src/mod.py", "line": 7}},
    ...
    ]}

``ts`` and ``dur`` are in microseconds (three decimals: nanoseconds) since the start of
the trace. Metadata events (``"ph": "M"``) name the process and each thread, so every
thread is a named track.

Order. A streamed file gets each call's event when the call *ends*, so children come
before their parents. The format allows it: Perfetto and ``chrome://tracing`` sort
complete events by time, and speedscope (which turns each ``X`` event into a begin and
an end, sorts them by time and nests equal times by duration) too. A tree written from
memory is written parents first. Within one thread every begin and every end gets its own
timestamp, strictly increasing in the order they happened (a reading equal to the
previous one moves forward by a nanosecond), so intervals nest strictly and no viewer has
to guess the order of equal timestamps (older speedscope versions did, by guesswork).
speedscope names a frame after the event's name *and* its ``args``, so calls with other
arguments or results are other frames in its aggregated views.

Writing. ``ChromeTraceWriter`` either streams events to the file (the default), or, with
``max_events=N``, keeps the last ``N`` call events in a ring and writes the whole file
at checkpoints and on close. The streamed file is written in place and stays valid
between top-level runs: ``checkpoint()`` writes the trailer ``]}`` after the last
complete event, and the next write first cuts the trailer off again. A write that fails
or is interrupted (Ctrl-C) is undone by truncating the file back to the last complete
event, so the trailer never follows a partial event: at any moment the file is either a
complete document or visibly cut short (no trailer). Whole files (the ring, ``save``) are
written to a temporary file in the same directory and renamed over the target with
``os.replace``. When writing fails (a full disk), the writer stops, removes its file (a
partial trace that parses would look complete), and reports the error once, as a
``TraceFileWarning``, at the next checkpoint or on close: the traced program goes on.
"""

from context._builtins import BUILTINS as __builtins__  # noqa: F401 (see context/_builtins.py)

import json
import os
import stat
import sys
import threading
import warnings
import weakref
from collections import deque
from json.encoder import encode_basestring_ascii as _json_str  # a str as a JSON string literal (ASCII)

from ..clock import clock_ns, perf_ns

TRAILER = b"\n]}\n"
WARN_BYTES = 100_000_000  # a file passing this size warns once (``ChromeTraceWriter.warn_bytes``)


class TraceFileWarning(RuntimeWarning):
    """A trace file could not be written, grew large, or dropped events (``max_events``)."""


def _check_path(path):
    try:
        return os.fspath(path)
    except TypeError:
        raise TypeError("trace file: expected None, a str or an os.PathLike path, got %s %r"
                        % (type(path).__name__, path)) from None


def _path_error(exc, path):
    """``exc`` (an OSError) again, its message naming ``path`` (and a missing directory)."""
    folder = os.path.dirname(os.path.abspath(path))
    why = exc.strerror or str(exc)
    if not os.path.isdir(folder):
        why = "the directory %s does not exist" % folder
    return type(exc)(exc.errno, "cannot write the trace file %s: %s" % (path, why), path)


def open_trace_file(path):
    """Create (or truncate) ``path`` for writing, unbuffered; a failure names the path."""
    path = _check_path(path)
    try:
        return path, open(path, "wb", buffering=0)
    except OSError as exc:
        raise _path_error(exc, path) from None


def atomic_write(path, chunks):
    """Write the byte strings ``chunks`` to ``path`` through a temporary file in the same directory.

    The target is replaced (``os.replace``) only once everything is written: a failure or
    an interruption leaves it as it was, and removes the temporary file. A symbolic link is
    followed (the file it names is replaced, not the link), and a device or pipe is written
    to directly. Returns the size.
    """
    path = _check_path(path)
    real = os.path.realpath(path)  # a symbolic link is written through, never replaced
    if os.path.exists(real) and not stat.S_ISREG(os.stat(real).st_mode):
        # a device or a pipe (/dev/stdout, /dev/null): written to directly, it cannot be swapped
        size = 0
        try:
            with open(real, "wb") as fh:
                for chunk in chunks:
                    fh.write(chunk)
                    size += len(chunk)
        except OSError as exc:
            raise _path_error(exc, path) from None
        return size
    path = real
    folder, base = os.path.split(path)
    tmp = os.path.join(folder, ".%s.%d.%s.tmp" % (base, os.getpid(), os.urandom(4).hex()))
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    except OSError as exc:
        raise _path_error(exc, path) from None
    size = 0
    try:
        with open(fd, "wb", buffering=1 << 16) as fh:
            for chunk in chunks:
                fh.write(chunk)
                size += len(chunk)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise
    return size


def _write_all(fh, data):
    """Write ``data`` to the unbuffered file ``fh``, however many calls it takes."""
    view = memoryview(data)
    while view:
        view = view[fh.write(view):]


def event_head(name, cat):
    """The JSON text of an event's name and category (cached by the callers)."""
    return '"name": %s, "cat": %s, ' % (_json_str(name), _json_str(cat))


def event_tail(file=None, line=None):
    """The JSON text closing a call event's ``args``: its source file and first line, if any."""
    if file is None:
        return "}"
    return ', "file": %s, "line": %d}' % (_json_str(file), line)


_KEYS = {key: _json_str(key) for key in ("result", "exception", "unfinished")}


def complete_event(head, start, dur, ids, args_text, key, text, receiver, tail):
    """One ``X`` event: ``start`` and ``dur`` in ns (>= 0), ``ids`` the pid/tid JSON text.

    ``args_text`` None: values are not recorded; ``text`` None leaves out ``key`` too.
    """
    if args_text is None:
        fields = [] if text is None else ["%s: %s" % (_KEYS.get(key) or _json_str(key), _json_str(text))]
        if receiver is not None:
            fields.append('"self": %s' % _json_str(receiver))
        return '{"ph": "X", %s"ts": %d.%03d, "dur": %d.%03d, %s"args": {%s}%s' % (
            head, start // 1000, start % 1000, dur // 1000, dur % 1000, ids, ", ".join(fields), tail)
    return '{"ph": "X", %s"ts": %d.%03d, "dur": %d.%03d, %s"args": {"args": %s, %s: %s%s%s}' % (
        head, start // 1000, start % 1000, dur // 1000, dur % 1000, ids, _json_str(args_text),
        _KEYS.get(key) or _json_str(key), _json_str(text),
        "" if receiver is None else ', "self": %s' % _json_str(receiver), tail)


def metadata_event(what, pid, tid, name):
    """A ``process_name`` or ``thread_name`` event."""
    return '{"ph": "M", "name": "%s", "ts": 0, "pid": %d, "tid": %d, "args": {"name": %s}}' % (
        what, pid, tid, _json_str(name))


def process_name():
    """The name shown for this process: the program's file name (``sys.argv[0]``), else ``python``."""
    argv0 = sys.argv[0] if sys.argv and isinstance(sys.argv[0], str) else ""
    if argv0 in ("", "-", "-c"):
        return "python"
    base = os.path.basename(argv0)
    if base == "__main__.py":  # python -m package: the package's name
        base = os.path.basename(os.path.dirname(argv0)) or base
    return base


def _header(other_data):
    header = {"displayTimeUnit": "ms", "otherData": dict(other_data or {})}
    return json.dumps(header)[:-1].encode() + b', "traceEvents": [\n'


def document(events, other_data=None):
    """The chunks (bytes) of a whole trace file holding the JSON texts ``events``."""
    yield _header(other_data)
    batch = []
    first = True
    for ev in events:
        batch.append(ev)
        if len(batch) >= 1024:
            yield (b"" if first else b",\n") + ",\n".join(batch).encode()
            first = False
            batch.clear()
    if batch:
        yield (b"" if first else b",\n") + ",\n".join(batch).encode()
    yield TRAILER


class ChromeTraceWriter:
    """Writes call events to a Chrome trace-event JSON file, streamed or from a ring of the last ones.

    ``thread(tid, name)`` says which thread the next events belong to (and names its track);
    ``begin(head, args_text, ns, receiver=None, tail="}")`` opens a call (``head`` from
    ``event_head``, ``tail`` from ``event_tail``; ``receiver`` is the text of its ``self`` or
    None) and ``end(key, text, ns)`` closes the innermost open one (``key`` is ``"result"``
    or ``"exception"``), making its event; ``ns`` are ``context.clock.clock_ns()`` readings,
    shown relative to ``t0_ns``.
    ``checkpoint()`` makes the file a complete document; ``close()`` ends the calls still
    open, finishes the file and closes it (twice is fine).

    ``max_events=N`` keeps only the last ``N`` call events (metadata events are always
    kept) and writes the whole file from them: on ``close()``, and at a checkpoint unless
    rewriting the file so often would take more than about a fifth of the time.
    ``error`` is the ``OSError`` that stopped the writing, if any; ``events`` the number of
    call events made, ``dropped`` the number the ring let go.
    """

    BATCH = 512  # events held in memory before they are written
    warn_bytes = WARN_BYTES

    def __init__(self, path, *, t0_ns=None, other_data=None, max_events=None, process=None):
        if max_events is not None and (type(max_events) is not int or max_events < 1):
            raise ValueError("max_events must be None or an int >= 1, got %r" % (max_events,))
        self.t0_ns = clock_ns() if t0_ns is None else t0_ns
        self.pid = os.getpid()
        self.max_events = max_events
        self.events = 0  # call events made
        self.error = None
        self._reported = False  # the error was warned about
        self._size_warned = False
        self._open = []  # per call begun and not yet ended: (head, start, ids, args_text, receiver, tail)
        self._pending = []  # warnings that arose during a run, given at its end
        self.on_warning = None  # a callable taking each warning's text instead of the warnings module
        self._last_ns = -1  # the last timestamp given, relative to t0_ns: the next one is later
        self._other = dict(other_data or {})
        self._meta = [metadata_event("process_name", self.pid, self.pid, process or process_name())]
        self._threads = {}  # tid -> name, as announced
        self._batch = []  # streaming: events not yet written
        self._ring = None if max_events is None else deque(maxlen=max_events)
        self._written_at = self._write_cost = 0  # the ring: when it was last written, and how long that took
        self._dirty_ring = True
        self.tid = 0
        self.path = _check_path(path)
        if self._ring is None:
            self.path, self._fh = open_trace_file(self.path)
            self._good = 0  # the file's bytes up to the end of the last complete event
            self._count = 0  # events in the file
            self._trailer = False  # the trailer follows self._good
            try:
                _write_all(self._fh, _header(self._other))
            except OSError as exc:
                self._fail(exc)
                raise _path_error(exc, self.path) from None
            self._good = self._fh.tell()
            self._batch.extend(self._meta)
        else:
            self._fh = True  # open: no file handle, the file is written whole
            self._other["max_events"] = max_events
            self._write_ring()  # an empty document: the path is checked now, and the file is valid
            self._write_cost = 0  # the first run's checkpoint writes
        self._reported = True  # a failure now is raised, not warned about
        self.checkpoint()
        if self.error is not None:
            raise _path_error(self.error, self.path)
        self._reported = False

    # -- events ----------------------------------------------------------------------------

    @property
    def tid(self):
        return self._tid

    @tid.setter
    def tid(self, tid):
        self._tid = tid
        self._ids = '"pid": %d, "tid": %d, ' % (self.pid, tid)

    def thread(self, tid=None, name=None):
        """The next events are the thread ``tid``'s (default: this one), named ``name`` once per tid."""
        if tid is None:
            tid = threading.get_native_id()
        if name is None:
            name = threading.current_thread().name
        self.tid = tid
        if self._threads.get(tid) != name:
            self._threads[tid] = name
            event = metadata_event("thread_name", self.pid, tid, name)
            self._meta.append(event)
            if self._ring is None:
                self._queue(event)
            else:
                self._dirty_ring = True

    @property
    def closed(self):
        return self._fh is None

    @property
    def dropped(self):
        """Call events the ring (``max_events``) let go."""
        return 0 if self._ring is None else self.events - len(self._ring)

    def _time(self, ns):
        ns -= self.t0_ns
        if ns <= self._last_ns:  # strictly increasing: nesting never depends on the order of equal times
            ns = self._last_ns + 1
        self._last_ns = ns
        return ns

    def opened(self, ns):
        """A call began at ``ns`` (a ``clock_ns`` reading): its start in the file's time (see ``complete``)."""
        return self._time(ns)

    def begin(self, head, args_text, ns, receiver=None, tail="}"):
        """Open a call: ``head`` (``event_head``), its arguments as text, the receiver's text or None."""
        if self._fh is not None:
            self._open.append((head, self._time(ns), self._ids, args_text, receiver, tail))

    def end(self, key, text, ns):
        """Close the innermost open call, with ``{key: text}`` among its arguments: its event is made."""
        if self._fh is None or not self._open:
            return
        head, start, ids, args_text, receiver, tail = self._open.pop()
        self.complete(head, start, ids, args_text, key, text, ns, receiver, tail)

    def complete(self, head, start, ids, args_text, key, text, ns, receiver=None, tail="}"):
        """Write the event of a call that ``begin`` did not open: ``start`` is what ``opened`` gave
        when it began, ``ids`` the ``ids`` then; the rest as for ``begin`` and ``end``."""
        ns -= self.t0_ns
        if ns <= self._last_ns:
            ns = self._last_ns + 1
        self._last_ns = ns
        event = complete_event(head, start, ns - start, ids, args_text, key, text, receiver, tail)
        self.events += 1
        if self._ring is None:
            self._queue(event)
        else:
            self._ring.append(event)
            self._dirty_ring = True

    def _queue(self, event):
        batch = self._batch
        batch.append(event)
        if len(batch) >= self.BATCH:
            self._flush_batch()

    # -- the streamed file -----------------------------------------------------------------

    def _append(self, data):
        """Add ``data`` after the last complete event; undone if it fails or is interrupted. Returns success."""
        fh = self._fh
        good = self._good
        try:
            fh.seek(good)
            if self._trailer or os.fstat(fh.fileno()).st_size != good:
                fh.truncate()  # the trailer, or what an interrupted write left
                self._trailer = False
            _write_all(fh, data)
            self._good = good + len(data)
        except OSError as exc:
            self._fail(exc)
            return False
        except BaseException:  # Ctrl-C: cut what was written, so the trailer never follows a partial event
            try:
                fh.seek(good)
                fh.truncate()
            except BaseException:
                pass
            raise
        if self._good > self.warn_bytes and not self._size_warned:
            self._size_warned = True
            self._warn("the trace file %s is over %d MB (%d calls so far); max_events=, max_depth=, include= "
                       "or exclude= keep it smaller" % (self.path, self.warn_bytes // 1_000_000, self.events),
                       now=True)
        return True

    def _flush_batch(self):
        batch = self._batch
        if not batch or self._fh is None:
            return
        data = ",\n".join(batch).encode()
        if self._count:
            data = b",\n" + data
        if self._append(data):
            self._count += len(batch)
            batch.clear()

    def _fail(self, exc):
        """Writing failed: stop, and remove the file (a partial trace that parses would look complete)."""
        self.error = exc
        fh, self._fh = self._fh, None
        self._batch.clear()
        self._open.clear()
        if self._ring is not None:
            self._ring.clear()
        if fh is not True and fh is not None:
            try:
                fh.close()
            except OSError:
                pass
        try:
            os.remove(self.path)
        except OSError:
            pass

    def _warn(self, message, now=False):
        """Warn (through ``on_warning`` if set); ``now`` (in the middle of a run): at the next
        checkpoint instead, when the run has ended, so that the traced program never sees the
        warning (its ``warnings.catch_warnings`` would record it, an error filter raise it there)."""
        if now:
            self._pending.append(message)
        elif self.on_warning is not None:
            self.on_warning("TraceCtx: " + message)
        else:
            warnings.warn("TraceCtx: " + message, TraceFileWarning, stacklevel=4)

    def _report(self):
        while self._pending:
            self._warn(self._pending.pop(0))
        if self.error is not None and not self._reported:
            self._reported = True
            why = self.error.strerror or str(self.error)
            self._warn("could not write the trace file %s (%s); the file was removed, and the run went on "
                       "without it" % (self.path, why))

    # -- the ring --------------------------------------------------------------------------

    def _write_ring(self):
        other = dict(self._other)
        other["dropped_events"] = self.dropped
        started = perf_ns()
        size = atomic_write(self.path, document(self._all_events(), other))
        self._written_at = perf_ns()
        self._write_cost = self._written_at - started
        self._dirty_ring = False
        if size > self.warn_bytes and not self._size_warned:
            self._size_warned = True
            self._warn("the trace file %s is over %d MB; a smaller max_events keeps it smaller"
                       % (self.path, self.warn_bytes // 1_000_000))

    def _all_events(self):
        yield from self._meta
        yield from self._ring

    def _checkpoint_ring(self, final):
        if not self._dirty_ring:
            return
        if not final and perf_ns() - self._written_at < 4 * self._write_cost:
            return  # rewritten recently: writing at every run would cost more than a fifth of the time
        try:
            self._write_ring()
        except OSError as exc:
            self._fail(exc)

    # -- checkpoints -----------------------------------------------------------------------

    def checkpoint(self, final=False):
        """Write what is queued and make the file a complete document (a ring: see the class)."""
        fh = self._fh
        if fh is None:
            self._report()
            return
        if self._ring is not None:
            self._checkpoint_ring(final)
        elif self._batch or not self._trailer:
            self._flush_batch()
            if self._fh is not None and not self._batch:
                try:
                    fh.seek(self._good)
                    _write_all(fh, TRAILER)
                    fh.truncate()  # anything after it, left by an interrupted write
                    self._trailer = True
                except OSError as exc:
                    self._fail(exc)
        self._report()

    def close_when_dropped(self, owner):
        """Close the file when ``owner`` (the context writing it) is garbage collected, or at
        interpreter exit, as ``close`` would: a context dropped without ``close()`` leaves a
        finished file and no open file behind (nor a ``ResourceWarning``). In a process forked
        from the one that opened it, the file is left as the parent writes it."""
        weakref.finalize(owner, _close_dropped, self)

    def close(self):
        """End the calls still open (they had not returned), finish the file and close it."""
        if self._fh is None:
            self._report()
            return
        ns = clock_ns()
        while self._open:
            self.end("unfinished", "the trace was closed before this call returned", ns)
        try:
            self.checkpoint(final=True)
        finally:
            fh, self._fh = self._fh, None
            if fh is not True and fh is not None:
                fh.close()
        if self.error is None and self.dropped:
            self._warn("max_events=%d kept the last %d of %d calls in %s; %d were dropped"
                       % (self.max_events, len(self._ring), self.events, self.path, self.dropped))


def _close_dropped(writer):
    if os.getpid() == writer.pid:
        try:
            writer.close()
        except Exception:  # at garbage collection or exit, in whatever state the program left:
            pass  # the file was complete after the last run already
        return
    fh, writer._fh = writer._fh, None  # a forked child: its copy of the handle, closed unwritten
    if fh is not True and fh is not None:
        try:
            fh.close()
        except OSError:
            pass


def write_records(path, roots, *, t0_ns, describe, outcome, threads=(), other_data=None, tid=None):
    """Write the call records ``roots`` (and their children) to ``path`` as a Chrome trace file.

    ``describe(record)`` gives ``(head, args_text, receiver_text_or_None, tail)`` and
    ``outcome(record)`` gives ``(key, text)``. ``threads`` lists ``(first root index, tid,
    thread name)`` for the roots from that index on (default: this thread). A record whose
    call is still running (``end_ns`` None) ends at the time of writing. Events are written
    parents first, through a temporary file (``atomic_write``). Returns the number of call events.
    """
    pid = os.getpid()
    threads = [t for t in threads if t[0] < len(roots)]
    if not threads or threads[0][0] != 0:
        threads.insert(0, (0, threading.get_native_id() if tid is None else tid, threading.current_thread().name))
    meta = [metadata_event("process_name", pid, pid, process_name())]
    named = {}
    for _, t, name in threads:
        if named.get(t) != name:
            named[t] = name
            meta.append(metadata_event("thread_name", pid, t, name))
    now = clock_ns()
    count = [0]

    def events():
        yield from meta
        bounds = [i for i, _, _ in threads[1:]] + [len(roots)]
        for (first, t, _), stop in zip(threads, bounds):
            ids = '"pid": %d, "tid": %d, ' % (pid, t)
            times = _strict_times(roots[first:stop], t0_ns, now)
            todo = list(reversed(roots[first:stop]))
            while todo:
                rec = todo.pop()
                start, end = times[id(rec)]
                head, args_text, receiver, tail = describe(rec)
                key, text = outcome(rec)
                count[0] += 1
                yield complete_event(head, start, end - start, ids, args_text, key, text, receiver, tail)
                todo.extend(reversed(rec.children))

    atomic_write(path, document(events(), other_data))
    return count[0]


def _strict_times(roots, t0_ns, now):
    """``{id(record): (start, end)}`` relative to ``t0_ns``, strictly increasing in the order of the calls."""
    times = {}
    last = -1
    todo = [(False, r) for r in reversed(roots)]
    while todo:
        closing, rec = todo.pop()
        if closing:
            ns = (rec.end_ns if rec.end_ns is not None else now) - t0_ns
            ns = last + 1 if ns <= last else ns
            times[id(rec)] = (times[id(rec)], ns)
        else:
            ns = rec.start_ns - t0_ns
            ns = last + 1 if ns <= last else ns
            times[id(rec)] = ns
            todo.append((True, rec))
            todo.extend([(False, c) for c in reversed(rec.children)])
        last = ns
    return times
