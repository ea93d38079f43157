"""Chrome trace files of TraceCtx: complete events, source locations, thread tracks, receivers,
max_events, size warnings, a full disk and Ctrl-C while writing, and TraceCtx.save."""

import base64
import errno
import json
import os
import pathlib
import re
import shutil
import subprocess
import threading
import warnings

import pytest

import context
from context.ready import chrome, tracing
from context.ready.chrome import ChromeTraceWriter, TraceFileWarning
from context.ready.tracing import TraceCtx

from .trace_checks import calls_of, load, validate_trace


def leaf(x):
    return x + 1


def middle(x):
    return leaf(x) * 2


def top(x):
    return middle(x) + leaf(x=x)


def with_native(xs):
    return len(xs) + leaf(1)


def loop(n):
    for i in range(n):
        leaf(i)
    return n


def loop_and_count(n, record):
    return loop(n), len(trace_warnings(record))


class Box:
    def __init__(self, value):
        self.value = value

    def get(self):
        return self.value

    def __repr__(self):
        return "Box(%r)" % (self.value,)


def use_receivers():
    xs = []
    xs.append(Box(2).get())
    return xs


def name(fn):
    return "%s.%s" % (__name__, fn.__qualname__)


def trace_warnings(record):
    return [str(w.message) for w in record if issubclass(w.category, TraceFileWarning)]


def leftovers(folder):
    return [n for n in os.listdir(folder) if n.endswith(".tmp")]


# -- the events ----------------------------------------------------------------------------


def test_one_complete_event_per_call_with_the_callees_file_and_line(tmp_path):
    path = tmp_path / "t.json"
    with TraceCtx(path) as ctx:
        assert context.overdub(ctx, with_native, [1, 2]) == 4
    xs = calls_of(path)
    assert len(xs) == ctx.calls == 3 and all(ev["ph"] == "X" for ev in xs)
    by_name = {ev["name"]: ev for ev in xs}
    for fn in (with_native, leaf):
        args = by_name[name(fn)]["args"]
        assert (args["file"], args["line"]) == (fn.__code__.co_filename, fn.__code__.co_firstlineno)
        assert by_name[name(fn)]["cat"] == "python"
    assert by_name["len"]["cat"] == "native" and by_name["len"]["args"] == {"args": "[1, 2]", "result": "2"}
    assert by_name[name(with_native)]["args"]["result"] == "4" and by_name[name(leaf)]["args"]["args"] == "1"
    assert all(ev["dur"] > 0 for ev in xs)


def test_streamed_events_come_as_calls_end_and_nest_strictly(tmp_path):
    path = tmp_path / "t.json"
    with TraceCtx(path) as ctx:
        context.overdub(ctx, top, 3)
    xs = calls_of(path)
    assert [ev["name"] for ev in xs] == [name(leaf), name(middle), name(leaf), name(top)]  # children first
    tracks = validate_trace(load(path))  # nested intervals, no repeated timestamp
    (track,) = tracks.values()
    assert [ev["name"] for ev in track] == [name(top), name(middle), name(leaf), name(leaf)]  # by start
    root = track[0]
    assert all(root["ts"] < ev["ts"] and ev["ts"] + ev["dur"] < root["ts"] + root["dur"] for ev in track[1:])


def raises_inside(x):
    try:
        middle(None)
    except TypeError:
        pass
    return [leaf(i) for i in range(x)]


@pytest.mark.parametrize("values", [True, False])
def test_the_streamed_path_writes_what_the_general_path_writes(tmp_path, values):
    """``TraceCtx(path)`` runs its calls on a path of its own (``_stream``); a ``max_depth``
    sends them through the general path. Both write the same events, exceptions included."""
    streamed, general = tmp_path / "s.json", tmp_path / "g.json"
    with TraceCtx(streamed, values=values) as ctx:
        assert ctx._streamed
        context.overdub(ctx, raises_inside, 3)
    with TraceCtx(general, values=values, max_depth=10**6) as ctx:
        assert not ctx._streamed
        context.overdub(ctx, raises_inside, 3)

    def events(path):  # objects shown by address (3.11's comprehension iterators) differ
        return [(ev["name"], ev["cat"], re.sub(" at 0x[0-9a-f]+", "", json.dumps(ev["args"])))
                for ev in calls_of(path)]

    assert events(streamed) == events(general)
    assert any('"exception"' in args for _, _, args in events(streamed))
    validate_trace(load(streamed))


