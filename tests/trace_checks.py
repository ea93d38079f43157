"""A small validator of Chrome trace-event JSON files (the Trace Event Format), for the tests.

It checks what Perfetto, ``chrome://tracing`` and speedscope rely on: the object form
with a ``traceEvents`` list; each event's phase, timestamp and ids; complete events
(``X``) with a duration; metadata events naming the process and the threads; and, per
thread, complete events that nest as intervals (each one inside the enclosing one, or
after it). ``strict=True`` (what ``TraceCtx`` promises) also asks that within a thread
no two begins or ends share a timestamp.
"""

import json
import math

PHASES = set("BEXiIMCbensftPONDRrcSTpF")  # the phases the format defines
METADATA = {"process_name", "thread_name", "process_sort_index", "thread_sort_index", "process_labels"}


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _ns(us):
    return round(us * 1000)


def validate_trace(doc, strict=True):
    """Check ``doc`` (a parsed file, or a path); return ``{(pid, tid): [X events in time order]}``."""
    if not isinstance(doc, dict):
        with open(doc, encoding="utf-8") as fh:
            doc = json.load(fh)
    assert isinstance(doc, dict), "the object form: a JSON object"
    events = doc.get("traceEvents")
    assert isinstance(events, list), "traceEvents must be a list"
    assert doc.get("displayTimeUnit", "ms") in ("ms", "ns")
    tracks = {}
    named_threads, named_processes = set(), set()
    open_be = {}
    for ev in events:
        assert isinstance(ev, dict), ev
        ph = ev.get("ph")
        assert ph in PHASES, "unknown phase %r in %r" % (ph, ev)
        assert _number(ev.get("ts")) and ev["ts"] >= 0, "ts must be a number >= 0: %r" % (ev,)
        assert type(ev.get("pid")) is int and type(ev.get("tid")) is int, "pid and tid must be ints: %r" % (ev,)
        assert isinstance(ev.get("name"), str), "an event has a name: %r" % (ev,)
        if "args" in ev:
            assert isinstance(ev["args"], dict), ev
        track = (ev["pid"], ev["tid"])
        if ph == "M":
            assert ev["name"] in METADATA, ev
            if ev["name"] in ("process_name", "thread_name"):
                assert isinstance(ev["args"].get("name"), str) and ev["args"]["name"], ev
                (named_threads if ev["name"] == "thread_name" else named_processes).add(
                    track if ev["name"] == "thread_name" else ev["pid"])
        elif ph == "X":
            assert _number(ev.get("dur")) and ev["dur"] >= 0, "X events need dur >= 0: %r" % (ev,)
            assert isinstance(ev.get("cat", ""), str)
            tracks.setdefault(track, []).append(ev)
        elif ph == "B":
            open_be.setdefault(track, []).append(ev)
        elif ph == "E":
            assert open_be.get(track), "E without B: %r" % (ev,)
            open_be[track].pop()
    assert not any(open_be.values()), "B events never ended"
    for track, xs in tracks.items():
        assert track in named_threads, "thread %r has no thread_name event" % (track,)
        assert track[0] in named_processes, "process %r has no process_name event" % (track[0],)
        xs.sort(key=lambda e: (_ns(e["ts"]), -_ns(e["dur"])))
        stack = []  # ends of the enclosing intervals
        stamps = set()
        for ev in xs:
            start, end = _ns(ev["ts"]), _ns(ev["ts"]) + _ns(ev["dur"])
            while stack and stack[-1] <= start:
                stack.pop()
            assert not stack or end <= stack[-1], "X events overlap without nesting on %r: %r" % (track, ev)
            stack.append(end)
            if strict:
                assert start not in stamps and end not in stamps and start < end, \
                    "timestamps repeat on %r: %r" % (track, ev)
                stamps.update((start, end))
    return tracks


def load(path):
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def calls_of(path_or_doc):
    """The X events of a file, in the order written."""
    doc = load(path_or_doc) if not isinstance(path_or_doc, dict) else path_or_doc
    return [e for e in doc["traceEvents"] if e["ph"] == "X"]