def test_timestamps_stay_strict_when_the_clock_repeats_a_reading(tmp_path, monkeypatch):
    monkeypatch.setattr(tracing, "clock_ns", lambda: 10**9)  # every reading equal
    path = tmp_path / "t.json"
    with TraceCtx(path, keep=True) as ctx:
        context.overdub(ctx, top, 3)
    validate_trace(load(path))
    again = tmp_path / "again.json"
    ctx.write_chrome(again)
    validate_trace(load(again))
    assert all(ev["dur"] > 0 for ev in calls_of(again))


def test_metadata_names_the_process_and_each_threads_track(tmp_path):
    path = tmp_path / "t.json"
    ctx = TraceCtx(path, keep=True)
    context.overdub(ctx, leaf, 1)

    def worker():
        context.overdub(ctx, leaf, 2)  # one context, one thread at a time

    t = threading.Thread(target=worker, name="second-thread")
    t.start()
    t.join()
    context.overdub(ctx, leaf, 3)
    ctx.close()
    for written in (path, ctx.write_chrome(tmp_path / "kept.json") and tmp_path / "kept.json"):
        doc = load(written)
        validate_trace(doc)
        meta = [ev for ev in doc["traceEvents"] if ev["ph"] == "M"]
        assert meta[0]["name"] == "process_name" and meta[0]["pid"] == os.getpid() and meta[0]["args"]["name"]
        threads = {ev["tid"]: ev["args"]["name"] for ev in meta if ev["name"] == "thread_name"}
        assert threads == {threading.get_native_id(): threading.current_thread().name,
                           t.native_id: "second-thread"}
        assert [(ev["args"]["args"], threads[ev["tid"]]) for ev in sorted(calls_of(doc), key=lambda e: e["ts"])] == [
            ("1", threading.current_thread().name), ("2", "second-thread"), ("3", threading.current_thread().name)]


def test_receivers_are_shown_only_when_asked(tmp_path):
    plain, shown = tmp_path / "plain.json", tmp_path / "shown.json"
    with TraceCtx(plain) as ctx:
        context.overdub(ctx, use_receivers)
    with TraceCtx(shown, receivers=True, keep=True, reprs=True) as ctx:
        context.overdub(ctx, use_receivers)
    assert not any("self" in ev["args"] for ev in calls_of(plain))
    selves = {ev["name"]: ev["args"].get("self") for ev in calls_of(shown)}
    assert selves == {name(use_receivers): None, name(Box): None, name(Box.__init__): None,
                      name(Box.get): "Box(2)", "list.append": "[]"}
    kept = tmp_path / "kept.json"
    ctx.write_chrome(kept)  # a kept tree shows objects as they are when it is written
    assert {ev["name"]: ev["args"].get("self") for ev in calls_of(kept)} == dict(selves, **{"list.append": "[2]"})
    default = tmp_path / "default.json"
    with TraceCtx(default, receivers=True) as ctx:  # Box's own __repr__ is the program's: not run
        context.overdub(ctx, use_receivers)
    box = {ev["name"]: ev["args"].get("self") for ev in calls_of(default)}[name(Box.get)]
    assert box.startswith("<%s.Box object at 0x" % __name__)


# -- max_events ------------------------------------------------------------------------------


def test_max_events_keeps_the_most_recent_calls_and_says_how_many_were_dropped(tmp_path):
    path = tmp_path / "ring.json"
    ctx = TraceCtx(path, max_events=10)
    assert load(path)["traceEvents"][0]["name"] == "process_name"  # valid from the start
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        assert context.overdub(ctx, loop, 100) == 100
        doc = load(path)  # written at the end of the run: complete
        assert trace_warnings(record) == []
        ctx.close()
    assert ctx.calls == 102 and ctx.dropped_events == 92
    (message,) = trace_warnings(record)
    assert "max_events=10" in message and "92 were dropped" in message and str(path) in message
    for written in (doc, load(path)):
        validate_trace(written)
        xs = calls_of(written)
        assert [ev["args"]["args"] for ev in xs] == [str(i) for i in range(91, 100)] + ["100"]  # the last to end
        assert xs[-1]["name"] == name(loop)
        assert written["otherData"]["max_events"] == 10 and written["otherData"]["dropped_events"] == 92
    assert leftovers(tmp_path) == []


def test_max_events_without_dropping_warns_nothing(tmp_path):
    path = tmp_path / "ring.json"
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        with TraceCtx(path, max_events=1000) as ctx:
            context.overdub(ctx, top, 3)
    assert trace_warnings(record) == [] and ctx.dropped_events == 0
    assert len(calls_of(path)) == 4


def test_size_warning_once(tmp_path, monkeypatch):
    monkeypatch.setattr(ChromeTraceWriter, "warn_bytes", 5_000)
    for options in ({}, {"max_events": 5000}):
        path = tmp_path / "big.json"
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            with TraceCtx(path, **options) as ctx:
                context.overdub(ctx, loop, 600)
                context.overdub(ctx, loop, 600)
        (message,) = trace_warnings(record)
        assert "is over" in message and str(path) in message
        assert len(calls_of(path)) == ctx.calls
    assert chrome.WARN_BYTES == 100_000_000  # the default: 100 MB


def loop_recording_warnings(n):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        loop(n)
    return [str(w.message) for w in seen]


def test_the_traced_program_never_sees_a_trace_files_warning(tmp_path, monkeypatch):
    monkeypatch.setattr(ChromeTraceWriter, "warn_bytes", 5_000)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        with TraceCtx(tmp_path / "big.json") as ctx:
            assert context.overdub(ctx, loop_recording_warnings, 600) == []  # the program's warnings: none
    (message,) = trace_warnings(record)  # given when the run ended
    assert "is over" in message


def loop_and_finish(n, done):
    loop(n)
    done.append(True)
    return n


def test_warnings_made_errors_never_interrupt_the_traced_program(tmp_path, monkeypatch):
    monkeypatch.setattr(ChromeTraceWriter, "warn_bytes", 5_000)
    path = tmp_path / "big.json"
    done = []
    with warnings.catch_warnings():
        warnings.simplefilter("error", TraceFileWarning)
        with TraceCtx(path) as ctx:
            with pytest.raises(TraceFileWarning, match="is over"):  # given at the end of the run
                context.overdub(ctx, loop_and_finish, 2000, done)
            assert done == [True]  # the file passed the size in the middle of the run, which went on
    validate_trace(load(path))
    assert len(calls_of(path)) == ctx.calls


def test_max_events_bad_input(tmp_path):
    for bad in (0, -1, 2.5, "10", True):
        with pytest.raises(ValueError, match="max_events"):
            TraceCtx(tmp_path / "t.json", max_events=bad)
    with pytest.raises(ValueError, match="pass a file"):
        TraceCtx(max_events=10)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        TraceCtx(tmp_path / "missing" / "t.json", max_events=10)


# -- robust writing: a full disk, Ctrl-C -----------------------------------------------------


def full_disk(fh, monkeypatch, after=0):
    """Make ``fh.write`` fail with ENOSPC; with ``after``, only once that many bytes went through."""
    real = fh.write
    budget = [after]

    def write(data):
        if budget[0] <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        n = real(bytes(data)[: budget[0]])
        budget[0] -= n
        return n

    monkeypatch.setattr(fh, "write", write)


@pytest.mark.parametrize("after", [0, 1000])  # nothing more fits; a partial write, then nothing
@pytest.mark.parametrize("n", [2000, 10])  # the failure in the run (batches of 512 calls), or at its end
def test_a_full_disk_does_not_stop_the_traced_program(tmp_path, monkeypatch, after, n):
    path = tmp_path / "full.json"
    ctx = TraceCtx(path, keep=True)
    full_disk(ctx._writer._fh, monkeypatch, after)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        # no exception: the program ran to its end, and saw no warning while it ran
        assert context.overdub(ctx, loop_and_count, n, record) == (n, 0)
        (message,) = trace_warnings(record)  # reported once, after the run
        assert "No space left on device" in message and str(path) in message and "removed" in message
        assert not path.exists()  # no partial file that could pass for the whole trace
        assert ctx.file_error.errno == errno.ENOSPC
        assert context.overdub(ctx, leaf, 1) == 2  # later runs go on without the file
        ctx.close()
        ctx.close()
    assert len(trace_warnings(record)) == 1
    assert [r.callee for r in ctx.roots] == [loop_and_count, leaf]  # the kept tree is whole
    assert sum(1 for c in ctx.roots[0].children[0].children if c.callee is leaf) == n
    assert leftovers(tmp_path) == [] and not path.exists()


def test_a_full_disk_with_max_events_removes_the_file_and_warns_once(tmp_path, monkeypatch):
    path = tmp_path / "ring.json"
    ctx = TraceCtx(path, max_events=50)

    def no_space(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(chrome.os, "replace", no_space)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        assert context.overdub(ctx, loop, 100) == 100
        ctx.close()
    (message,) = trace_warnings(record)  # the failure, not the dropped events of a file that is gone
    assert "No space left on device" in message
    assert not path.exists() and leftovers(tmp_path) == []


def test_ctrl_c_during_a_write_leaves_a_valid_trace_of_every_call(tmp_path, monkeypatch):
    path = tmp_path / "interrupted.json"
    ctx = TraceCtx(path)
    fh = ctx._writer._fh
    real = fh.write
    interrupted = []

    def write(data):
        if not interrupted and len(data) > 1000:  # the first batch of events: half of it, then Ctrl-C
            interrupted.append(real(bytes(data)[: len(data) // 2]))
            raise KeyboardInterrupt
        return real(data)

    monkeypatch.setattr(fh, "write", write)
    with pytest.raises(KeyboardInterrupt):
        context.overdub(ctx, loop, 2000)
    assert interrupted
    doc = load(path)  # the half batch was cut off and written again: valid, and complete
    validate_trace(doc)
    xs = calls_of(doc)
    assert len(xs) == ctx.calls
    # the leaf whose event was being written had returned; loop is where the Ctrl-C arrived
    assert [ev["name"] for ev in xs if "KeyboardInterrupt" in ev["args"].get("exception", "")] == [name(loop)]
    ctx.close()
    assert calls_of(path) == xs


def test_a_file_cut_short_never_ends_like_a_complete_one(tmp_path, monkeypatch):
    path = tmp_path / "cut.json"
    ctx = TraceCtx(path)
    fh = ctx._writer._fh
    real = fh.write

    def write(data):  # every write of events is interrupted half way
        real(bytes(data)[: max(len(data) // 2, 1)])
        raise KeyboardInterrupt

    monkeypatch.setattr(fh, "write", write)
    with pytest.raises(KeyboardInterrupt):
        context.overdub(ctx, loop, 2000)
    text = path.read_text()
    assert not text.rstrip().endswith("]}")  # visibly incomplete
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    monkeypatch.setattr(fh, "write", real)  # the disk works again: close writes everything
    ctx.close()
    validate_trace(load(path))
    assert len(calls_of(path)) == ctx.calls


def test_whole_file_writes_leave_the_old_file_when_they_fail(tmp_path, monkeypatch):
    _, ctx = run_kept(top, 3)
    path = tmp_path / "kept.json"
    ctx.write_chrome(path)
    before = path.read_bytes()

    def no_space(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(chrome.os, "replace", no_space)
    context.overdub(ctx, leaf, 5)
    for fmt in ("chrome", "html"):
        with pytest.raises(OSError) as info:
            ctx.save(path, format=fmt)
        assert info.value.errno == errno.ENOSPC
    assert path.read_bytes() == before and leftovers(tmp_path) == []


# -- save ------------------------------------------------------------------------------------


def run_kept(fn, *args, **options):
    ctx = TraceCtx(**options)
    return context.overdub(ctx, fn, *args), ctx


def test_save_chrome_and_html_by_format_or_extension(tmp_path):
    _, ctx = run_kept(top, 3)
    assert ctx.save(tmp_path / "a.json") == 4
    assert ctx.save(tmp_path / "b.trace", format="chrome") == 4
    assert ctx.save(tmp_path / "c.html") == 4
    assert ctx.save(tmp_path / "d.HTM") == 4
    assert ctx.save(tmp_path / "e.html", format="chrome") == 4
    for f in ("a.json", "b.trace", "e.html"):
        validate_trace(load(tmp_path / f))
        assert sorted(ev["name"] for ev in calls_of(tmp_path / f)) == sorted([name(top), name(middle)] + [name(leaf)] * 2)
    for f in ("c.html", "d.HTM"):
        text = (tmp_path / f).read_text()
        assert text.startswith("<!DOCTYPE html>") and name(middle) in text
    with pytest.raises(ValueError, match="format"):
        ctx.save(tmp_path / "x", format="svg")
    with TraceCtx(tmp_path / "streamed.json") as streamed:
        context.overdub(streamed, leaf, 1)
        with pytest.raises(ValueError, match="keep=True"):
            streamed.save(tmp_path / "x.html")


# -- the validator itself --------------------------------------------------------------------


def test_the_validator_rejects_what_viewers_would_misread():
    meta = [{"ph": "M", "name": "process_name", "ts": 0, "pid": 1, "tid": 1, "args": {"name": "p"}},
            {"ph": "M", "name": "thread_name", "ts": 0, "pid": 1, "tid": 1, "args": {"name": "t"}}]

    def x(ts, dur, tid=1):
        return {"ph": "X", "name": "f", "cat": "python", "ts": ts, "dur": dur, "pid": 1, "tid": tid, "args": {}}

    validate_trace({"traceEvents": meta + [x(1.0, 10.0), x(2.0, 3.0), x(6.0, 1.0)]})
    bad = [
        meta + [x(1.0, 10.0), x(5.0, 10.0)],  # overlapping without nesting
        meta + [x(1.0, -1.0)],  # negative duration
        meta + [x(1.0, 1.0, tid=2)],  # a thread without a name
        meta + [dict(x(1.0, 1.0), ph="Q")],  # no such phase
        meta + [dict(x(1.0, 1.0), ts="1")],  # a timestamp that is not a number
        meta + [x(1.0, 10.0), x(1.0, 2.0)],  # strict: two calls starting at once
    ]
    for events in bad:
        with pytest.raises(AssertionError):
            validate_trace({"traceEvents": events})
    with pytest.raises(AssertionError):
        validate_trace({"events": []})


# -- read by a real viewer: speedscope, in a headless browser ---------------------------------


def speedscope_page():
    """speedscope's offline page (``npm install -g speedscope``) and a Chromium, or skip."""
    exe = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable",
                                          "chrome") if shutil.which(n)), None)
    if exe is None:
        pytest.skip("no headless Chromium or Chrome installed")
    cli = shutil.which("speedscope")
    if cli is None:
        pytest.skip("speedscope is not installed (npm install -g speedscope)")
    page = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(cli))), "dist", "release", "index.html")
    if not os.path.exists(page):
        pytest.skip("speedscope's offline page is not at %s" % page)
    return exe, page


def speedscope_import(path, folder):
    """Load ``path`` into speedscope as its command line does; return its console messages and page."""
    exe, page = speedscope_page()
    loader = folder / ("load-%s.js" % path.stem)
    data = base64.b64encode(path.read_bytes()).decode()
    loader.write_text("speedscope.loadFileFromBase64(%s, %s)" % (json.dumps(path.name), json.dumps(data)))
    args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--enable-logging=stderr",
            "--v=0", "--virtual-time-budget=10000", "--user-data-dir=%s" % (folder / "profile"), "--dump-dom",
            "%s#localProfilePath=%s" % (pathlib.Path(page).as_uri(), loader)]
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=180)
    except subprocess.TimeoutExpired:
        pytest.skip("the browser did not finish in 180 s")
    console = [line.split('"', 1)[-1] for line in done.stderr.splitlines() if ":CONSOLE" in line]
    if not any("speedscope v" in line for line in console):
        pytest.skip("speedscope did not start in the headless browser: %s" % done.stderr[-300:])
    return console, done.stdout


def test_speedscope_imports_streamed_kept_and_threaded_files_without_complaint(tmp_path):
    speedscope_page()
    streamed = tmp_path / "streamed.json"  # children before parents
    with TraceCtx(streamed, keep=True) as ctx:
        context.overdub(ctx, top, 3)
        context.overdub(ctx, loop, 50)
        t = threading.Thread(target=context.overdub, args=(ctx, middle, 1), name="other-thread")
        t.start()
        t.join()
    kept = tmp_path / "kept.json"  # parents first
    ctx.write_chrome(kept)
    for path in (streamed, kept):
        console, page = speedscope_import(path, tmp_path)
        assert any("Importing as Trace Event Format" in line for line in console), console
        complaints = [line for line in console if "Tried to" in line or "still open" in line or "rror" in line]
        assert complaints == []
        assert "MainThread (tid %d)" % threading.get_native_id() in page
        assert "other-thread (tid %d)" % t.native_id in page  # a track per thread, named


def test_speedscope_complains_about_a_file_that_does_not_nest(tmp_path):
    """The check above can fail: speedscope warns when complete events overlap."""
    speedscope_page()
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"traceEvents": [
        {"ph": "X", "name": "a", "ts": 1, "dur": 10, "pid": 1, "tid": 1},
        {"ph": "X", "name": "b", "ts": 5, "dur": 10, "pid": 1, "tid": 1},
    ]}))
    console, _ = speedscope_import(bad, tmp_path)
    assert any("Tried to end" in line for line in console)


def test_whole_file_writes_follow_symbolic_links_and_write_devices_directly(tmp_path):
    from context.ready.chrome import atomic_write

    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert atomic_write(link, [b"new"]) == 3
    assert link.is_symlink() and target.read_text() == "new"  # the link stays a link
    assert atomic_write(os.devnull, [b"x" * 10]) == 10
    assert os.path.exists(os.devnull) and not os.path.isfile(os.devnull)


def test_argument_text_is_cut_without_building_the_whole_repr():
    from context.ready.showing import format_arguments, short_repr

    document = "x" * 30_000
    assert short_repr(document, 20) == repr(document[:20])[:17] + "..."
    assert short_repr(frozenset("ab"), 80) in ("frozenset({'a', 'b'})", "frozenset({'b', 'a'})")
    assert short_repr({"k": [1, (2, 3)], "z": set()}, 80) == "{'k': [1, (2, 3)], 'z': set()}"
    assert short_repr(list(range(10)), 80) == "[0, 1, 2, 3, 4, 5, ...]"
    assert short_repr([[[[1]]]], 80) == "[[[...]]]"
    assert short_repr(int, 80) == "<class 'int'>"
    # shown from a cache when passed again, but never stale for a tuple holding a list
    items = [1]
    holder = (items,)
    assert format_arguments((holder, document), {}, 20) == "([1],), 'xxxxxxxxxxxxxxxx..."
    items.append(2)
    assert format_arguments((holder,), {}, 20) == "([1, 2],)"


@pytest.mark.parametrize("value", [
    "short", "\x00" * 16, "\U000e0001" * 16, "é" * 16, "q" * 17, 10**18 - 1, -(10**18) + 1, 10**18, True, None, 2.5,
    (1, "a"), (1,), (), [1.5, None, "x"], {3}, set(), frozenset({1}), frozenset(), tuple(range(6)), tuple(range(7)),
    ("\x00" * 16,) * 2, ("\U000e0001" * 16,), (10**18,), tuple("abcdefghijklmnop" for _ in range(5)),
])
@pytest.mark.parametrize("limit", [80, 66, 65, 20])
def test_argument_text_quick_paths_give_the_general_paths_text(value, limit):
    # short ASCII strings, small ints and containers of a few such atoms are shown from repr directly:
    # the text must be what the general path (each item shown short, the whole cut to the limit) gives
    from context.ready import showing as display

    def general(v):
        if type(v) in display._CONTAINERS:
            items = [general(item) for item in list(v)[:6]]
            body = ", ".join(items) + (", ..." if len(v) > 6 else "")
            text = {tuple: "(%s,)" % body if len(v) == 1 else "(%s)" % body, list: "[%s]" % body,
                    set: "{%s}" % body if v else "set()",
                    frozenset: "frozenset({%s})" % body if v else "frozenset()"}[type(v)]
        else:
            text = repr(v if type(v) is not str or len(v) <= limit else v[:limit])
        return text

    want = general(value)
    want = want if len(want) <= limit else want[:limit - 3] + "..."
    assert display.short_repr(value, limit) == want
    assert display.format_arguments((value, value), {}, limit) == ", ".join([want, want])


def test_the_argument_text_cache_keeps_no_value_alive_after_a_run(tmp_path, capsys):
    from context.ready import showing as display

    def reads(doc):
        return len(doc)

    for make in (lambda: TraceCtx(tmp_path / "t.json"), lambda: context.PrintCtx()):
        doc = bytes(range(200))
        holder = (doc, "x" * 100)
        ctx = make()
        seen = []

        def run():
            out = [reads(doc), reads(doc), reads(holder)]
            seen.append(any(entry[0] is doc for entry in display._SHOWN.values()))
            return out

        assert context.overdub(ctx, run) == [200, 200, 2]
        if hasattr(ctx, "close"):
            ctx.close()
        assert seen == [True]  # shown from the cache during the run
        assert display._SHOWN == {}  # emptied when the top-level call ended


def test_tracing_values_keeps_no_object_alive_during_a_run(tmp_path):
    """Showing an argument never holds it past its call: itertools still reuses its result
    tuple (it does only while nothing else holds it), and an object passed inside a tuple
    dies at its last use, as natively."""
    import gc
    import itertools
    import weakref

    class Item:
        pass

    def reuse():
        return len(set(map(id, itertools.combinations("abcde", 3))))

    def dies():
        item = Item()
        ref = weakref.ref(item)
        pair = (item, 1)
        len(pair)  # passed to a traced call inside a tuple
        del item, pair
        gc.collect()
        return ref() is None

    natively = (reuse(), dies())
    assert natively == (1, True)
    ctx = TraceCtx(tmp_path / "t.json")
    assert (context.overdub(ctx, reuse), context.overdub(ctx, dies)) == natively
    ctx.close()


def test_a_dropped_trace_context_closes_its_finished_file(tmp_path):
    """A ``TraceCtx`` with a file that is garbage collected (here in a reference cycle) without
    ``close()`` leaves a finished file and no ResourceWarning; a forked child dropping its copy
    writes nothing into the parent's file."""
    import gc

    def f(x):
        return [x] * 2

    path = tmp_path / "t.json"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ctx = TraceCtx(path)
        context.overdub(ctx, f, 1)
        if hasattr(os, "fork"):
            pid = os.fork()
            if pid == 0:
                del ctx
                gc.collect()
                os._exit(0)
            assert os.waitpid(pid, 0)[1] == 0
        context.overdub(ctx, f, 2)
        ctx.cycle = ctx
        del ctx
        gc.collect()
    assert [w for w in caught if issubclass(w.category, ResourceWarning)] == []
    trace = load(path)
    validate_trace(trace)
    assert [(e["args"]["args"], e["args"]["result"]) for e in calls_of(trace) if e["name"].endswith(".f")] == [
        ("1", "[1, 1]"), ("2", "[2, 2]")]


def test_values_false_writes_calls_without_arguments_or_results(tmp_path):
    def fails():
        raise KeyError("k")

    def work(x):
        try:
            fails()
        except KeyError:
            pass
        return leaf(x)

    streamed, kept = tmp_path / "s.json", tmp_path / "k.json"
    with TraceCtx(streamed, values=False, keep=True) as ctx:
        context.overdub(ctx, work, 3)
    ctx.write_chrome(kept)
    for path in (streamed, kept):
        doc = load(path)
        validate_trace(doc)
        events = {ev["name"].rsplit(".", 1)[-1]: ev for ev in calls_of(doc)}
        assert events["work"]["args"] == {} and events["leaf"]["args"] == {}
        assert events["fails"]["args"] == {"exception": "KeyError"}
        assert doc["otherData"]["values"] == "not recorded"
    assert ctx.roots[0].args == (3,)  # the kept tree still holds them


def test_times_stay_real_while_a_test_library_freezes_the_clock(tmp_path):
    """Libraries that freeze time for tests (freezegun) replace ``time.perf_counter_ns`` and
    ``time.monotonic`` in ``time`` and in every module that holds them; the engine's clock
    keeps reading the real one, as cProfile's does, and a dropped context closes its file
    without calling a fake that fails."""
    import gc
    import sys
    import time

    # (the two the engine reads; other libraries' own clocks, hypothesis's among them, are left alone)
    real = {name: getattr(time, name) for name in ("perf_counter_ns", "monotonic")}

    def fails():
        raise IndexError("no time is frozen")  # what freezegun's fakes raise outside a freeze

    patched = []
    for module in list(sys.modules.values()):
        for attr, value in list(getattr(module, "__dict__", {}).items()):
            if any(value is fn for fn in real.values()):
                setattr(module, attr, fails)
                patched.append((module, attr, value))

    def work(n):
        return sum(i * i for i in range(n))

    try:
        ctx = TraceCtx(tmp_path / "t.json")
        assert context.overdub(ctx, work, 2000) == work(2000)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ctx.cycle = ctx
            del ctx
            gc.collect()
    finally:
        for module, attr, value in patched:
            setattr(module, attr, value)
    assert caught == []
    assert any(module is time for module, _, _ in patched)
    events = [e for e in calls_of(tmp_path / "t.json") if e["name"].endswith("work")]
    assert len(events) == 1 and events[0]["dur"] > 0
